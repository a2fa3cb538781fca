"""Search over a real Chroma index with the real ONNX model: retrieval, filters, recency, MMR, rerankers, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.errors import ConfigError, IndexError_
from batchsum.index.embed import packaged_model_files
from batchsum.index.lexical import LexFilter, query_tokens
from batchsum.index.passages import page_title
from batchsum.index.search import minmax, mmr, search
from batchsum.index.snippets import make_snippet
from batchsum.index.store import sync_index
from tests.conftest import SAMPLE_CORPUS
from tests.test_index import write_doc

TODAY = datetime.now(UTC).date()  # search's own reference day (UTC); passed as today= where a test reads recency
LIGHTHOUSE = (
    "The harbour authority met in March to review the coastal defences. "
    "Marta Olsen, keeper of the northern lighthouse, repainted the tower bright red in the summer of 1987 "
    "after a winter storm had stripped its old paint. "
    "The authority also discussed new mooring fees for fishing boats."
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    out = tmp_path_factory.mktemp("search") / "out"
    write_doc(out, "fleet/lighthouse.md", LIGHTHOUSE, doc_date="2024-05-01", date_source="front matter")
    write_doc(
        out, "notes/budget.md", "The committee cut the travel budget by ten percent; conference trips need approval."
    )
    write_doc(out, "journal/2024-03-05.md", "Walked by the river with Anna and watched a grey heron catch a fish.",
              content_type="journal", doc_date="2024-03-05")  # fmt: skip
    write_doc(out, "journal/2024-03-09.md", "Spent the evening repairing the bicycle chain and the rear brake.",
              content_type="journal", doc_date="2024-03-09")  # fmt: skip
    write_doc(
        out,
        "docs/rust.md",
        "A chapter on Rust ownership, borrowing and lifetimes.",
        chunks=[
            "Ownership: every value in Rust has exactly one owner, and the value is dropped when the owner goes away.",
            "Borrowing: references let code use a value without taking ownership; the borrow checker enforces rules.",
        ],
    )
    write_doc(
        out,
        "books/voyage.txt",
        "A sailor crosses the ocean, survives a storm at sea and reaches a new harbour.",
        chunks=[
            "The sailor prepares the ship and loads barrels of fresh water.",
            "A violent storm at sea breaks the mast; the crew repairs it through the night.",
            "They sight land and sail into the harbour at dawn.",
        ],
        groups=["The voyage: preparations, a storm at sea that breaks the mast, and the arrival in the harbour."],
        content_type="conversation",
    )
    write_doc(out, "bakery/a.md", "The bakery on Elm Street sells sourdough bread every Tuesday morning.")
    write_doc(out, "bakery/b.md", "Every Tuesday morning the Elm Street bakery sells sourdough bread.")
    write_doc(
        out, "bakery/c.md", "The Elm Street bakery also bakes rye loaves and cinnamon rolls for the Saturday market."
    )
    bike = "The city council approved a new protected bicycle lane on Harbour Road."
    write_doc(out, "news/old.md", bike, doc_date=(TODAY - timedelta(days=200)).isoformat(), date_source="front matter")
    write_doc(out, "news/new.md", bike, doc_date=TODAY.isoformat(), date_source="front matter")
    # Dated only by when the file was copied: no recency for it.
    write_doc(out, "news/copied.md", bike + " Cyclists welcomed it.", doc_date=TODAY.isoformat())
    cfg = RunConfig(paths=[], out=out)
    rels = sorted({p.parent.parent.parent.relative_to(out).as_posix() for p in out.rglob("final.md")})
    sync_index(cfg, rels, [])
    return cfg


def test_finds_a_planted_fact_by_a_paraphrase(corpus: RunConfig) -> None:
    hits = search(corpus, "Who painted the beacon tower, and which colour?", k=3)
    assert hits[0].source_path == "fleet/lighthouse.md"
    assert hits[0].rank == 1 and hits[0].score == max(h.score for h in hits)
    assert "red" in hits[0].snippet and "lighthouse" in hits[0].snippet
    assert hits[0].summary_path == corpus.out / "fleet/lighthouse.md/summaries/L3/final.md"
    assert hits[0].summary_path.is_file()
    assert hits[0].doc_date == "2024-05-01" and hits[0].is_final and hits[0].level == 3


def test_search_without_the_vector_store_gives_the_same_ranking(corpus: RunConfig, tmp_path: Path) -> None:
    query = "Who painted the beacon tower, and which colour?"
    before = [(h.node_id, h.score) for h in search(corpus, query, k=5)]
    store = corpus.state_dir / "vectors-batchsum.sqlite3"
    moved = tmp_path / "store-aside"
    moved.mkdir()
    for f in corpus.state_dir.glob("vectors-batchsum.sqlite3*"):
        f.rename(moved / f.name)
    try:
        with pytest.raises(IndexError_, match="incomplete"):
            search(corpus, query, k=5, strict=True)
        after = [(h.node_id, h.score) for h in search(corpus, query, k=5)]  # vectors fetched from Chroma
        assert [i for i, _ in after] == [i for i, _ in before]
        assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=0.02)
    finally:
        for f in corpus.state_dir.glob("vectors-batchsum.sqlite3*"):
            f.unlink()
        for f in moved.iterdir():
            f.rename(store.parent / f.name)


def test_searches_all_levels_of_the_tree(corpus: RunConfig) -> None:
    hits = search(corpus, "the borrow checker and references", k=3)
    assert hits[0].node_id == "docs/rust.md:summary:L1:1"  # the chunk says it best, not the final
    assert hits[0].level == 1 and not hits[0].is_final


def test_every_level_gets_its_candidates_even_when_one_level_floods_the_results(tmp_path: Path) -> None:
    from batchsum.index.dense import ChromaVectors, open_dense
    from batchsum.index.embed import get_static_embedder

    out = tmp_path / "out"
    # 40 chunk summaries all about tides crowd out the few finals in an unfiltered top 30.
    chunks = [f"Tide table {i}: high tide and low tide times at the harbour, tidal range {i} cm." for i in range(40)]
    write_doc(out, "tides.md", "A year of harbour observations.", chunks=chunks, groups=["Tides over the year."])
    write_doc(out, "a.md", "Gardening notes about tomatoes.")
    write_doc(out, "b.md", "A recipe for lemon cake.")
    cfg = RunConfig(paths=[], out=out)
    sync_index(cfg, ["tides.md", "a.md", "b.md"], [])
    emb = get_static_embedder()
    qvec = emb.embed(["high tide times"])[0]
    # Chroma's wide query split by level, and the exact ranking of search's own copy of the vectors.
    for dense in (ChromaVectors(cfg, emb), open_dense(cfg, emb)):
        cands = dense.nearest(qvec, 3, LexFilter())
        levels = [int(i.split(":summary:L")[1][0]) for i in cands]
        assert levels.count(1) == 3 and levels.count(2) == 1 and levels.count(3) == 3
    assert len(search(cfg, "a year of harbour observations", k=1, level="3")) == 1


def test_level_filter(corpus: RunConfig) -> None:
    for level, check in (
        ("1", lambda h: h.level == 1),
        ("2", lambda h: h.level == 2),
        ("3", lambda h: h.level == 3),
        ("final", lambda h: h.is_final),
    ):
        hits = search(corpus, "a storm at sea", k=4, level=level)
        assert hits and all(check(h) for h in hits), level
    assert [h.node_id for h in search(corpus, "a storm at sea", k=4, level="2")] == ["books/voyage.txt:summary:L2:0"]


def test_type_filter(corpus: RunConfig) -> None:
    hits = search(corpus, "bicycle", k=5, content_type="journal")
    assert hits and all(h.content_type == "journal" for h in hits)
    assert hits[0].source_path == "journal/2024-03-09.md"
    assert all(h.content_type == "conversation" for h in search(corpus, "ship", k=5, content_type="conversation"))


def test_path_filter(corpus: RunConfig) -> None:
    hits = search(corpus, "ownership and borrowing", k=5, path_glob="docs/*")
    assert hits and {h.source_path for h in hits} == {"docs/rust.md"}
    assert {h.source_path for h in search(corpus, "heron by the river", k=5, path_glob="journal/")} == {
        "journal/2024-03-05.md"
    }
    assert search(corpus, "sourdough bread", k=5, path_glob="journal/") == []  # nothing relevant there
    assert search(corpus, "ownership", k=5, path_glob="nothing/*") == []


def test_since_filter(corpus: RunConfig) -> None:
    hits = search(corpus, "bicycle", k=10, since=date(2024, 3, 6))
    dates = {h.doc_date for h in hits}
    assert hits and None not in dates and all(d is not None and d >= "2024-03-06" for d in dates)
    assert "journal/2024-03-05.md" not in {h.source_path for h in hits}


def test_recency_prefers_the_recent_of_two_equal_hits(corpus: RunConfig) -> None:
    # Two sources with the same summary: equal relevance, so only the date decides; the copy is dropped.
    hits = search(corpus, "bicycle lane on Harbour Road", k=2, path_glob="news/[no]*", today=TODAY)
    assert [h.source_path for h in hits] == ["news/new.md"]
    new = hits[0]
    assert new.recency == pytest.approx(1.0) and 0.35 <= new.relevance <= new.score <= 1.0
    old = search(corpus, "bicycle lane on Harbour Road", k=1, path_glob="news/old.md", today=TODAY)[0]
    assert old.relevance == pytest.approx(new.relevance, abs=1e-3)
    assert old.recency == pytest.approx(np.exp(-200 / 30), abs=1e-4) and old.score <= new.score


def test_a_copy_date_earns_no_recency(corpus: RunConfig) -> None:
    copied = search(corpus, "bicycle lane on Harbour Road", k=1, path_glob="news/copied.md")[0]
    assert copied.recency == 0.0 and copied.score == copied.relevance and copied.doc_date is None


def test_scores_are_absolute_sorted_and_a_nonsense_query_finds_nothing(corpus: RunConfig) -> None:
    hits = search(corpus, "sourdough bread at the Elm Street bakery on Tuesday", k=5)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and all(0.35 <= h.relevance <= 1.0 for h in hits)
    assert len({" ".join(h.snippet.split()) for h in hits}) == len(hits)  # no passage shown twice
    weak = search(corpus, "bread", k=5)  # one word of the same topic: related, less certain
    assert weak and max(h.relevance for h in weak) <= max(h.relevance for h in hits)
    assert search(corpus, "kubernetes cluster autoscaling yaml", k=5) == []
    res = CliRunner().invoke(main, ["search", "kubernetes cluster autoscaling yaml", "--out", str(corpus.out)])
    assert res.exit_code == 0 and res.output.startswith("No good match")


def test_recency_flips_the_order_when_dates_swap(tmp_path: Path) -> None:
    out = tmp_path / "out"
    text = "The city council approved a new protected bicycle lane on Harbour Road."
    dated = "front matter"
    write_doc(out, "a.md", text, doc_date=TODAY.isoformat(), date_source=dated)
    write_doc(out, "b.md", text, doc_date=(TODAY - timedelta(days=60)).isoformat(), date_source=dated)
    write_doc(out, "c.md", "Notes on growing tomatoes in a greenhouse.", doc_date=TODAY.isoformat(), date_source=dated)
    cfg = RunConfig(paths=[], out=out)
    sync_index(cfg, ["a.md", "b.md", "c.md"], [])
    assert search(cfg, "bicycle lane", k=1, today=TODAY)[0].source_path == "a.md"
    write_doc(out, "a.md", text, doc_date=(TODAY - timedelta(days=60)).isoformat(), date_source=dated)
    write_doc(out, "b.md", text, doc_date=TODAY.isoformat(), date_source=dated)
    sync_index(cfg, ["a.md", "b.md"], [])
    assert search(cfg, "bicycle lane", k=1, today=TODAY)[0].source_path == "b.md"


def test_mmr_drops_a_near_duplicate(corpus: RunConfig) -> None:
    query = "sourdough bread at the Elm Street bakery on Tuesday"
    hits = search(corpus, query, k=5)
    found = {h.source_path: h for h in hits}
    # Only one of the two near-identical notes is shown, though both match best ...
    assert len(set(found) & {"bakery/a.md", "bakery/b.md"}) == 1
    assert hits[0].source_path in {"bakery/a.md", "bakery/b.md"}
    # ... and the different note about the same bakery keeps its place.
    assert "bakery/c.md" in found


def test_mmr_unit() -> None:
    vecs = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    assert mmr(np.array([1.0, 0.95, 0.7]), vecs, 2) == [0, 2]  # the exact copy is dropped
    assert mmr(np.array([1.0, 0.95, 0.7]), vecs, 3) == [0, 2]  # ... even when slots are left
    assert mmr(np.array([1.0, 0.95, 0.7]), vecs, 2, duplicate=1.01) == [0, 1]  # penalty alone is too weak here
    assert mmr(np.array([1.0, 0.9, 0.8]), vecs, 2, duplicate=1.01) == [0, 2]  # but not here
    assert mmr(np.array([1.0, 0.95, 0.7]), vecs, 2, lam=1.0, duplicate=1.01) == [0, 1]
    assert mmr(np.array([]), np.zeros((0, 2)), 3) == []


def test_mmr_cross_group_weight() -> None:
    vecs = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], dtype=np.float32)
    scores = np.array([1.0, 0.8, 0.6])
    # Full MMR: the second hit, on the first one's topic, loses to an unrelated, less relevant one ...
    assert mmr(scores, vecs, 2, groups=["a", "b", "c"]) == [0, 2]
    # ... not when only sources diversify ...
    assert mmr(scores, vecs, 2, groups=["a", "b", "c"], cross_group=0.0) == [0, 1]
    # ... and a second node of the same source is still penalized, a near-copy of any source dropped.
    assert mmr(scores, vecs, 2, groups=["a", "a", "c"], cross_group=0.0) == [0, 2]
    copies = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    assert mmr(scores, copies, 3, groups=["a", "b", "c"], cross_group=0.0) == [0, 2]


def test_files_on_one_subject_do_not_push_each_other_down(tmp_path: Path) -> None:
    out = tmp_path / "out"
    tides = {
        "tides/a.md": "High tide at the harbour came at 6 am on Monday; low tide followed at noon.",
        "tides/b.md": "On Tuesday the harbour saw high tide at 7 am and low tide shortly after one.",
        "tides/c.md": "Wednesday's tides at the harbour: high water at 8 am, low water mid-afternoon.",
        "tides/d.md": "Thursday, harbour tides: high tide near 9 am, low tide around three o'clock.",
    }
    others = {
        "misc/cake.md": "A recipe for lemon cake with times for baking at high heat.",
        "misc/garden.md": "Gardening notes: watering times for tomatoes in the morning.",
        "misc/train.md": "The train timetable lists departure times from the harbour station.",
    }
    for rel, text in (tides | others).items():
        write_doc(out, rel, text)
    cfg = RunConfig(paths=[], out=out)
    sync_index(cfg, [*tides, *others], [])
    # Topic-level MMR put the timetable and the cake recipe above two of the tide notes.
    assert {h.source_path for h in search(cfg, "harbour tides", k=4)} == set(tides)


def test_minmax_not_sigmoid() -> None:
    assert minmax(np.array([2.0, 3.0, 4.0])).tolist() == [0.0, 0.5, 1.0]
    assert minmax(np.array([-9.1, -9.0])).tolist() == [0.0, 1.0]  # sigmoid would squash both near 0
    assert minmax(np.array([0.3, 0.3])).tolist() == [1.0, 1.0]


def test_snippet_centres_on_query_terms() -> None:
    body = "Intro sentence about nothing. " * 10 + "The budget was cut by ten percent. " + "Filler text here. " * 10
    snippet, found = make_snippet(body, query_tokens("what happened to the budget?"))
    assert "budget was cut" in snippet and found == ["budget"] and len(snippet) <= 250
    assert query_tokens("What did the team DECIDE about budgets?") == [["team"], ["decid", "decis"], ["budget"]]


def test_bad_search_arguments(corpus: RunConfig) -> None:
    with pytest.raises(ConfigError, match="empty query"):
        search(corpus, "   ")
    with pytest.raises(ConfigError, match="--level"):
        search(corpus, "x", level="4")
    with pytest.raises(ConfigError, match="--type"):
        search(corpus, "x", content_type="poem")
    with pytest.raises(ConfigError, match="--reranker"):
        search(corpus, "x", reranker=Path("/nonexistent/model.onnx"))


# -- ONNX cross-encoder via --reranker --------------------------------------------------------------------


def make_cross_encoder(folder: Path, boost_words: list[str]) -> Path:
    """A tiny BERT-style cross-encoder: logit = how often the boosted words occur in the second segment."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    tok_src = packaged_model_files()[1]
    shutil.copy(tok_src, folder / "tokenizer.json")
    tok = Tokenizer.from_file(str(tok_src))
    weights = np.zeros((tok.get_vocab_size(), 1), dtype=np.float32)
    for word in boost_words:
        for tid in tok.encode(word, add_special_tokens=False).ids:
            weights[tid] = 1.0
    seq = ["batch", "sequence"]
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["W", "input_ids"], ["g"]),
            helper.make_node("Squeeze", ["g", "axis2"], ["g2"]),
            helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
            helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["g2", "m"], ["a"]),
            helper.make_node("Mul", ["a", "t"], ["b"]),
            helper.make_node("ReduceSum", ["b", "axis1"], ["logits"], keepdims=1),
        ],
        "tiny_cross_encoder",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, seq)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    return path


