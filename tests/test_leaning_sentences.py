"""A sentence whose subject is a demonstrative followed by its verb ("This made my mum sad.", "This must not be in
future.") points back at a clause, and one that cites a listing or a figure points at what no summary shows: both
lean on what a summary leaves out, so a one-line summary passes them over for a sentence that stands alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.noise import needs_context
from batchsum.cli import main
from batchsum.tree import node_path, read_node

# A journal's day of long sentences and one short leaning one (Scott's 2 January 1828).
JOURNAL = (
    "_January_ 2.--My last entry records my punctuality in keeping up my diary hitherto; my present labour, "
    "commenced notwithstanding the date, upon the 9th January, is to make up my little record betwixt the second "
    "and that latter date. In a word, I have been several days in arrear without rhyme or reason,--days too when "
    "there was so little to write down that the least jotting would have done it. This must not be in future.\n"
)


@pytest.mark.parametrize(
    "sentence",
    [
        "This made my mum kind of sad.",
        "This must not be in future.",
        "That was why we left.",
        "These also made the roads worse.",
        "The vector holds the values as shown in Listing 8-1.",
        "Figure 2 plots the rates.",
    ],
)
def test_a_demonstrative_subject_or_a_listings_number_leans_back(sentence: str) -> None:
    assert needs_context(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "This morning we walked to the lake.",
        "That evening the band played until late.",
        "These results show a clear fall in the rate.",
        "This book was written in a fortnight.",
        "He listed the figures in a table.",
    ],
)
def test_a_demonstrative_before_its_noun_does_not(sentence: str) -> None:
    assert not needs_context(sentence)


def _final(tmp_path: Path, name: str, text: str) -> str:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    _, body = read_node(node_path(out, name, 3, None))
    return body.split("<!--")[0].split("## Facets")[0].strip()


@pytest.mark.parametrize(("name", "text", "leaning"), [("1828-01-02.md", JOURNAL, "This must")])
def test_a_one_line_summary_passes_over_a_sentence_that_leans_back(
    tmp_path: Path, name: str, text: str, leaning: str
) -> None:
    final = _final(tmp_path, name, text)
    assert final, final
    assert leaning not in final, final
