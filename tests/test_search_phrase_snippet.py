"""A document found holding the query as a phrase shows the phrase in its snippet: its best passage holds the
words only apart ("expression of the genes"), so the snippet is the sentence holding them together, or, when
only a heading does, that heading and the first sentence under it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main

APART = (
    "The expression of the genes in the roots rose after the rain, and the expression of the genes in the "
    "stems fell; we counted the genes whose expression changed in each week of the trial."
)


def _page() -> str:
    parts = [f"## Week {i}\n\n{APART} Week {i} was dry." for i in range(12)]
    parts.insert(6, "## Gene expression\n\nWe sampled the leaves at dawn on each day of the trial.")
    return "# Field trial\n\n" + "\n\n".join(parts) + "\n"


def test_a_phrase_held_only_by_a_heading_shows_the_heading_and_the_sentence_under_it(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "trial.md").write_text(_page(), encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--type", "document", "--quiet"])
    assert res.exit_code == 0, res.output
    hits = batchsum.search(out, '"gene expression"', k=1)
    assert hits, "no hit"
    assert hits[0].snippet == "Gene expression — We sampled the leaves at dawn on each day of the trial.", hits[0]
    assert {t.lower() for t in hits[0].terms} == {"gene", "expression"}
