"""What search needs of every indexed node without asking Chroma: its vector, hash and recency date.

``<out>/.batchsum/vectors-<collection>.sqlite3``, one row per node: the text vector as int8 with one
scale (a unit vector loses < 0.5 % of a cosine), the content hash and the date used for recency (only
for documents with a real date). Chroma's metadata fetch per candidate is the slow part of a query;
this lookup is not. Rows are written before their Chroma records and deleted with them; a missing row
is fetched from Chroma.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def quantize(vectors: np.ndarray) -> tuple[bytes, bytes]:
    """int8 with one float32 scale per row."""
    scale = np.abs(vectors).max(axis=1, keepdims=True) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.round(vectors / scale).astype(np.int8)
    return q.tobytes(), scale.tobytes()


def dequantize(q: bytes, scale: bytes) -> np.ndarray:
    """Inverse of :func:`quantize` for one row."""
    return np.frombuffer(q, dtype=np.int8).astype(np.float32) * np.frombuffer(scale, dtype=np.float32)[0]


@dataclass
class NodeRow:
    """One indexed node as search sees it."""

    content_hash: str
    recency_ts: int | None  # the document's date as epoch seconds; None when it has no real date
    embedding: np.ndarray


class VectorStore:
    """Node id -> :class:`NodeRow` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, hash TEXT, recency_ts INTEGER, e BLOB, es BLOB)"
        )
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def get_many(self, ids: Sequence[str]) -> dict[str, NodeRow]:
        """Rows of the ids that are present."""
        found: dict[str, NodeRow] = {}
        uniq = list(dict.fromkeys(ids))
        for start in range(0, len(uniq), 500):
            part = uniq[start : start + 500]
            sql = f"SELECT id, hash, recency_ts, e, es FROM nodes WHERE id IN ({','.join('?' * len(part))})"
            for nid, h, ts, e, es in self._db.execute(sql, part):
                found[nid] = NodeRow(h, ts, dequantize(e, es))
        return found

    def put_many(self, items: Sequence[tuple[str, NodeRow]]) -> None:
        """Store (node id, row) pairs."""
        rows = [(nid, r.content_hash, r.recency_ts, *quantize(r.embedding[None, :])) for nid, r in items]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO nodes VALUES (?, ?, ?, ?, ?)", rows)

    def delete(self, ids: Sequence[str]) -> None:
        """Forget these node ids."""
        with self._db:
            self._db.executemany("DELETE FROM nodes WHERE id = ?", [(i,) for i in ids])

    def hashes(self) -> dict[str, str]:
        """node id -> content hash of every row."""
        return {nid: h for nid, h in self._db.execute("SELECT id, hash FROM nodes")}

    def keep_only(self, ids: set[str]) -> int:
        """Delete every row whose id is not in ``ids``; return how many went."""
        gone = [i for i in self.hashes() if i not in ids]
        self.delete(gone)
        return len(gone)

    def count(self) -> int:
        """Number of rows."""
        return int(self._db.execute("SELECT COUNT(*) FROM nodes").fetchone()[0])
