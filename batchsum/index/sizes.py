"""The size on disk of each part of an output folder's index (reads only, opens no Chroma)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from batchsum.index.state import chroma_dir, lexical_path, state_path, vectors_path

if TYPE_CHECKING:
    from batchsum.config import IndexConfig


@dataclass
class PartSize:
    """One part of the index on disk."""

    name: str
    path: Path
    bytes: int


def index_sizes(cfg: IndexConfig) -> list[PartSize]:
    """Size on disk of each part of the index (Chroma, node vectors, lexical layer, state)."""

    def size(p: Path) -> int:
        if p.is_dir():
            return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        total = 0
        for q in (p, Path(f"{p}-wal"), Path(f"{p}-shm"), Path(f"{p}-journal")):
            with contextlib.suppress(OSError):
                total += q.stat().st_size
        return total

    parts = [
        PartSize("chroma", chroma_dir(cfg), 0 if cfg.chroma_host else size(chroma_dir(cfg))),
        PartSize("vectors", vectors_path(cfg), size(vectors_path(cfg))),
        PartSize("lexical", lexical_path(cfg), size(lexical_path(cfg))),
        PartSize("state", state_path(cfg), size(state_path(cfg))),
    ]
    legacy = cfg.state_dir / f"tokvecs-{cfg.collection}.sqlite3"
    if legacy.exists():
        parts.append(PartSize("legacy token vectors", legacy, size(legacy)))
    return parts
