"""The search index: every summary node of an output folder embedded into Chroma.

The Markdown tree stays the source of truth; the index can always be checked against it
(:func:`check_index`), repaired (:func:`repair_index`) or rebuilt from it alone (:func:`rebuild_index`).
Heavy dependencies (chromadb, onnxruntime) load only when a function here is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batchsum.index.embed import embedding_function
    from batchsum.index.search import SearchHit, search
    from batchsum.index.store import IndexCheck, IndexStats, check_index, rebuild_index, repair_index, sync_index

__all__ = [
    "IndexCheck",
    "IndexStats",
    "SearchHit",
    "check_index",
    "embedding_function",
    "rebuild_index",
    "repair_index",
    "search",
    "sync_index",
]

_LAZY = {
    "IndexCheck": "batchsum.index.store",
    "IndexStats": "batchsum.index.store",
    "check_index": "batchsum.index.store",
    "embedding_function": "batchsum.index.embed",
    "rebuild_index": "batchsum.index.store",
    "repair_index": "batchsum.index.store",
    "sync_index": "batchsum.index.store",
    "SearchHit": "batchsum.index.search",
    "search": "batchsum.index.search",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'batchsum.index' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
