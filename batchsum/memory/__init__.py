"""The memory layer: atomic facts extracted from journals and conversations, reconciled against what is
already known (ADD / UPDATE / DELETE / NONE), kept as Markdown files and indexed beside the summaries.

Heavy dependencies (chromadb, onnxruntime, openai) load only when a function here is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batchsum.memory.engine import Changes, MemoryEngine, Source
    from batchsum.memory.files import Fact
    from batchsum.memory.ingest import FactsConfig, FactsResult, process_facts, run_facts
    from batchsum.memory.search import FactHit, search_facts

__all__ = [
    "Changes",
    "Fact",
    "FactHit",
    "FactsConfig",
    "FactsResult",
    "MemoryEngine",
    "Source",
    "process_facts",
    "run_facts",
    "search_facts",
]

_LAZY = {
    "Changes": "batchsum.memory.engine",
    "MemoryEngine": "batchsum.memory.engine",
    "Source": "batchsum.memory.engine",
    "Fact": "batchsum.memory.files",
    "FactsConfig": "batchsum.memory.ingest",
    "FactsResult": "batchsum.memory.ingest",
    "process_facts": "batchsum.memory.ingest",
    "run_facts": "batchsum.memory.ingest",
    "FactHit": "batchsum.memory.search",
    "search_facts": "batchsum.memory.search",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'batchsum.memory' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
