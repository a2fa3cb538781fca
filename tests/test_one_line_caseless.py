"""A file's one-line summary in index.md stops at its first whole sentence in a lower-case text too (a
scraped paper's "... diploid organisms. the ashm levels ..."), as the summarizer tells such sentences apart."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

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
