"""Import the LLM client in a background thread while the run walks and reads files.

``import openai`` builds several hundred pydantic models: about as long as reading and tokenizing
a few dozen meetings. Started at the beginning of a run that will call a server, it overlaps the
part of that work that releases the GIL (file reads, hashing, tiktoken) instead of delaying the
first request. The main thread's own import waits for this one (module locks), so it is never
done twice, and any import error surfaces there.
"""

from __future__ import annotations

import threading

_started = False
_lock = threading.Lock()


def _import() -> None:
    try:
        import openai

        import batchsum.backends.llm  # noqa: F401  (aiolimiter, pydantic, tenacity)

        openai.AsyncOpenAI  # noqa: B018 - resolves the client module, which the package loads lazily
        openai.DefaultAioHttpClient  # noqa: B018
    except Exception:  # the main thread imports again and reports the real error
        pass


def start_llm_imports() -> None:
    """Begin importing the LLM client in a daemon thread (once per process)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_import, name="batchsum-llm-import", daemon=True).start()
