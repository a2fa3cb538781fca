"""End to end: `batchsum run` on sample_corpus produces the expected tree for every level."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.summary_files import summary_text
from batchsum.text import parse_speaker_line
from batchsum.tokens import count_tokens
from batchsum.tree import iter_tree, read_node
from tests.conftest import SAMPLE_CORPUS

REQUIRED = {
    "id",
    "doc_id",
    "source_path",
    "source_sha256",
    "role",
    "level",
    "is_final",
    "summary_level",
    "input_tokens",
    "output_tokens",
    "compression_ratio",
    "content_type",
    "backend",
    "created_at",
}


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    base = tmp_path_factory.mktemp("e2e")
    corpus = base / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    out = base / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    assert res.exit_code == 0, res.output
    return corpus, out, json.loads(res.stdout)


def test_every_level_is_covered(sample_run: tuple[Path, Path, dict]) -> None:
    _, _, summary = sample_run
    assert set(summary["levels"]) == {"NONE", "BRIEF", "STANDARD", "DETAILED", "HIERARCHICAL"}
    assert summary["exit_code"] == 0
    assert summary["run"]["files_failed"] == 0


def test_tree_shape_per_level(sample_run: tuple[Path, Path, dict]) -> None:
    _, out, summary = sample_run
    for f in summary["files"]:
        sdir = out / f["relpath"] / "summaries"
        level = f["level"]
        if level == "NONE":  # kept whole: the final is the source itself, nothing else
            assert [p.relative_to(sdir).as_posix() for p in sdir.rglob("*.md")] == ["L3/final.md"]
            assert read_node(sdir / "L3" / "final.md")[0]["kept_whole"] is True
            continue
        assert (sdir / "L3" / "final.md").is_file()
        l1 = sorted((sdir / "L1").glob("*.md")) if (sdir / "L1").exists() else []
        l2 = sorted((sdir / "L2").glob("*.md")) if (sdir / "L2").exists() else []
        if level in ("BRIEF", "STANDARD"):
            assert not l1 and not l2
        elif level == "DETAILED":
            assert len(l1) == f["chunks"] >= 2 and not l2
        else:
            assert len(l1) == f["chunks"] and len(l2) == -(-f["chunks"] // 5)


def test_front_matter_and_budgets(sample_run: tuple[Path, Path, dict]) -> None:
    corpus, out, _ = sample_run
    nodes = list(iter_tree(out))
    assert nodes
    for n in nodes:
        assert set(n.meta) >= REQUIRED, n.path
        assert n.meta["id"].startswith(n.meta["doc_id"] + ":summary:L")
        assert 0.0 <= n.meta["compression_ratio"] <= 1.0
        assert n.meta["output_tokens"] == count_tokens(n.body) or n.meta.get("facets") or n.meta.get("facets_source")
        assert n.meta["output_tokens"] < n.meta["input_tokens"] or n.meta.get("kept_whole")  # a summary is shorter
        if n.meta["level"] == 3:
            src = corpus / n.meta["source_path"]
            assert n.meta["output_tokens"] < n.meta["source_tokens"] or n.meta.get("kept_whole")
            assert src.exists()


def test_brief_is_one_sentence(sample_run: tuple[Path, Path, dict]) -> None:
    _, out, _ = sample_run
    briefs = [n for n in iter_tree(out) if n.meta["summary_level"] == "BRIEF"]
    assert briefs
    for n in briefs:
        # One line of summary (a conversation's: one per turn, each naming its speaker); extracted
        # facets of a chat may follow as their own sections.
        lines = summary_text(n.body).splitlines()
        if n.meta["content_type"] == "conversation":
            assert lines and all(parse_speaker_line(ln)[0] for ln in lines), lines
        else:
            assert len(lines) == 1, lines


def test_ignore_file_hidden_and_types(sample_run: tuple[Path, Path, dict]) -> None:
    _, out, summary = sample_run
    rels = {f["relpath"] for f in summary["files"]}
    assert not any(r.startswith("drafts/") for r in rels)
    assert not any("/." in r or r.startswith(".") for r in rels)
    by_ext = {Path(r).suffix: r for r in rels}
    for ext in (".jsonl", ".vtt"):
        meta, body = read_node(out / by_ext[ext] / "summaries" / "L3" / "final.md")
        assert meta["content_type"] == "conversation"
        assert "WEBVTT" not in body and '"role"' not in body
    # A chat's system message instructs the model; the conversation is the user's and the assistant's.
    meta, body = read_node(out / by_ext[".jsonl"] / "summaries" / "L3" / "final.md")
    assert "System" not in meta["participants"] and "System:" not in body
    assert "harbor sensor network" not in body  # in the system message only


def test_deterministic_and_rerun_does_nothing(sample_run: tuple[Path, Path, dict], tmp_path: Path) -> None:
    corpus, out, _ = sample_run
    other = tmp_path / "out2"
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(other), "--no-index", "--no-metrics", "-q"])
    assert r.exit_code == 0, r.output
    a = {n.meta["id"]: n.body for n in iter_tree(out)}
    b = {n.meta["id"]: n.body for n in iter_tree(other)}
    assert a == b
    again = CliRunner().invoke(main, ["run", str(corpus), "--out", str(other), "--no-index", "--no-metrics", "--json"])
    data = json.loads(again.stdout)
    assert data["run"]["files_done"] == 0
    assert data["run"]["nodes_computed"] == 0
    assert data["run"]["files_unchanged"] == data["run"]["files_total"]


def test_final_words_caps_a_hierarchical_final_and_its_report_target(tmp_path: Path) -> None:
    import duckdb

    from batchsum.backends.budget import FINAL_WORDS
    from batchsum.config import RunConfig
    from batchsum.navigation import summary_only
    from batchsum.tokens import get_tokenizer

    assert RunConfig(paths=[]).final_words == FINAL_WORDS
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md", corpus / "logbook.md")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--final-words", "120"])
    assert res.exit_code == 0, res.output
    meta, body = read_node(out / "logbook.md" / "summaries" / "L3" / "final.md")
    assert meta["summary_level"] == "HIERARCHICAL"
    final = summary_text(summary_only(body))
    # Within the cap, and using it: at least 75 % of its 156 tokens (a logbook's numbers and dates make
    # few words of many tokens, so a word floor would depend on which sentences the chunking yields; a
    # long text's nodes prefer long sentences, so what is left when none fits can be a line of ~35 tokens).
    assert len(final.split()) <= 120 and get_tokenizer().count(final) >= 0.75 * 156
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT target_tokens FROM files").fetchall() == [(156,)]  # 120 words * 1.3
    finally:
        con.close()
    for _ in range(2):  # the first run, then an unchanged re-run that inherits its planned length
        report = CliRunner().invoke(main, ["report", "--out", str(out), "--json"])
        assert report.exit_code == 0, report.output
        level = next(g for g in json.loads(report.stdout)["by_level"] if g["level"] == "HIERARCHICAL")
        assert 0.75 <= level["vs_target"] <= 1.1  # against the cap, not the level's uncapped target (~0.1)
        args = ["run", str(corpus), "--out", str(out), "--no-index", "--final-words", "120"]
        assert CliRunner().invoke(main, args).exit_code == 0


def test_another_final_words_redoes_the_finals_it_shapes(tmp_path: Path) -> None:
    """The cap shapes the extractive final, so a re-run with another cap must not keep the old finals."""
    from batchsum.navigation import summary_only

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md", corpus / "logbook.md")
    out = tmp_path / "out"
    final_path = out / "logbook.md" / "summaries" / "L3" / "final.md"
    words = []
    for cap in ("120", "60", "60"):
        args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--final-words", cap, "--json"]
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0, res.output
        words.append(
            (
                json.loads(res.stdout)["run"]["files_done"],
                len(summary_text(summary_only(read_node(final_path)[1])).split()),
            )
        )
    assert words[0][0] == 1 and 60 < words[0][1] <= 120
    assert words[1][0] == 1 and words[1][1] <= 60  # redone under the new cap
    assert words[2] == (0, words[1][1])  # and then unchanged again


def _summary_lines(path: Path) -> list[str]:
    from batchsum.navigation import summary_only

    body = summary_text(summary_only(read_node(path)[1]))
    return [ln for ln in body.split("\n") if ln.strip()]


def test_a_chunk_cut_inside_a_turn_keeps_that_turns_speaker(tmp_path: Path) -> None:
    """Long turns are cut between chunks: every line of every chunk summary and of the final still
    names its speaker (the chunk opens inside someone's turn, and that someone said it)."""
    topics = ["the budget", "the harbour crane", "the winter schedule", "the new ferry", "the survey"]
    turns = []
    for i in range(12):
        speaker = ("Luis", "Maria", "Ana")[i % 3]
        said = " ".join(
            f"Point {j + 1} on {topics[(i + j) % len(topics)]} is that we should check the figures for "
            f"{topics[(i + 2 * j) % len(topics)]} again before the {('spring', 'summer', 'autumn')[j % 3]} meeting."
            for j in range(14)
        )
        turns.append(f"{speaker}: {said}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "meeting.txt").write_text("\n".join(turns) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--chunk-size", "300",
            "--chunk-overlap", "20"]  # fmt: skip
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    chunks = sorted((out / "meeting.txt" / "summaries" / "L1").glob("chunk_*.md"))
    assert len(chunks) >= 4  # 12 turns of ~14 sentences in 300-token chunks: most start inside a turn
    for path in [*chunks, out / "meeting.txt" / "summaries" / "L3" / "final.md"]:
        lines = _summary_lines(path)
        assert lines and all(parse_speaker_line(ln)[0] in {"Luis", "Maria", "Ana"} for ln in lines), (path, lines)


def test_an_agent_sessions_final_holds_no_file_viewer_lines(tmp_path: Path) -> None:
    """A file viewer's numbered lines and the agent shell's status lines, quoted in a user turn (an
    agent's demonstration, an observation), are code, not summary sentences."""
    listing = "\n".join(f"{1490 + i}:    :param keys{i}: A field class or instance for dict keys." for i in range(12))
    session = (
        "### user\n\nWe're solving an issue in the repository: the TimeDelta field rounds 345 milliseconds "
        "down to 344 when it serializes them. Here is how the file looks.\n\n"
        f"[File: /repo/src/fields.py (1997 lines total)]\n{listing}\n(517 more lines below)\n"
        "(Open file: /repo/src/fields.py)\n(Current directory: /repo)\nbash-$\n\n"
        "### assistant\n\nThe rounding happens in the serialize method, so let's open the fields file at "
        "the TimeDelta class and look at how the value is divided.\n\n```\nopen src/fields.py 1474\n```\n\n"
        f"### user\n\n{listing}\n(Open file: /repo/src/fields.py)\n(Current directory: /repo)\nbash-$\n\n"
        "### assistant\n\nThe value is divided and then truncated by int, which drops the last millisecond. "
        "We should round the quotient to the nearest integer instead of truncating it.\n\n```\nsubmit\n```\n"
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "session.md").write_text(session * 3, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics"])
    assert res.exit_code == 0, res.output
    finals = list(out.rglob("final.md"))
    assert len(finals) == 1
    lines = _summary_lines(finals[0])
    assert lines and all(parse_speaker_line(ln)[0] for ln in lines), lines
    text = "\n".join(lines)
    assert "1491:" not in text and ":param keys" not in text and "Open file" not in text and "bash-$" not in text
    assert "round" in text  # the prose is still there
