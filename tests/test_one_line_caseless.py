"""A file's one-line summary in index.md stops at its first whole sentence in a lower-case text too (a
scraped paper's "... diploid organisms. the ashm levels ..."), as the summarizer tells such sentences apart."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.periods import one_line

SENTENCES = [
    "epigenetic modifications are not always identical on different homologous chromosomes in diploid organisms.",
    "the ashm levels of the genes that were covered by more than nine reads were calculated.",
    "allelic imbalance was seen in most of the samples that we examined in this study.",
    "the methylation of the imprinted genes differed between the two parental alleles in every tissue.",
    "we found that the differences were stable across the cell lines grown under the same conditions.",
]


def test_a_lower_case_papers_line_is_its_first_sentence(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    (src / "papers").mkdir(parents=True)
    (src / "papers" / "p1.txt").write_text(" ".join(SENTENCES * 3) + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    index = (out / "index.md").read_text(encoding="utf-8")
    line = re.search(r"^- \[p1\]\(<[^>]+>\) — (.*?) \(document", index, re.M)
    assert line is not None, index
    # One whole sentence: it ends at its stop, with no second lower-case sentence nor a cut ("…") after it.
    assert line.group(1).endswith("."), line.group(1)
    assert line.group(1) in SENTENCES, line.group(1)


def test_a_cased_sentence_going_on_in_lower_case_after_a_period_stays_whole() -> None:
    """Only a caseless text is cut at a period before a lower-case word: in a text with case that word goes on
    its sentence ("20 mins. and then"), as the summarizer reads it."""
    long = (
        "We waited at the station with all our heavy bags for about 20 mins. and then the long-term effects of the "
        "strike on the trains became clear to everyone who had to travel that day."
    )
    text = f"{long} The next train left at noon. We were home by three."
    assert "and then the long-term effects" in one_line(text, language="en")