def test_onnx_cross_encoder_reranks(corpus: RunConfig, tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="the onnx package builds the tiny test model")
    query = "what happened by the river"
    default = search(corpus, query, k=3)
    assert default[0].source_path == "journal/2024-03-05.md"
    model = make_cross_encoder(tmp_path / "ce", ["brake"])
    hits = search(corpus, query, k=3, reranker=model)
    # The cross-encoder only rewards "brake" in the summary (never in the query): its favourite must lead.
    assert hits[0].source_path == "journal/2024-03-09.md"
    assert hits[0].relevance > 0.5 and all(h.relevance <= hits[0].relevance for h in hits)  # a probability
    # The folder form works too.
    folder_hits = search(corpus, query, k=3, reranker=model.parent)
    assert [h.node_id for h in folder_hits] == [h.node_id for h in hits]


def test_cross_encoder_without_tokenizer_is_a_usage_error(corpus: RunConfig, tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="the onnx package builds the tiny test model")
    model = make_cross_encoder(tmp_path / "ce", ["rye"])
    (model.parent / "tokenizer.json").unlink()
    res = CliRunner().invoke(main, ["search", "river", "--out", str(corpus.out), "--reranker", str(model)])
    assert res.exit_code == 2 and "tokenizer.json" in res.output


# -- CLI ----------------------------------------------------------------------------------------------


