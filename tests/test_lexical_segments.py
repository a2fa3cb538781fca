"""The lexical index's postings in segments: however documents arrive (many per transaction, one per
sync with merges, rewritten or deleted before or after their segment is written), the index scores
exactly as one written at once from the surviving documents (real SQLite, real analysis)."""

from __future__ import annotations

import contextlib
import hashlib
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from batchsum.index.lexical import LexFilter, LexicalStore, query_tokens, update_docs
from batchsum.index.records import IndexNode
from batchsum.index.segments import MERGE_FACTOR, SegmentBuffer, pack_segment, split_docs, unpack_segment

WORDS = (
    "harbour lantern ledger orchard quarry falcon meadow copper ribbon thistle walnut beacon cellar "
    "glacier juniper marble saddle tundra velvet willow anchor bramble cobalt drizzle ember fjord"
).split()
QUERIES = ["harbour lantern", "quarry falcon meadow", "copper ribbon", "glacier juniper", "ember fjord anchor"]


def _doc(rng: random.Random, doc_id: str, words: int) -> list[IndexNode]:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    meta = {"level": 3, "is_final": True, "content_type": "document", "source_path": doc_id, "language": "en",
            "content_hash": hashlib.sha256(text.encode()).hexdigest()}  # fmt: skip
    return [IndexNode(f"{doc_id}:summary:L3:final", doc_id, text[: len(text) // 3], meta)]


def _sources(rng: random.Random, nodes: list[IndexNode]) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(120)) + " " + nodes[0].body


def _scores(store: LexicalStore) -> list[dict[str, float]]:
    """Every document's node scores (all in focus: the best passages of a small vocabulary tie, and which
    of the tied documents fill the pool follows their keys, which differ between the two stores)."""
    every = list(store.signatures())
    return [store.scores(query_tokens(q), LexFilter(), every) for q in QUERIES]


def _fresh(tmp_path: Path, docs: dict[str, tuple[list[IndexNode], str]]) -> list[dict[str, float]]:
    """Scores of an index written in one transaction from ``docs``."""
    with contextlib.closing(LexicalStore(tmp_path / "fresh.sqlite3")) as store:
        update_docs(
            store, [n for nodes, _ in docs.values() for n in nodes], sources={d: s for d, (_, s) in docs.items()}
        )
        return _scores(store)


def _same(got: list[dict[str, float]], want: list[dict[str, float]]) -> None:
    assert all(want)  # every query finds something
    for g, w in zip(got, want, strict=True):
        assert g == pytest.approx(w)


def _segments(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT COUNT(*) FROM lex_segs").fetchone()[0])


def test_rows_pack_and_split_back() -> None:
    import numpy as np

    buffer = SegmentBuffer()
    buffer.add(7, [Counter({"b": 2, "a": 1}), Counter({"a": 3})])
    buffer.add(9, [Counter({"a": 1})] * 70_000)  # passage numbers past uint16
    buffer.add(8, [Counter({"b": 1})])
    buffer.drop(8)
    rows = dict(buffer.rows())
    assert list(rows) == ["a", "b"]
    got = {d: (u.tolist(), f.tolist()) for d, u, f in split_docs(rows["a"])}
    assert got[7] == ([0, 1], [1, 3]) and got[9][0] == list(range(70_000))
    assert [(d, u.tolist(), f.tolist()) for d, u, f in split_docs(rows["b"])] == [(7, [0], [2])]
    dk, counts, units, tfs = unpack_segment(
        pack_segment(np.array([3]), np.array([2]), np.array([4, 9]), np.array([1, 2]))
    )
    assert (dk.tolist(), counts.tolist(), units.tolist(), tfs.tolist()) == ([3], [2], [4, 9], [1, 2])


def test_many_small_syncs_merge_and_score_as_one_write(tmp_path: Path) -> None:
    rng = random.Random(5)
    docs: dict[str, tuple[list[IndexNode], str]] = {}
    path = tmp_path / "lex.sqlite3"
    with contextlib.closing(LexicalStore(path)) as store:
        for i in range(3 * MERGE_FACTOR):  # one document per sync, as `watch` writes them
            nodes = _doc(rng, f"note{i}.md", 60)
            docs[f"note{i}.md"] = (nodes, _sources(rng, nodes))
            update_docs(store, nodes, sources={f"note{i}.md": docs[f"note{i}.md"][1]})
        assert _segments(path) < MERGE_FACTOR  # merged, not one segment per sync
        _same(_scores(store), _fresh(tmp_path, docs))


def test_rewritten_and_deleted_documents_leave_no_postings(tmp_path: Path) -> None:
    """Documents changed or deleted in written segments, merged segments and the open transaction."""
    rng = random.Random(11)
    docs: dict[str, tuple[list[IndexNode], str]] = {}
    path = tmp_path / "lex.sqlite3"

    def put(store: LexicalStore, doc_id: str, commit: bool = True) -> None:
        nodes = _doc(rng, doc_id, rng.randint(20, 200))
        docs[doc_id] = (nodes, _sources(rng, nodes))
        update_docs(store, nodes, sources={doc_id: docs[doc_id][1]}, commit=commit)

    with contextlib.closing(LexicalStore(path)) as store:
        for i in range(40):
            put(store, f"a{i}.md")  # small segments, merged as they pile up
        batch = [f"b{i}.md" for i in range(30)]
        for doc_id in batch:
            put(store, doc_id, commit=False)  # one transaction
        store.commit()
        for doc_id in ("a3.md", "a17.md", "b4.md", "b29.md"):
            put(store, doc_id)  # changed: rewritten in a new segment
        put(store, "c1.md", commit=False)
        put(store, "c1.md", commit=False)  # rewritten before its segment was written
        put(store, "c2.md", commit=False)
        gone = ["a5.md", "a39.md", "b7.md", "c2.md"]
        store.delete_docs(gone)  # c2.md was only in the open transaction
        for doc_id in gone:
            del docs[doc_id]
        _same(_scores(store), _fresh(tmp_path, docs))
    # No posting points at a document that is not there any more.
    with contextlib.closing(sqlite3.connect(path)) as db:
        live = {int(r[0]) for r in db.execute("SELECT dkey FROM lex_docs")}
        seg_of = dict(db.execute("SELECT dkey, seg FROM lex_docs"))
        for seg, data in db.execute("SELECT seg, data FROM lex_postings"):
            for dkey, _, _ in split_docs(data):
                assert dkey in live and seg_of[dkey] == seg


def test_a_failed_transaction_leaves_the_committed_documents(tmp_path: Path) -> None:
    rng = random.Random(3)
    docs: dict[str, tuple[list[IndexNode], str]] = {}
    with contextlib.closing(LexicalStore(tmp_path / "lex.sqlite3")) as store:
        for i in range(5):
            nodes = _doc(rng, f"d{i}.md", 80)
            docs[f"d{i}.md"] = (nodes, _sources(rng, nodes))
            update_docs(store, nodes, sources={f"d{i}.md": docs[f"d{i}.md"][1]})
        nodes = _doc(rng, "late.md", 80)
        update_docs(store, nodes, sources={"late.md": _sources(rng, nodes)}, commit=False)
        store.rollback()
        assert set(store.signatures()) == set(docs)
        _same(_scores(store), _fresh(tmp_path, docs))
