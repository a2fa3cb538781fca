"""A "YYYY-MM-DD: " line whose day no calendar has ("2023-02-29: ", a typo in a note) is no day label: a month
digest labels no such day and keeps the line as text of the entry it is in. Through the CLI."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

MONTH = """# July 2024

## July 2, 2024

We walked along the lake shore in the morning and counted the herons near the old pier.

## July 20, 2024

The rain kept us inside all day, so we sorted the photos from the trip and planned the next one.

2023-02-29: a typo in a note about the lake trip.
"""
DAY_LABEL = re.compile(r"\*\*(\d{1,2}) ([A-Z][a-z]+)\.\*\*")  # a digest's "**20 July.**"


def test_an_impossible_day_is_no_label_in_a_month_digest(tmp_path: Path) -> None:
    corpus = tmp_path / "j2"
    corpus.mkdir()
    (corpus / "2024-07.md").write_text(MONTH, encoding="utf-8")
    out = tmp_path / "o2"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "-q", "--type", "journal"])
    assert res.exit_code == 0, res.output
    page = (out / "digests" / "2024" / "2024-07.md").read_text(encoding="utf-8")
    body = page.split("<!-- batchsum:links -->")[0]
    labels = DAY_LABEL.findall(body)
    assert labels and all(month == "July" for _, month in labels), labels  # every label is a day of the month
    assert "a typo in a note about the lake trip" in body  # the line is kept, as text
    # ... of the entry it is in: after July 20's label, not a day of its own.
    last = list(DAY_LABEL.finditer(body))[-1]
    assert last.group(1) == "20" and "lake trip" in body[last.end() :]