def test_cli_text_and_json_output(corpus: RunConfig) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["search", "who repainted the lighthouse?", "--out", str(corpus.out), "-k", "2"])
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith("1. ") and "fleet/lighthouse.md" in first and "2024-05-01" in first
    assert "lighthouse/summaries/L3/final.md" not in res.output  # relpath includes the source file name
    assert "fleet/lighthouse.md/summaries/L3/final.md" in res.output
    res = runner.invoke(main, ["search", "lighthouse", "--out", str(corpus.out), "--json", "--level", "final"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data[0]["source_path"] == "fleet/lighthouse.md" and data[0]["rank"] == 1
    for key in ("score", "level", "doc_date", "snippet", "summary_path", "node_id", "content_type"):
        assert key in data[0]


def test_cli_empty_query(corpus: RunConfig) -> None:
    res = CliRunner().invoke(main, ["search", "", "--out", str(corpus.out)])
    assert res.exit_code == 2 and res.output.strip().startswith("Error: empty query")
    assert len(res.output.strip().splitlines()) == 1


def test_cli_since_and_type(corpus: RunConfig) -> None:
    res = CliRunner().invoke(
        main, ["search", "bicycle", "--out", str(corpus.out), "--since", "2024-03-06", "--type", "journal", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert [h["source_path"] for h in json.loads(res.output)] == ["journal/2024-03-09.md"]
    # Filters that leave out every relevant passage say so, and where the best one is without them.
    res = CliRunner().invoke(main, ["search", "bicycle", "--out", str(corpus.out), "--since", "2099-01-01"])
    assert res.exit_code == 0, res.output
    assert "with --since 2099-01-01; without it the best is journal/" in res.output, res.output
    args = ["search", "bicycle", "--out", str(corpus.out), "--since", "2099-01-01", "--type", "journal"]
    res = CliRunner().invoke(main, args)
    assert "with --type journal --since 2099-01-01; without them the best is" in res.output, res.output
    # A month or a year is its first day.
    for since in ("2099", "2099-01"):
        res = CliRunner().invoke(main, ["search", "bicycle", "--out", str(corpus.out), "--since", since])
        assert res.exit_code == 0 and "with --since 2099-01-01;" in res.output, res.output


def test_openai_compatible_embeddings_end_to_end(tmp_path: Path) -> None:
    import threading
    from http.server import ThreadingHTTPServer

    from tests.test_embed import _EmbedHandler

    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbedHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        out = tmp_path / "out"
        write_doc(out, "a.md", "zzzz zzzz zzzz")
        write_doc(out, "b.md", "aaaa bbbb cccc")
        cfg = RunConfig(paths=[], out=out, embed_base_url=url, embed_model="toy-embed")
        assert sync_index(cfg, ["a.md", "b.md"], []).nodes_indexed == 2
        assert search(cfg, "zzzz", k=1)[0].source_path == "a.md"
        # The local model cannot search an index built by another embedder.
        res = CliRunner().invoke(main, ["search", "zzzz", "--out", str(out)])
        assert res.exit_code == 2 and "openai:toy-embed" in res.output and "--rebuild" in res.output
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_sample_corpus_end_to_end(tmp_path: Path) -> None:
    """`batchsum run sample_corpus` indexes as it goes; planted facts are found by paraphrases."""
    if not any(SAMPLE_CORPUS.rglob("*.*")):
        pytest.skip("sample_corpus is empty")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(SAMPLE_CORPUS), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    res = CliRunner().invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 0, res.output  # the run indexed every node it wrote
    cfg = RunConfig(paths=[], out=out)
    crab = search(cfg, "an animal got stuck on a buoy and shaded its solar panel", k=3)
    assert crab[0].source_path == "journal/2026-10-02.md"
    ship = search(cfg, "when will the new dashboard be released?", k=3)
    assert "meetings/2026-10-09-dashboard-design-review.vtt" in {h.source_path for h in ship}
    assert all(h.content_type == "journal" for h in search(cfg, "buoy battery", k=5, content_type="journal"))


def test_hits_without_snippets_are_the_same_hits(corpus: RunConfig) -> None:
    query = "sourdough bread at the Elm Street bakery on Tuesday"
    full, bare = search(corpus, query, k=5), search(corpus, query, k=5, snippets=False)
    assert [(h.node_id, h.score) for h in bare] == [(h.node_id, h.score) for h in full]
    assert all(h.snippet for h in full) and not any(h.snippet or h.terms for h in bare)


def test_a_document_is_ranked_by_all_its_matching_passages(tmp_path: Path) -> None:
    """Documents are ranked by their best passages rolled up, then each shows its best node once: the walk
    that saw herons by the river three times outranks the note that mentions them once (a little more
    strongly), and k hits come from k files although the walk's nodes alone could fill them."""
    out = tmp_path / "out"
    write_doc(out, "walks/river.md", "Three walks along the river, each with a heron.",
              chunks=["A grey heron fished by the river in the morning.",
                      "At dusk the heron stood in the river reeds again.",
                      "The heron flew low over the river towards the weir."])  # fmt: skip
    write_doc(out, "notes/heron.md", "A heron fished by the river: the heron stood by the river bank.")
    write_doc(out, "notes/kingfisher.md", "A kingfisher dived into the river near the bridge.")
    write_doc(out, "notes/garden.md", "A heron visited the garden pond and took two goldfish.")
    cfg = RunConfig(paths=[], out=out)
    sync_index(cfg, ["walks/river.md", "notes/heron.md", "notes/kingfisher.md", "notes/garden.md"], [])
    hits = search(cfg, "heron by the river", k=3)
    assert [h.source_path for h in hits][:2] == ["walks/river.md", "notes/heron.md"]
    assert len({h.source_path for h in hits}) == 3


def _run_journal(root: Path, days: dict[str, str]) -> RunConfig:
    """``batchsum run`` over a journal of the given days (``YYYY-MM-DD`` -> text): a real tree and index."""
    src = root / "src" / "journal"
    src.mkdir(parents=True)
    for day, text in days.items():
        (src / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(root / "src"), "--out", str(root / "out"), "-q"])
    assert res.exit_code == 0, res.output
    return RunConfig(paths=[], out=root / "out")


def test_a_short_entry_holding_every_query_word_outranks_a_long_note_repeating_one(tmp_path: Path) -> None:
    """The long note's five passages each hold "ferry" (and "walk"): rolled up, they had outranked the one-line
    entry holding all four words, which has no further passages to add. A whole match ranks first."""
    weather = [
        "A storm came in from the west. We walked along the harbour wall.",
        "The harbour was full of boats. Another walk by the harbour before supper.",
        "After the storm the garden was a mess. The storm kept us indoors.",
        "We walked along the harbour wall. The storm kept us indoors.",
        "Another walk by the harbour before supper. After the storm the garden was a mess.",
        "A storm came in from the west. The harbour was full of boats.",
    ]
    days = {f"2024-03-{d:02d}": f"I read a novel by the window. {text}" for d, text in enumerate(weather, start=1)}
    days["2024-03-10"] = "Ferry cancelled by the storm; we walked back along the harbour."
    trip = ("We walked to the market and bought bread, cheese and apples. The weather was grey but mild. "
            "The ferry timetable changed again, so the ferry left late. I read a novel on the ferry.")  # fmt: skip
    days["2024-03-20"] = "\n\n".join([trip] * 8)
    cfg = _run_journal(tmp_path, days)
    hits = search(cfg, "ferry storm harbour walk", k=3)
    assert [h.source_path for h in hits][:2] == ["journal/2024-03-10.md", "journal/2024-03-20.md"], [
        (h.source_path, h.score) for h in hits
    ]
    # One word: every note holding it is a whole match, and the note that repeats it leads as before.
    assert search(cfg, "ferry", k=1)[0].source_path == "journal/2024-03-20.md"


def test_a_search_for_periods_shows_the_month_beside_its_year(tmp_path: Path) -> None:
    """The year holds "heron" and "ferry" and leads; March shows the year's sentence about the heron, and the
    repeated-snippet rule had dropped it. A month and its year are two answers to "when?", not copies."""
    cfg = _run_journal(tmp_path, {
        "2024-03-02": "Planted the tomatoes in the greenhouse. The soil was still cold.",
        "2024-03-16": "Long walk along the river with Anna; we saw a grey heron.",
        "2024-04-06": "The ferry was cancelled by the storm, so we stayed at the harbour inn.",
        "2024-04-13": "Baked sourdough bread for the neighbours and cleaned the attic.",
    })  # fmt: skip
    got = CliRunner().invoke(main, ["search", "heron ferry", "--level", "period", "--out", str(cfg.out), "--json"])
    assert got.exit_code == 0, got.output
    hits = json.loads(got.output)
    assert [h["doc_id"] for h in hits] == ["digests/2024.md", "digests/2024/2024-04.md", "digests/2024/2024-03.md"]
    assert hits[2]["snippet"] == hits[0]["snippet"] == "Long walk along the river with Anna; we saw a grey heron."
    # Without --level the entries, where the words were written, are shown, and no digest repeating them.
    assert [h.source_path for h in search(cfg, "heron ferry", k=5)] == [
        "journal/2024-04-06.md",
        "journal/2024-03-16.md",
    ]


def test_a_whole_match_holds_the_function_words_of_its_language(tmp_path: Path) -> None:
    """ "die" is a function word of German, left out of German entries, and a word of English ("the dog died"):
    the German entry holding "Katze" and "Garten" had been no whole match for "die Katze im Garten", and the
    long entry repeating "Katze" had led. A passage holds its own language's function words."""
    cat = "Die Katze der Nachbarn kam wieder zu uns. Ich gab der Katze Milch, und die Katze blieb bis zum Abend."
    cfg = _run_journal(tmp_path, {
        "2024-03-01": "Heute war ich mit Anna im Garten. Das Wetter war kalt, aber sonnig.",
        "2024-03-02": "Wir haben den Garten umgegraben und Tomaten gesät. Abends las ich ein Buch.",
        "2024-03-03": "Im Garten blühen die ersten Krokusse. Ich habe Briefe geschrieben.",
        "2024-03-04": "Der Garten ist nach dem Regen voller Schnecken. Wir kochten Suppe.",
        "2024-03-10": "Die Katze schlief den ganzen Nachmittag im Garten unter dem Apfelbaum.",
        "2024-03-20": "\n\n".join([cat + " Danach las ich in der Küche ein Buch und schrieb meiner Schwester."] * 8),
        "2024-04-01": "The old dog died in the night. We buried him by the fence.",
        "2024-04-02": "Read about how stars die. The library was quiet.",
        "2024-04-03": "The battery died on the way home; we walked the last mile.",
    })  # fmt: skip
    for query in ("Katze Garten", "die Katze im Garten"):
        hits = search(cfg, query, k=3)
        assert [h.source_path for h in hits][:2] == ["journal/2024-03-10.md", "journal/2024-03-20.md"], (
            query, [(h.source_path, h.score) for h in hits]
        )  # fmt: skip


def test_a_page_titled_by_the_query_ranks_before_the_days_that_mention_it(tmp_path: Path) -> None:
    """A note app's page is titled by its file name, its opening heading or its front matter's ``title``. The book's
    own note ("Middlemarch.md") had ranked below a day's entry naming the book three times; a dated file name
    ("2024-03-10.md") is no title."""
    src = tmp_path / "src"
    (src / "books").mkdir(parents=True)
    (src / "books" / "Middlemarch.md").write_text(
        "George Eliot's novel of provincial life. Dorothea marries the dry scholar Casaubon and learns too late "
        "what the marriage costs her.\n", encoding="utf-8")  # fmt: skip
    (src / "people").mkdir()
    (src / "people" / "notes-on-mary.md").write_text(
        "---\ntitle: Mary Garth\n---\nThe best character of the book, practical and funny.\n", encoding="utf-8"
    )
    days = src / "journal"
    days.mkdir()
    for d in range(1, 9):
        (days / f"2024-03-{d:02d}.md").write_text(
            f"Day {d}. Read more Middlemarch after dinner; Middlemarch is slow, but Middlemarch rewards patience, "
            "and Mary Garth is a delight. It rained all day and the garden path flooded again.\n", encoding="utf-8"
        )  # fmt: skip
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(tmp_path / "out"), "-q"])
    assert res.exit_code == 0, res.output
    cfg = RunConfig(paths=[], out=tmp_path / "out")
    assert search(cfg, "Middlemarch", k=3)[0].source_path == "books/Middlemarch.md"
    assert search(cfg, "Mary Garth", k=3)[0].source_path == "people/notes-on-mary.md"
    assert search(cfg, "rained garden path", k=1)[0].source_path.startswith("journal/")


def test_a_markdown_pages_title() -> None:
    """Front matter's title, else the opening heading, else a file name without digits."""
    assert page_title("a/x.md", "---\ntags: [b]\ntitle: 'Mary Garth'\n---\n# Other\ntext") == "Mary Garth"
    rust = "\n## References and Borrowing\n\nThe issue"
    assert page_title("a/ch04-02-borrowing.md", rust) == "References and Borrowing"
    assert page_title("people/saskia-verbeek.md", "She runs a bakery.") == "saskia verbeek"
    assert page_title("journals/scott_1825-11-21.md", "_November_ 21.--I am enamoured of my journal.") == ""


def test_a_named_days_entry_shows_what_the_day_holds_not_its_heading(tmp_path: Path) -> None:
    """The day's words are said by the entry's date: its snippet had been its heading ("Saturday 14 March")
    for "what happened on March 14?" and for the day alone; a word the query adds still picks its sentence."""
    cfg = _run_journal(tmp_path, {
        "2026-03-12": "# Thursday 12 March\n\nThe first reading group session. Eleven people came.",
        "2026-03-14": "# Saturday 14 March\n\nBad news this morning: Onkel Werner died last night in the hospital. "
                      "I cancelled the climbing trip. The funeral will be on Friday in Stralsund.",
        "2026-03-16": "# Monday 16 March\n\nMum asked me to say a few words at the service. No idea what to say.",
    })  # fmt: skip
    for query in ("what happened on March 14?", "2026-03-14", "14 March"):
        hit = search(cfg, query, k=3)[0]
        assert hit.source_path == "journal/2026-03-14.md" and "Werner" in hit.snippet, (query, hit.snippet)
    funeral = search(cfg, "funeral on March 14", k=1)[0]
    assert "funeral" in funeral.snippet.lower(), funeral.snippet


def test_a_note_kept_whole_is_shown_as_its_page_reads(tmp_path: Path) -> None:
    """A short note is its own final: its snippet had shown "[[conference-talk|Lisbon talk]]" and "> [!note]"."""
    cfg = _run_journal(tmp_path, {
        "2026-07-02": "Met Priya about the [[conference-talk|Lisbon talk]] and the demo.\n\n> [!note] Travel\n"
                      "> Flights to Lisbon are booked for the 17th.",
    })  # fmt: skip
    hit = search(cfg, "Lisbon talk flights", k=1)[0]
    assert "[[" not in hit.snippet and "[!" not in hit.snippet, hit.snippet
