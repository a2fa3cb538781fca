"""Import the LLM backend's modules in a background thread while the run walks and reads files.

The backend needs aiohttp, pydantic, aiolimiter and tenacity: a few hundred milliseconds of imports
that would otherwise delay the first request. Started at the beginning of a run that will call a
server, they overlap the part of the reading that releases the GIL (file reads, hashing, tiktoken).
The main thread's own import waits for this one (module locks), so nothing is imported twice, and
any import error surfaces there.
"""

from __future__ import annotations

import threading

_started = False
_lock = threading.Lock()


def _import() -> None:
    try:
        import aiohttp  # noqa: F401
        import tenacity  # noqa: F401

        import batchsum.backends.llm  # noqa: F401
    except Exception:  # the main thread imports again and reports the real error
        pass


def start_llm_imports() -> None:
    """Begin importing the LLM backend in a daemon thread (once per process)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_import, name="batchsum-llm-import", daemon=True).start()
