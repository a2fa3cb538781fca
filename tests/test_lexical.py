"""The lexical (BM25) channel: source words find the nodes that summarize them, and the lexical data
stays in sync with the tree (real Chroma, real ONNX model, real manifest and source files)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
from pathlib import Path

import pytest

from batchsum.config import RunConfig
from batchsum.index.lexical import (
    LEX_SCHEMA,
    LexFilter,
    LexicalStore,
    lexical_path,
    passages,
    query_tokens,
    stem,
    tokenize,
)
from batchsum.index.search import search
from batchsum.index.store import rebuild_index, repair_index, sync_index
from batchsum.sources import source_text
from batchsum.state import ManifestEntry, StateStore
from batchsum.tree import node_path, read_node, write_node
from tests.test_index import node_meta, write_doc

FILLER = "The team reviewed the weekly figures and agreed to meet again next week. " * 40
# Only in the source, in the second chunk; no summary says it.
SECRET = "Nadia found that the zeppelin hangar roof leaks whenever the wind turns westerly."


def _corpus(tmp_path: Path) -> tuple[RunConfig, Path, str]:
    """A run-like output: a real source file, its manifest entry and a 2-chunk tree whose summaries omit SECRET."""
    root = tmp_path / "corpus"
    root.mkdir()
    source = root / "minutes.md"
    first = FILLER
    second = FILLER[: len(FILLER) // 2] + SECRET + " " + FILLER[len(FILLER) // 2 :]
    text = first + "\n\n" + second
    source.write_text(text, encoding="utf-8")
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    out = tmp_path / "out"
    rel = "minutes.md"
    spans = [(0, len(first)), (len(first) + 2, len(text))]
    summaries = ["The team reviewed the weekly figures.", "The team agreed to meet again next week."]
    for i, (body, span) in enumerate(zip(summaries, spans, strict=True)):
        meta = node_meta(rel, 1, i, summary_level="DETAILED") | {"source_sha256": sha, "source_span": list(span)}
        write_node(node_path(out, rel, 1, i), meta, body)
    final = node_meta(rel, 3, None, summary_level="DETAILED", n_chunks=2) | {"source_sha256": sha}
    write_node(node_path(out, rel, 3, None), final, "Weekly figures were reviewed; the team meets next week.")
    StateStore(out / ".batchsum").save_entry(
        ManifestEntry(
            relpath=rel,
            root=str(root),
            size=len(text),
            mtime_ns=0,
            sha256=sha,
            content_type="document",
            level="DETAILED",
            tokens=900,
            doc_date="2024-05-01",
        )
    )
    write_doc(out, "garden.md", "Notes on growing tomatoes and beans in a greenhouse over the summer.")
    write_doc(out, "hangar.md", "The airfield's hangar doors were repainted grey in spring.")
    cfg = RunConfig(paths=[], out=out)
    sync_index(cfg, [rel, "garden.md", "hangar.md"], [])
    return cfg, source, rel


def _lex_scores(cfg: RunConfig, query: str, filt: LexFilter | None = None) -> dict[str, float]:
    with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
        return store.scores(query_tokens(query), filt or LexFilter())


def test_query_words_only_in_the_source_find_the_summarizing_node(tmp_path: Path) -> None:
    cfg, _, rel = _corpus(tmp_path)
    query = "Why does the zeppelin hangar roof leak when the wind is westerly?"
    scores = _lex_scores(cfg, query)
    # The chunk holding the words and the final (whole source) score; the other chunk does not.
    assert f"{rel}:summary:L1:1" in scores and f"{rel}:summary:L3:final" in scores
    assert f"{rel}:summary:L1:0" not in scores
    assert scores[f"{rel}:summary:L1:1"] > scores.get("hangar.md:summary:L3:final", 0.0)
    hits = search(cfg, query, k=3)
    # No summary of minutes.md is about hangars (dense favours hangar.md), yet its words bring it in.
    assert rel in {h.source_path for h in hits}
    assert set(_lex_scores(cfg, query, LexFilter(level="1"))) == {f"{rel}:summary:L1:1"}
    # Filters apply to lexical candidates too.
    assert _lex_scores(cfg, query, LexFilter(level="final")).keys() <= {
        f"{rel}:summary:L3:final",
        "hangar.md:summary:L3:final",
    }
    assert not _lex_scores(cfg, query, LexFilter(content_type="journal"))
    assert not _lex_scores(cfg, query, LexFilter(sources={"garden.md"}))


def test_a_changed_source_is_not_used(tmp_path: Path) -> None:
    cfg, source, rel = _corpus(tmp_path)
    source.write_text(source.read_text(encoding="utf-8").replace("zeppelin", "airship"), encoding="utf-8")
    sha = read_node(node_path(cfg.out, rel, 3, None))[0]["source_sha256"]
    assert source_text(cfg.state_dir, rel, sha) is None
    rebuild_index(cfg)  # the front matter's sha256 no longer matches: summaries only
    assert not any(k.startswith(rel) for k in _lex_scores(cfg, "zeppelin hangar roof"))
    assert not any(k.startswith(rel) for k in _lex_scores(cfg, "airship hangar roof"))


def test_deleted_files_leave_the_lexical_index(tmp_path: Path) -> None:
    cfg, _, rel = _corpus(tmp_path)
    with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
        assert set(store.signatures()) == {rel, "garden.md", "hangar.md"}
    sync_index(cfg, [], [rel])
    with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
        assert set(store.signatures()) == {"garden.md", "hangar.md"}
        assert not any(n.startswith(rel) for n in store.node_ids())
    assert not any(k.startswith(rel) for k in _lex_scores(cfg, "zeppelin hangar roof westerly"))
    assert all(h.source_path != rel for h in search(cfg, "zeppelin hangar roof westerly", k=5))


def test_a_changed_tree_replaces_its_lexical_data(tmp_path: Path) -> None:
    cfg, _, _ = _corpus(tmp_path)
    assert "garden.md:summary:L3:final" in _lex_scores(cfg, "tomatoes greenhouse")
    write_doc(cfg.out, "garden.md", "A plan for planting apple trees along the fence.")
    sync_index(cfg, ["garden.md"], [])
    assert "garden.md:summary:L3:final" not in _lex_scores(cfg, "tomatoes greenhouse")
    assert "garden.md:summary:L3:final" in _lex_scores(cfg, "apple trees fence")


def test_rebuild_and_repair_restore_the_lexical_index(tmp_path: Path) -> None:
    cfg, _, _ = _corpus(tmp_path)
    query = "zeppelin hangar roof westerly"
    before = _lex_scores(cfg, query)
    for f in cfg.state_dir.glob("lexical-*"):
        f.unlink()
    assert search(cfg, query, k=1)  # no lexical data: search by meaning still works
    repair_index(cfg)
    assert _lex_scores(cfg, query) == pytest.approx(before)
    lexical_path(cfg).write_bytes(b"not a database at all" * 100)  # corrupt: rebuild replaces it
    rebuild_index(cfg)
    assert _lex_scores(cfg, query) == pytest.approx(before)
    assert not list(cfg.state_dir.glob(".lexical-*.tmp"))  # the temp file was renamed into place


def test_an_older_layout_waits_for_index_instead_of_being_emptied_by_search(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg, _, rel = _corpus(tmp_path)
    query = "zeppelin hangar roof westerly"
    before = _lex_scores(cfg, query)

    def layout_and_postings() -> tuple[str, int]:
        with contextlib.closing(sqlite3.connect(lexical_path(cfg))) as db:
            schema = db.execute("SELECT value FROM lex_meta WHERE key = 'schema'").fetchone()[0]
            return str(schema), int(db.execute("SELECT COUNT(*) FROM lex_postings").fetchone()[0])

    with contextlib.closing(sqlite3.connect(lexical_path(cfg))) as db, db:
        db.execute("UPDATE lex_meta SET value = ? WHERE key = 'schema'", (str(LEX_SCHEMA - 1),))
    postings = layout_and_postings()[1]
    with caplog.at_level(logging.WARNING, logger="batchsum.index.search"):
        assert search(cfg, query, k=1)  # by meaning only
    assert "another layout" in caplog.text and "batchsum index" in caplog.text
    assert layout_and_postings() == (str(LEX_SCHEMA - 1), postings)  # the search left it alone
    with contextlib.closing(LexicalStore(lexical_path(cfg), keep_outdated=True)) as store:
        assert store.outdated and store.scores(query_tokens(query), LexFilter())  # still the old data
    repair_index(cfg)  # rewrites it in the current layout
    assert layout_and_postings()[0] == str(LEX_SCHEMA)
    assert _lex_scores(cfg, query) == pytest.approx(before)
    assert rel in {h.source_path for h in search(cfg, query, k=3)}


def test_a_run_after_an_upgrade_refills_every_document(tmp_path: Path) -> None:
    cfg, _, rel = _corpus(tmp_path)
    # An older layout, or an index made before the lexical channel: the run's sync touches one file.
    for older in ("layout", "channel"):
        if older == "layout":
            with contextlib.closing(sqlite3.connect(lexical_path(cfg))) as db, db:
                db.execute("UPDATE lex_meta SET value = ? WHERE key = 'schema'", (str(LEX_SCHEMA - 1),))
        else:
            lexical_path(cfg).unlink()
        write_doc(cfg.out, "garden.md", "A plan for planting apple trees along the fence.")
        sync_index(cfg, ["garden.md"], [])
        with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
            assert set(store.signatures()) == {rel, "garden.md", "hangar.md"}, older
        assert any(k.startswith(rel) for k in _lex_scores(cfg, "zeppelin hangar roof westerly"))


def test_tokens_passages_and_stems() -> None:
    assert stem("budgets") == "budget" == stem("budget's") and stem("meetings") == stem("meeting") == "meet"
    assert stem("class") == "class"
    assert stem("discussed") == "discuss" and stem("batteries") == stem("battery") == "batteri"
    assert stem("release") == stem("released") == stem("releases") and stem("name") == stem("names")
    assert tokenize("The Budgets were CUT, by Anna's team!") == ["budget", "cut", "anna", "team"]
    # Letters spelled one by one are one word, as the query writes it.
    assert tokenize("an L_C_D_ screen, two L_C_D_s, the T_V_'s U.S.A. office") == [
        "lcd", "screen", "two", "lcd", "tv", "usa", "offic"
    ]  # fmt: skip
    assert tokenize("plan A. B. said a_b") == ["plan", "said"]  # initials apart, one-letter words: dropped
    assert query_tokens("Summarize the discussion about the budget") == [["budget"]]
    assert query_tokens("Summarize the discussion") == [["summar"], ["discuss"]]  # nothing else to go on
    text = " ".join(f"w{i}" for i in range(250))
    got = list(passages(text, words=100, stride=50))
    assert [len(t.split()) for _, t in got] == [100, 100, 100, 100]
    assert got[1][0] == text.index("w50 ") and got[-1][1].endswith("w249")
    assert list(passages("")) == []


def test_a_document_rollup_counts_its_further_passages(tmp_path: Path) -> None:
    """A document's rollup is its best passage plus a share of its next best ones: the source passages
    around SECRET add to minutes.md's; hangar.md's single summary passage is all it has."""
    cfg, _, rel = _corpus(tmp_path)
    with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
        scores = store.scores(query_tokens("zeppelin hangar roof"), LexFilter())
        rollup = store.last_rollup
    assert rollup["hangar.md"] == pytest.approx(scores["hangar.md:summary:L3:final"])
    best = max(v for k, v in scores.items() if k.startswith(rel))
    assert best < rollup[rel] < 2 * best
