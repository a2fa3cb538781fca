"""A snippet keeps TeX math as written: a subscript's "_" between two TeX groups is no italics' mark (real run,
real index), while italics outside the math, and between two prices, still lose their marks."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.search import search
from batchsum.index.snippets import clean_text

FORMULA = r"$\mathcal{L}_{bal} = \alpha \sum_{i=1}^{E} f_i P_i$"
NOTE = (
    "# Reading notes on sparse experts\n\n"
    f"The router is trained with a load-balancing loss {FORMULA} with $\\alpha = 0.01$.\n\n"
    "Capacity matters less than the _routing temperature_, says the appendix.\n"
)


def test_a_snippet_keeps_tex_subscripts(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "moe.md").write_text(NOTE, encoding="utf-8")
    (corpus / "other.md").write_text("The ferry crossed the harbour before the storm.\n", encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    hits = search(IndexConfig(out=out), "load-balancing loss", k=3, warn=False)
    assert hits and hits[0].source_path == "moe.md"
    assert FORMULA in hits[0].snippet, hits[0].snippet


def test_italics_outside_math_and_between_prices_still_go() -> None:
    text = r"Use $x_{1} + y_{2}$ for _both_ parts; it costs $5 _per_ run or $6."
    assert clean_text(text) == r"Use $x_{1} + y_{2}$ for both parts; it costs $5 per run or $6."
