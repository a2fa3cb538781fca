"""A week's file whose headings are its days ("## Monday 3 July 2023", "## 2023-07-03", or "## Monday 3 July"
under "# Week of 3 July 2023") is dated by its first day, as a Day One export is by its first entry: it had
been dated by its modification time, so its entries missed their month's and year's digests; and a day
heading without its year takes the year of the heading above it (its lines had carried no date at all)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node

DAYS = (
    "We walked along the river to the old mill and the miller showed us how the new wheel turns. "
    "The children counted the ducks on the pond while the rain held off until the late afternoon. "
    "Mr. Impey told us about his years in India and the long voyage home by the Cape. "
    "His wife plays the Scotch airs better than anyone I have heard in this country. "
    "A letter came from London asking me to edit a book of old correspondence, which I declined. "
    "In the evening I wrote letters to my sister about the garden and the broken fence.",
    "Wrote this morning, but only two pages of the chapter about the harbour and its fishermen. "
    "At noon we drove to the market town, where the roads were bad after the storm of last week. "
    "A box of seeds arrived from Australia, sent by a gardener who once worked on our own land. "
    "It is pleasant to see men thrive and be grateful at the same time. "
    "The doctor called about the headaches and advised less work and more walking. "
    "We only got home at half past seven, tired, and I fell asleep by the fire before supper.",
)
WEEKS = {
    "full-dates": ("# Week of 3 July 2023", "## Monday 3 July 2023", "## Wednesday 5 July 2023"),
    "iso": ("# Week 27", "## 2023-07-03", "## 2023-07-05"),
    "year-above": ("# Week of 3 July 2023", "## Monday 3 July", "## Wednesday 5 July"),
}


def _week(title: str, first: str, second: str) -> str:
    return f"{title}\n\n{first}\n\n{DAYS[0]}\n\n{second}\n\n{DAYS[1]}\n"


@pytest.mark.parametrize("form", sorted(WEEKS))
def test_a_week_of_day_headings_is_dated_by_its_first_day_and_its_lines_by_theirs(tmp_path: Path, form: str) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "week-27.md").write_text(_week(*WEEKS[form]), encoding="utf-8")
    # A paragraph's summary (STANDARD), whose lines carry their days; one sentence (BRIEF) carries none.
    run = [
        "run",
        str(src),
        "--type",
        "journal",
        "--out",
        str(out),
        "--no-index",
        "-q",
        "--thresholds",
        "10,20,3000,15000",
    ]
    got = CliRunner().invoke(main, run)
    assert got.exit_code == 0, got.output
    meta, body = read_node(out / "week-27.md" / "summaries" / "L3" / "final.md")
    assert (meta["doc_date"], meta["date_source"]) == ("2023-07-03", "first entry")
    labels = re.findall(r"^(\d{4}-\d{2}-\d{2}): ", body, re.M)
    assert labels and set(labels) <= {"2023-07-03", "2023-07-05"}, body
    month = (out / "digests" / "2023" / "2023-07.md").read_text(encoding="utf-8")
    assert "week-27.md/summaries/L3/final.md" in month
    assert "Undated" not in (out / "index.md").read_text(encoding="utf-8")
