"""Search's own copy of every indexed node: its vector, the fields search filters on, and its metadata.

``<out>/.batchsum/vectors-<collection>.sqlite3``, one row per node: the text vector as int8 with one
scale (a unit vector loses < 0.5 % of a cosine), the content hash, the date used for recency (only for
documents with a real date), level, content type and source (what ``--level``, ``--type``, ``--since``
and ``--path`` filter on) and the node's Chroma metadata as JSON. Rows are written before their
Chroma records and deleted with them.

Why a copy beside Chroma: a search of a local index reads this file with the standard library's
sqlite3 and numpy and ranks every node exactly (a few thousand int8 rows take milliseconds), where
opening Chroma first costs a second of imports; Chroma stays the store of record that other tools
(and ``--chroma-host``) query.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from batchsum.tree import atomic_target

if TYPE_CHECKING:
    from batchsum.index.lexical import LexFilter

_COLUMNS = (
    "id TEXT PRIMARY KEY, hash TEXT, recency_ts INTEGER, e BLOB, es BLOB, level INTEGER, is_final INTEGER,"
    " content_type TEXT, doc_ts INTEGER, dated INTEGER, source TEXT, md TEXT"
)


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
    metadata: dict[str, Any] = field(default_factory=dict)  # the node's Chroma metadata


def filter_sql(filt: LexFilter) -> tuple[str, list[Any]]:
    """A WHERE clause (or "") and its parameters for what ``filt`` admits (its sources are checked apart)."""
    clauses: list[str] = []
    params: list[Any] = []
    if filt.level == "final":
        clauses.append("is_final = 1")
    elif filt.level is not None:
        clauses.append("level = ?")
        params.append(4 if filt.level == "period" else int(filt.level))  # period: the digests, level 4
    if filt.content_type is not None:  # only sources: a digest (level 4) is none
        clauses.append("content_type = ? AND level != 4")
        params.append(filt.content_type)
    if filt.since_ts is not None:
        # Only documents with a real date: a copy date says nothing about when a text was written. ``later``
        # passes by the days it covers: a file of many days dated by its first, a month's or a year's digest.
        later = sorted(filt.later)
        either = f" OR source IN ({','.join('?' * len(later))})" if later else ""
        clauses.append(f"((dated = 1 AND doc_ts >= ?){either})")
        params.extend([filt.since_ts, *later])
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


# The levels whose nodes the dense channel ranks, ``per_level`` of each: the collapsed tree (L1, L2, L3).
# A period's digest (level 4) is a dense candidate only under --level period; both sources (this copy and
# Chroma, :mod:`batchsum.index.dense`) keep to it, so a search gets the same candidates from either.
DENSE_LEVELS = (1, 2, 3)


class VectorStore:
    """Node id -> :class:`NodeRow` (see the module docstring)."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """Open (or create) the store. ``read_only``: open an existing file for searching, never write."""
        self.path = path
        if read_only:
            # mode=rw: never create the file; no PRAGMA or DDL, so a search writes nothing.
            self._db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=30.0, check_same_thread=False)
            self.current = "md" in self._columns()
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        columns = self._columns()
        if columns and "md" not in columns:  # an older layout of derived data: start empty
            self._db.execute("DROP TABLE nodes")
        self._db.execute(f"CREATE TABLE IF NOT EXISTS nodes ({_COLUMNS})")
        self._db.commit()
        self.current = True

    def fold_wal(self) -> None:
        """Fold the write-ahead log into the database file and stop using one: the file alone is the store."""
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.execute("PRAGMA journal_mode=DELETE")

    def _columns(self) -> set[str]:
        return {row[1] for row in self._db.execute("PRAGMA table_info(nodes)")}

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def get_many(self, ids: Sequence[str]) -> dict[str, NodeRow]:
        """Rows of the ids that are present."""
        found: dict[str, NodeRow] = {}
        uniq = list(dict.fromkeys(ids))
        for start in range(0, len(uniq), 500):
            part = uniq[start : start + 500]
            sql = f"SELECT id, hash, recency_ts, e, es, md FROM nodes WHERE id IN ({','.join('?' * len(part))})"
            for nid, h, ts, e, es, md in self._db.execute(sql, part):
                found[nid] = NodeRow(h, ts, dequantize(e, es), json.loads(md) if md else {})
        return found

    def put_many(self, items: Sequence[tuple[str, NodeRow]]) -> None:
        """Store (node id, row) pairs."""
        rows = []
        for nid, r in items:
            m = r.metadata
            rows.append((nid, r.content_hash, r.recency_ts, *quantize(r.embedding[None, :]), m.get("level"),
                         int(bool(m.get("is_final"))), m.get("content_type"), m.get("doc_ts"),
                         int(bool(m.get("dated"))), str(m.get("source_path", m.get("doc_id", ""))),
                         json.dumps(m, ensure_ascii=False)))  # fmt: skip
        with self._db:
            self._db.executemany(f"INSERT OR REPLACE INTO nodes VALUES ({','.join('?' * 12)})", rows)

    def nearest(self, query: np.ndarray, per_level: int, filt: LexFilter) -> dict[str, float]:
        """The ``per_level`` nodes of each level (:data:`DENSE_LEVELS`; level 4 under ``--level period``)
        most similar to the unit vector ``query``, exactly (every admitted row is compared): node id -> cosine."""
        where, params = filter_sql(filt)
        ids: list[str] = []
        levels: list[int] = []
        blobs: list[bytes] = []
        scales: list[bytes] = []
        for nid, level, e, es, source in self._db.execute(f"SELECT id, level, e, es, source FROM nodes{where}", params):
            if filt.sources is not None and source not in filt.sources:
                continue
            ids.append(nid)
            levels.append(int(level or 3))
            blobs.append(e)
            scales.append(es)
        if not ids:
            return {}
        dim = len(blobs[0])
        matrix = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(ids), dim).astype(np.float32)
        matrix *= np.frombuffer(b"".join(scales), dtype=np.float32)[:, None]
        norms = np.clip(np.linalg.norm(matrix, axis=1), 1e-12, None)
        q = np.asarray(query, dtype=np.float32)
        cosine = np.einsum("id,d->i", matrix, q / max(float(np.linalg.norm(q)), 1e-12)) / norms
        level_of = np.asarray(levels)
        found: dict[str, float] = {}
        for lvl in (4,) if filt.level == "period" else DENSE_LEVELS:
            idx = np.flatnonzero(level_of == lvl)
            if not len(idx):
                continue
            top = idx[np.argsort(-cosine[idx], kind="stable")[:per_level]]
            found.update((ids[i], float(cosine[i])) for i in top)
        return found

    def finals_on(self, days: Sequence[str], filt: LexFilter) -> list[str]:
        """The final nodes ``filt`` admits of the documents dated on one of ``days`` (``1826-05-15``, or
        ``--05-15``: that day of any year) or within one of the months or years among them (``1826-05``,
        ``1826``, :func:`date_span`); a document without a real date is on no day.

        SQLite picks them (a day is a range of ``doc_ts``, a day of any year its UTC month and day): each
        dated query had turned every dated final's row into a date in Python (7 ms of 3,000 finals)."""
        where, params = filter_sql(filt)
        on: list[str] = []
        for day in dict.fromkeys(days):
            if day.startswith("--"):
                on.append("strftime('%m-%d', doc_ts, 'unixepoch') = ?")
                params.append(day[2:])
                continue
            span = date_span(day)
            if span is None:
                continue  # no day of the calendar ("2025-02-30"): none is dated on it
            on.append("(doc_ts >= ? AND doc_ts < ?)")
            params.extend(span)
        if not on:
            return []
        where += (" AND " if where else " WHERE ") + "is_final = 1 AND dated = 1 AND doc_ts IS NOT NULL"
        sql = f"SELECT id, source FROM nodes{where} AND ({' OR '.join(on)})"
        return [nid for nid, source in self._db.execute(sql, params) if filt.sources is None or source in filt.sources]

    def period_digests(self) -> list[str]:
        """Source paths of the indexed month and year digests (level 4 with a date; a folder's has none)."""
        sql = "SELECT DISTINCT source FROM nodes WHERE level = 4 AND doc_ts IS NOT NULL"
        return sorted(str(r[0]) for r in self._db.execute(sql))

    def dated_sources(self) -> list[tuple[str, int]]:
        """Each indexed source with a real date (no digest), with that date in epoch seconds."""
        sql = "SELECT DISTINCT source, doc_ts FROM nodes WHERE level != 4 AND dated = 1 AND doc_ts IS NOT NULL"
        return [(str(source), int(ts)) for source, ts in self._db.execute(sql)]

    def sources(self, final_only: bool = True) -> list[str]:
        """Distinct source paths of the indexed documents."""
        sql = "SELECT DISTINCT source FROM nodes" + (" WHERE is_final = 1" if final_only else "")
        return sorted(str(r[0]) for r in self._db.execute(sql))

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


