"""A hit whose words matched in its source, changed since it was indexed, says so instead of showing a sentence of
its summary that holds none of them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main

TOPICS = ["tomatoes", "compost", "the hedge", "the shed roof", "seed trays", "the pond pump", "bean poles", "mulch"]


def _paper() -> str:
    lines = [
        f"In week {i} the garden team worked on {TOPICS[i % len(TOPICS)]} and on {TOPICS[(i * 3 + 1) % len(TOPICS)]}; "
        f"the garden budget for {TOPICS[(i * 5 + 2) % len(TOPICS)]} rose by {i % 7 + 2} percent, said the garden team."
        for i in range(300)
    ]
    lines[157] = "Ok, fever."
    return "\n\n".join(lines) + "\n"


def _summarized(tmp_path: Path) -> tuple[Path, Path]:
    """The paper summarized and indexed: its path and the output folder."""
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    paper = corpus / "garden.md"
    paper.write_text(_paper(), encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--type", "document", "--quiet"])
    assert res.exit_code == 0, res.output
    return paper, out


def test_a_hit_whose_source_changed_says_so_rather_than_show_an_unrelated_summary(tmp_path: Path) -> None:
    paper, out = _summarized(tmp_path)
    # The summaries leave the word out: only the source held it (before the change, its snippet showed it there).
    assert not any("fever" in p.read_text(encoding="utf-8") for p in (out / "garden.md").rglob("*.md"))
    paper.write_text(_paper() + "\nAn added line.\n", encoding="utf-8")
    hits = batchsum.search(out, "fever", k=1)
    assert hits and hits[0].snippet_from == "source-changed" and hits[0].snippet == ""
    listing = CliRunner().invoke(main, ["search", "fever", "-o", str(out), "-k", "1"])
    assert "(source changed since it was indexed; the next run updates it)" in listing.output, listing.output
    assert (
        json.loads(CliRunner().invoke(main, ["search", "fever", "-o", str(out), "--json"]).output)[0]["snippet"] == ""
    )


def test_a_source_edited_between_two_searches_of_one_process_says_so_on_the_second(tmp_path: Path) -> None:
    # serve and a library user search again in one process: a source read for the first search's snippet
    # must not be shown again once the file changed (its text had been kept, keyed on its old hash only).
    paper, out = _summarized(tmp_path)
    before = batchsum.search(out, "fever", k=1)
    assert before and before[0].snippet_from == "source" and "fever" in before[0].snippet.lower()
    paper.write_text(_paper() + "\nAn added line.\n", encoding="utf-8")
    after = batchsum.search(out, "fever", k=1)
    assert after and after[0].snippet_from == "source-changed" and after[0].snippet == ""
