"""The index's size on disk per part, and the lexical file's soundness and layout (``batchsum index --stats``, and
the parts of ``--check`` that read the lexical file alone): everything here only reads, and opens no Chroma."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.index.lexical import another_layout, layout_note, layout_of
from batchsum.index.state import (
    MOVED,
    UNKNOWN,
    UPGRADE,
    chroma_dir,
    chroma_location,
    index_needs_work,
    lexical_path,
    missing_parts,
    read_only,
    read_state,
    rebuild_state,
    recorded_server,
    refused_error,
    state_path,
    vectors_path,
)
from batchsum.lock import running_holder

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


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection]:
    """``path`` opened read-only; on read-only storage a temporary copy of it (with its WAL), as SQLite opening
    a WAL database read-only still wants its ``-shm`` file beside it (the stats had counted 0 nodes there)."""
    if not read_only(path.parent):
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            yield db
        return
    with tempfile.TemporaryDirectory(prefix="batchsum-stats-") as tmp:
        for part in (path, path.with_name(path.name + "-wal")):
            if part.is_file():
                shutil.copy2(part, Path(tmp) / part.name)
        with contextlib.closing(sqlite3.connect(Path(tmp) / path.name)) as db:
            yield db


def _state_said(cfg: IndexConfig, kind: str) -> str:
    """What ``--stats`` says of an index :func:`index_needs_work` finds work for (``kind``): its state and who
    repairs it, never what a run does about it ("repairing it", "checking its layout": a reader repairs nothing)."""
    cure = f"the next run or `{cfg.index_command()}`"
    if kind == UPGRADE:
        return f"built by an older batchsum; {cure} rebuilds it in the new layout"
    if kind == UNKNOWN:
        if not vectors_path(cfg).is_file() and not lexical_path(cfg).is_file():
            return f"no index (collection {cfg.collection!r})"
        return f"no state file; {cure} checks its layout"
    if kind == MOVED:
        return f"last written to another Chroma than {chroma_location(cfg)}; {cure} brings it in line"
    gone = missing_parts(cfg)
    if gone:
        return f"incomplete: {' and '.join(gone)} {'is' if len(gone) == 1 else 'are'} missing; {cure} rebuilds it"
    holder = running_holder(cfg.out)
    if holder is not None:
        return f"being updated: a run ({holder}) is indexing it"
    return f"incomplete (an indexing run was interrupted or its Chroma could not be reached); {cure} repairs it"


def index_stats(cfg: IndexConfig) -> dict[str, Any]:
    """Sizes on disk per part, node count and state of the index (reads only, opens no Chroma)."""
    parts = index_sizes(cfg)
    nodes = 0
    path = vectors_path(cfg)
    if path.is_file():
        try:
            with _reading(path) as db:
                nodes = int(db.execute("SELECT COUNT(*) FROM nodes").fetchone()[0])
        except (sqlite3.Error, OSError):
            nodes = 0
    work = index_needs_work(cfg)
    state = "complete" if work is None and read_state(cfg) else (_state_said(cfg, work[0]) if work else "no index")
    if work is not None and work[0] == "repair":
        # A rebuild's marker: the index is not one an interrupted run left to repair.
        state = rebuild_state(cfg) or state
    if state == "complete" and (outdated := lexical_outdated(cfg)):
        state = outdated[0]
    remote = recorded_server(cfg)
    if work is not None and work[0] == MOVED and remote is not None:
        # Asked without --chroma-host: nothing is being moved, the local files are those of the server's index.
        state = f"complete (Chroma records on server {chroma_location(remote)})"
    total = sum(p.bytes for p in parts)
    return {
        "out": str(cfg.out),
        "nodes": nodes,
        "state": state,
        "total_bytes": total,
        "bytes_per_node": round(total / nodes, 1) if nodes else None,
        "parts": [{"name": p.name, "path": str(p.path), "bytes": p.bytes} for p in parts],
    }


def check_lexical(cfg: IndexConfig) -> list[str]:
    """SQLite's ``quick_check`` of the lexical index, opened read-only (nothing is created or migrated)."""
    path = lexical_path(cfg)
    if not path.is_file():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as exc:
        if (refused := refused_error("the lexical index", path, exc)) is not None:
            raise refused from None
        return [f"lexical index {path}: {exc}"]
    bad = [str(r[0]) for r in rows if r[0] != "ok"]
    return [f"lexical index {path}: {bad[0]}"] if bad else []


def lexical_outdated(cfg: IndexConfig) -> list[str]:
    """What :func:`~batchsum.index.lexical.layout_note` says of the lexical index when it holds another batchsum
    version's layout, which search reads by meaning only (opened read-only); nothing when it is current, absent
    or unreadable (:func:`check_lexical` reports that)."""
    path = lexical_path(cfg)
    if not path.is_file():
        return []
    try:
        with _reading(path) as db:
            layout = layout_of(db)
    except (sqlite3.Error, OSError):
        return []
    # A server's index is repaired on the server (as :func:`check_index` says).
    return [layout_note(path, (recorded_server(cfg) or cfg).index_command())] if another_layout(layout) else []