@contextlib.contextmanager
def shadow_store(path: Path) -> Iterator[VectorStore]:
    """A new, empty store written beside ``path`` and renamed over it when the block ends without error, as the
    lexical file is rebuilt: until then readers open the old file, whole (one that holds it open keeps reading it
    after the switch); on an error the new file is removed and the old one stays. The caller holds the output's
    lock, so a new file found beside ``path`` is one a killed rebuild left: it goes first."""
    for left in path.parent.glob(f".{path.name}.*.tmp*"):  # atomic_target's names, with their -wal and -shm
        left.unlink(missing_ok=True)
    with atomic_target(path) as tmp:
        store = VectorStore(tmp)  # sqlite takes the empty temp file as an empty database
        try:
            yield store
            store.fold_wal()  # only the one file moves
        finally:
            store.close()
            _drop_sides(tmp)
        # The old file's log and shared memory are its own: a new file beside them would be read through them.
        _drop_sides(path)


def _drop_sides(path: Path) -> None:
    for side in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{side}")


def date_span(key: str) -> tuple[int, int] | None:
    """The ``doc_ts`` range [start, end) of a day (``1826-05-15``), a month (``1826-05``) or a year (``1826``);
    None for no date of the calendar ("2025-02-30")."""
    try:
        first = date.fromisoformat({4: f"{key}-01-01", 7: f"{key}-01"}.get(len(key), key))
    except ValueError:
        return None
    if len(key) == 4:
        after = first.replace(year=first.year + 1)
    elif len(key) == 7:
        after = (first + timedelta(days=31)).replace(day=1)
    else:
        after = first + timedelta(days=1)
    start, end = (int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp()) for d in (first, after))
    return start, end
