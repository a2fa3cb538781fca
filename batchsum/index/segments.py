"""Postings of the lexical index in segments: one row per (term, segment), not per (term, document).

A row per (term, document) costs an insert at a random place of the (term, document) B-tree for every
term of every document, and that insert grows dearer as the index grows (on 10,000 short notes it was
half the lexical index's cost). Like Lucene's segments (after Cutting and Pedersen, *Optimizations for
dynamic inverted index maintenance*, SIGIR 1990), the postings of many documents are gathered in memory
(:class:`SegmentBuffer`) and written at once, one row per term holding that term's postings in all of the
segment's documents, the rows in term order. A document lives in one segment (``lex_docs.seg``);
deleting it rewrites the rows of its terms in that segment. Small segments (a nightly run's few files, a
``watch`` sync) are merged when :data:`MERGE_FACTOR` of them share a size tier, so a term's rows stay few.

A row (:func:`pack_segment`): a width byte (2 or 4: that of the passage numbers), three zero bytes, the
document count ``m`` (uint32), ``m`` document keys (int32), ``m`` posting counts (uint32), then each
document's passage numbers (ascending), then the term's count in each (uint8).
"""

from __future__ import annotations

import sqlite3
import struct
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

SEGMENT_POSTINGS = 1_000_000  # (term, passage) postings gathered in memory before a segment is written
MERGE_FACTOR = 10  # this many segments of one size tier (a power of ten of postings) are merged into one

SEGMENT_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS lex_postings (term TEXT NOT NULL, seg INTEGER NOT NULL, data BLOB NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS lex_postings_term ON lex_postings (term, seg)",
    "CREATE TABLE IF NOT EXISTS lex_segs (seg INTEGER PRIMARY KEY, postings INTEGER NOT NULL)",
)


def pack_segment(dkeys: Any, counts: Any, units: Any, tfs: Any) -> bytes:
    """One row's data (see the module docstring) from numpy arrays: per document its key and posting
    count, then all passage numbers and term counts, document after document."""
    import numpy as np

    wide = len(units) > 0 and int(units.max()) >= 65536
    head = struct.pack("<B3xI", 4 if wide else 2, len(dkeys))
    return b"".join(
        (
            head,
            np.asarray(dkeys, dtype="<i4").tobytes(),
            np.asarray(counts, dtype="<u4").tobytes(),
            np.asarray(units, dtype="<u4" if wide else "<u2").tobytes(),
            np.asarray(tfs, dtype=np.uint8).tobytes(),
        )
    )


def unpack_segment(data: bytes) -> tuple[Any, Any, Any, Any]:
    """Inverse of :func:`pack_segment`: (document keys, posting counts, passage numbers, term counts)."""
    import numpy as np

    width, m = struct.unpack_from("<B3xI", data)
    dkeys = np.frombuffer(data, dtype="<i4", count=m, offset=8).astype(np.int64)
    counts = np.frombuffer(data, dtype="<u4", count=m, offset=8 + 4 * m).astype(np.int64)
    n = int(counts.sum())
    at = 8 + 8 * m
    units = np.frombuffer(data, dtype="<u2" if width == 2 else "<u4", count=n, offset=at).astype(np.int64)
    tfs = np.frombuffer(data, dtype=np.uint8, count=n, offset=at + width * n)
    return dkeys, counts, units, tfs


def split_docs(data: bytes, keep: Any = None) -> Iterator[tuple[int, Any, Any]]:
    """(document key, passage numbers, term counts) of every document of a row (``keep``: a predicate on
    document keys)."""
    import numpy as np

    dkeys, counts, units, tfs = unpack_segment(data)
    bounds = np.cumsum(counts)
    start = 0
    for d, stop in zip(dkeys.tolist(), bounds.tolist(), strict=True):
        if keep is None or keep(d):
            yield d, units[start:stop], tfs[start:stop]
        start = stop


class SegmentBuffer:
    """The postings of the documents written since the last segment, as flat arrays (13 bytes a posting)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every buffered posting."""
        self.ids: dict[str, int] = {}  # term -> its number in this buffer
        self.term = array("i")
        self.doc = array("i")
        self.unit = array("I")
        self.tf = array("B")
        self.dropped: set[int] = set()

    def __len__(self) -> int:
        return len(self.term)

    def add(self, dkey: int, units: Sequence[Counter[str]]) -> None:
        """Buffer a document's postings: the term counts of each of its passages, numbered from 0."""
        ids = self.ids
        terms = [t for counts in units for t in counts]
        for t in set(terms).difference(ids):
            ids[t] = len(ids)
        self.term.extend(map(ids.__getitem__, terms))
        self.tf.extend([c if c < 255 else 255 for counts in units for c in counts.values()])
        for number, counts in enumerate(units):
            self.unit.extend([number] * len(counts))
        self.doc.extend([dkey] * len(terms))

    def drop(self, dkey: int) -> None:
        """Leave a buffered document out of the segment (it was deleted or rewritten before the flush)."""
        self.dropped.add(dkey)

    def rows(self) -> Iterator[tuple[str, bytes]]:
        """(term, row data) of every buffered term, in term order (inserts in key order stay cheap)."""
        import numpy as np

        term = np.frombuffer(self.term, dtype=np.int32)
        doc = np.frombuffer(self.doc, dtype=np.int32)
        unit = np.frombuffer(self.unit, dtype=np.uint32)
        tf = np.frombuffer(self.tf, dtype=np.uint8)
        if self.dropped:
            keep = ~np.isin(doc, np.fromiter(self.dropped, dtype=np.int32, count=len(self.dropped)))
            term, doc, unit, tf = term[keep], doc[keep], unit[keep], tf[keep]
        if not len(term):
            return
        names = list(self.ids)
        rank = np.empty(len(names), dtype=np.int64)
        rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
        order = np.lexsort((unit, doc, rank[term]))
        term, doc, unit, tf = term[order], doc[order], unit[order], tf[order]
        # Runs of one (term, document): a document's postings of a term; runs of one term: a row.
        pair = np.flatnonzero(np.r_[True, (term[1:] != term[:-1]) | (doc[1:] != doc[:-1])])
        pair_count = np.diff(np.r_[pair, len(term)])
        first = np.flatnonzero(np.r_[True, term[pair[1:]] != term[pair[:-1]]])
        ends = np.r_[first[1:], len(pair)]
        docs, counts = doc[pair], pair_count
        for a, b in zip(first.tolist(), ends.tolist(), strict=True):
            lo = int(pair[a])
            hi = int(pair[b]) if b < len(pair) else len(term)
            yield names[int(term[lo])], pack_segment(docs[a:b], counts[a:b], unit[lo:hi], tf[lo:hi])


