"""Libraries a run will need later, loaded in a background thread while it does something else.

* The tokenizer: tiktoken's ranks and its compiled pattern, needed for the first file's chunks.
* The LLM backend (aiohttp, pydantic, aiolimiter, tenacity): a few hundred milliseconds of imports
  that would otherwise delay the first request. Started when a run will call a server, they overlap
  the part of the reading that releases the GIL (file reads, hashing, tiktoken).
* The search index (chromadb ~0.7 s, the static embedder ~0.3 s): a third of what the index added to
  a first run over 1,254 journal entries. Started when a run has files to summarize, the loading
  overlaps the summarizing (the run's process mostly waits for its worker processes then).

The main thread's own imports wait for these threads' (module locks), so nothing is loaded twice,
and any error surfaces there. What both sides import and is circular inside (numpy) is imported
before the thread starts (:func:`start_index_warmup`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from batchsum.tokens import get_tokenizer

_started: set[str] = set()
_lock = threading.Lock()


def _once_in_background(name: str, load: Callable[[], None]) -> None:
    """Run ``load`` in a daemon thread, once per process for ``name``; its errors are left to the
    main thread's own import."""

    def run() -> None:
        try:
            load()
        except Exception:  # the main thread loads it again and reports the real error
            pass

    with _lock:
        if name in _started:
            return
        _started.add(name)
    threading.Thread(target=run, name=f"batchsum-{name}-warmup", daemon=True).start()


def _llm_imports() -> None:
    import aiohttp  # noqa: F401
    import tenacity  # noqa: F401

    # The point of this thread: the LLM backend's imports (asyncio, aiohttp) off the main thread.
    import batchsum.backends.llm  # noqa: F401


def start_tokenizer(encoding: str) -> None:
    """Begin loading the run's tokenizer (tiktoken's ranks, ~0.3 s) in a daemon thread (once per process),
    overlapping the walk and the imports before the first file is chunked."""

    def load() -> None:
        get_tokenizer(encoding)

    _once_in_background(f"tokenizer-{encoding}", load)


def start_llm_imports() -> None:
    """Begin importing the LLM backend in a daemon thread (once per process)."""
    _once_in_background("llm", _llm_imports)


def start_index_warmup(embed_locally: bool) -> None:
    """Begin loading chromadb (and the packaged embedder when ``embed_locally``) in a daemon thread,
    once per process. numpy (and for an LLM run pydantic) is imported first, in the caller's thread."""
    # Both threads go on to import numpy (the summarizer here, chromadb there), and an LLM run's
    # pydantic (its facets here, chromadb there). Two threads inside such a package's initialisation at
    # once can trip Python's import-deadlock avoidance, which hands one of them a partially initialised
    # module: a run died of "cannot import name 'NDArray' from partially initialized module
    # 'numpy._typing'". Imported whole before the thread starts, there is no race.
    import numpy  # noqa: F401

    if "llm" in _started:
        import pydantic  # noqa: F401

    def load() -> None:
        import chromadb  # noqa: F401

        if embed_locally:
            # The point of this thread: the embedder (numpy, ONNX) loads off the main thread.
            from batchsum.index.embed import get_static_embedder

            get_static_embedder()

    _once_in_background("index", load)
