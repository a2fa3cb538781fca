"""Short files (level NONE) are kept whole as their own final: in the tree, in the index, incremental."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

SHORT = "Met Anna at the station, she is moving to Lisbon in the spring.\n"
CHAT = [
    {"role": "user", "content": "Did the ferry to Vlieland leave on time?"},
    {"role": "assistant", "content": "It left twenty minutes late because of fog."},
]
PARAGRAPH = (
    "We walked to the harbour before breakfast and counted the boats that had come in overnight. "
    "The fishermen argued about the price of ice, and the harbour master promised a new crane by spring. "
)


def run(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def search(out: Path, query: str, *extra: str) -> list[dict]:
    r = CliRunner().invoke(main, ["search", query, "--out", str(out), "--json", "-k", "5", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def final(out: Path, rel: str) -> tuple[dict, str]:
    return read_node(node_path(out, rel, 3, None))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    c = tmp_path / "corpus"
    (c / "journal").mkdir(parents=True)
    (c / "journal" / "2024-03-01.md").write_text(SHORT)
    (c / "journal" / "2024-03-02.md").write_text("# Day 2\n\n" + PARAGRAPH * 6)
    (c / "chats").mkdir()
    (c / "chats" / "ferry.jsonl").write_text("\n".join(json.dumps(m) for m in CHAT) + "\n")
    (c / "empty.md").write_text("")
    (c / "blank.txt").write_text("  \n\t\n")
    return c


def test_short_file_is_its_own_final_and_searchable(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    d = run(corpus, out)
    rec = {f["relpath"]: f for f in d["files"]}
    assert rec["journal/2024-03-01.md"]["level"] == "NONE"
    assert rec["journal/2024-03-01.md"]["compression_ratio"] == 1.0
    # One node (the kept-whole final, recorded like any node file) and no backend call.
    assert rec["journal/2024-03-01.md"]["nodes"] == 1 and rec["journal/2024-03-01.md"]["llm_calls"] == 0

    meta, body = final(out, "journal/2024-03-01.md")
    assert body == SHORT.strip()
    assert meta["summary_level"] == "NONE" and meta["is_final"] is True and meta["kept_whole"] is True
    assert meta["compression_ratio"] == 1.0 and meta["doc_date"] == "2024-03-01"
    # A chat is kept as rendered for summarizing: one "Role: text" line per message.
    meta, body = final(out, "chats/ferry.jsonl")
    assert meta["kept_whole"] is True and meta["content_type"] == "conversation"
    assert "It left twenty minutes late because of fog." in body and body != (corpus / "chats/ferry.jsonl").read_text()
    # A summarized file's final says nothing of the kind.
    meta, _ = final(out, "journal/2024-03-02.md")
    assert "kept_whole" not in meta and meta["summary_level"] == "BRIEF"

    hits = search(out, "Anna moving to Lisbon", "--level", "final")
    assert hits and hits[0]["doc_id"] == "journal/2024-03-01.md"
    assert search(out, "Anna moving to Lisbon", "--type", "journal")[0]["doc_id"] == "journal/2024-03-01.md"
    typed = search(out, "Anna moving to Lisbon", "--type", "conversation")
    assert all(h["doc_id"] != "journal/2024-03-01.md" for h in typed)


def test_empty_files_stay_out_of_the_tree_and_are_skipped(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    d = run(corpus, out, "--no-index")
    files = {f["relpath"]: f for f in d["files"]}
    for rel in ("empty.md", "blank.txt"):
        assert not (out / rel).exists()
        assert files[rel]["status"] == "skipped" and files[rel]["level"] is None
        assert files[rel]["error"].endswith("nothing to summarize: skipped")  # tests/test_empty_files.py
    assert d["run"]["files_skipped"] == 2 and not d["problems"]
    assert sorted(w.split(": ")[1].split(" (")[0] for w in d["warnings"]) == ["empty file", "no text once read"]


def test_rerun_growth_and_deletion(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    short = corpus / "journal" / "2024-03-01.md"
    path = node_path(out, "journal/2024-03-01.md", 3, None)
    before = path.stat().st_mtime_ns

    again = run(corpus, out)
    assert again["run"]["nodes_computed"] == 0 and again["run"]["files_unchanged"] == 3
    assert path.stat().st_mtime_ns == before  # an unchanged short file costs nothing

    # Grown past the NONE bound: summarized, the kept-whole final goes to history.
    short.write_text(SHORT + PARAGRAPH * 3)
    grown = run(corpus, out)
    rec = {f["relpath"]: f for f in grown["files"]}["journal/2024-03-01.md"]
    assert rec["level"] == "BRIEF" and rec["status"] == "done" and rec["compression_ratio"] < 1.0
    meta, _ = final(out, "journal/2024-03-01.md")
    assert meta["summary_level"] == "BRIEF" and "kept_whole" not in meta
    history = list((out / "journal/2024-03-01.md/summaries/history").glob("*.md"))
    assert len(history) == 1 and read_node(history[0])[0]["kept_whole"] is True

    # Deleted: the tree is soft-deleted and the index forgets it.
    (corpus / "chats" / "ferry.jsonl").unlink()
    gone = run(corpus, out)
    assert {f["relpath"]: f["status"] for f in gone["files"]}["chats/ferry.jsonl"] == "deleted"
    assert not (out / "chats/ferry.jsonl/summaries").exists()
    assert list((out / "chats/ferry.jsonl/deleted").glob("*/summaries/L3/final.md"))
    assert all(h["doc_id"] != "chats/ferry.jsonl" for h in search(out, "ferry late because of fog"))


def test_no_short_restores_summaries_only(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    d = run(corpus, out, "--no-short", "--no-index")
    assert d["levels"]["NONE"] == 2  # the empty files are skipped, not NONE
    assert not (out / "journal/2024-03-01.md").exists()
    assert (out / "journal/2024-03-02.md/summaries/L3/final.md").is_file()

    # Left out, the folder's remembered --no-short stands; --short switches it back on without --rebuild;
    # switching it off again soft-deletes them.
    run(corpus, out, "--no-index")
    assert not (out / "journal/2024-03-01.md").exists()
    run(corpus, out, "--short", "--no-index")
    assert final(out, "journal/2024-03-01.md")[0]["kept_whole"] is True
    run(corpus, out, "--no-short", "--no-index")
    assert not node_path(out, "journal/2024-03-01.md", 3, None).exists()
    assert list((out / "journal/2024-03-01.md/deleted").glob("*/summaries/L3/final.md"))


def test_plan_counts_short_files_without_summaries(corpus: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(tmp_path / "out"), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["levels"] == {"NONE": 2, "BRIEF": 1} and len(d["skipped"]) == 2  # the empty files
    # Only the BRIEF file's final is a summary to make, but a file kept whole is a node too: the run records it.
    assert d["nodes"] == 3


def test_pipeline_file_can_turn_short_files_off(corpus: Path, tmp_path: Path) -> None:
    from batchsum.config import RunConfig
    from batchsum.errors import PipelineError
    from batchsum.pipeline_file import apply_pipeline, load_pipeline

    path = tmp_path / "p.yaml"
    path.write_text(f"corpora: [{corpus}]\nlevels:\n  keep_short: false\n")
    cfg = apply_pipeline(load_pipeline(path), RunConfig(paths=[]), set())
    assert cfg.keep_short is False
    path.write_text(f"corpora: [{corpus}]\nlevels:\n  keep_short: maybe\n")
    with pytest.raises(PipelineError, match=r"'levels\.keep_short' must be true or false"):
        load_pipeline(path)