def next_segment(db: sqlite3.Connection) -> int:
    """A segment number no segment has."""
    return int(db.execute("SELECT COALESCE(MAX(seg), 0) + 1 FROM lex_segs").fetchone()[0])


def write_segment(db: sqlite3.Connection, seg: int, buffer: SegmentBuffer) -> None:
    """Write the buffered postings as segment ``seg`` (inside the caller's transaction)."""
    count = len(buffer)
    db.executemany(
        "INSERT INTO lex_postings (term, seg, data) VALUES (?, ?, ?)", ((t, seg, d) for t, d in buffer.rows())
    )
    db.execute("INSERT INTO lex_segs (seg, postings) VALUES (?, ?)", (seg, count))


def delete_postings(db: sqlite3.Connection, docs: Sequence[tuple[int, int, list[str]]]) -> None:
    """Remove the postings of these (document key, segment, terms) from their segments' rows."""
    import numpy as np

    gone: dict[tuple[str, int], list[int]] = {}
    for dkey, seg, terms in docs:
        for t in terms:
            gone.setdefault((t, seg), []).append(dkey)
    removed: Counter[int] = Counter()
    for (t, seg), dkeys in gone.items():
        row = db.execute("SELECT rowid, data FROM lex_postings WHERE term = ? AND seg = ?", (t, seg)).fetchone()
        if row is None:
            continue
        have, counts, units, tfs = unpack_segment(row[1])
        keep = ~np.isin(have, np.array(dkeys, dtype=np.int64))
        removed[seg] += int(counts[~keep].sum())
        if not keep.any():
            db.execute("DELETE FROM lex_postings WHERE rowid = ?", (row[0],))
            continue
        per_posting = np.repeat(keep, counts)
        db.execute(
            "UPDATE lex_postings SET data = ? WHERE rowid = ?",
            (pack_segment(have[keep], counts[keep], units[per_posting], tfs[per_posting]), row[0]),
        )
    db.executemany(
        "UPDATE lex_segs SET postings = MAX(postings - ?, 0) WHERE seg = ?", ((n, s) for s, n in removed.items())
    )


def _tier(postings: int) -> int:
    return len(str(max(postings, 1))) - 1  # the power of ten


def merge_small(db: sqlite3.Connection) -> int:
    """Merge :data:`MERGE_FACTOR` segments of one size tier below :data:`SEGMENT_POSTINGS` into one, as
    long as some tier has that many (inside the caller's transaction); return how many merges ran."""
    import numpy as np

    merges = 0
    while True:
        tiers: dict[int, list[int]] = {}
        for seg, postings in db.execute("SELECT seg, postings FROM lex_segs ORDER BY seg"):
            if postings < SEGMENT_POSTINGS:
                tiers.setdefault(_tier(int(postings)), []).append(int(seg))
        group = next((segs for _, segs in sorted(tiers.items()) if len(segs) >= MERGE_FACTOR), None)
        if group is None:
            return merges
        new = next_segment(db)
        marks = ",".join("?" * len(group))
        rows: dict[str, list[bytes]] = {}
        rowids: list[tuple[int]] = []
        for rowid, term, data in db.execute(
            f"SELECT rowid, term, data FROM lex_postings WHERE seg IN ({marks})", group
        ):
            rows.setdefault(term, []).append(data)
            rowids.append((rowid,))
        db.executemany("DELETE FROM lex_postings WHERE rowid = ?", rowids)
        merged = []
        for term in sorted(rows):
            parts = [unpack_segment(d) for d in rows[term]]
            merged.append((term, new, pack_segment(*(np.concatenate([p[i] for p in parts]) for i in range(4)))))
        db.executemany("INSERT INTO lex_postings (term, seg, data) VALUES (?, ?, ?)", merged)
        total = db.execute(f"SELECT TOTAL(postings) FROM lex_segs WHERE seg IN ({marks})", group).fetchone()[0]
        db.execute(f"DELETE FROM lex_segs WHERE seg IN ({marks})", group)
        db.execute("INSERT INTO lex_segs (seg, postings) VALUES (?, ?)", (new, int(total)))
        db.execute(f"UPDATE lex_docs SET seg = ? WHERE seg IN ({marks})", [new, *group])
        merges += 1
