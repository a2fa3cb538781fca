"""Load the search index's libraries in a background thread while a run summarizes.

Writing the index at the end of a first run starts by importing chromadb (~0.7 s) and loading the
static embedder (~0.3 s): a third of what the index added to a run over 1,254 journal entries. Started
when a run has files to summarize, the loading overlaps the summarizing (the run's process mostly
waits for its worker processes then). The index's own imports wait for this thread's (module locks),
so nothing is loaded twice, and any error surfaces there.
"""

from __future__ import annotations

import threading

_started = False
_lock = threading.Lock()


def _load(embed_locally: bool) -> None:
    try:
        import chromadb  # noqa: F401

        if embed_locally:
            from batchsum.index.embed import get_static_embedder

            get_static_embedder()
    except Exception:  # the index loads them again and reports the real error
        pass


def start_index_warmup(embed_locally: bool) -> None:
    """Begin loading chromadb (and the packaged embedder when ``embed_locally``) in a daemon thread,
    once per process."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_load, args=(embed_locally,), name="batchsum-index-warmup", daemon=True).start()
