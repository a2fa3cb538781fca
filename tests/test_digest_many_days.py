"""A file of many days' entries (a Day One export dated by its first entry, a month's file "2019-03.md") is
labelled in its month's digest by the days of its entries, not by its date, which is only its first day's:
"**2 January.**" had stood over the 14 January entry's words."""

from __future__ import annotations

from pathlib import Path

import batchsum

DAY_ONE = (
    "Date:\t2 January 2018 at 13:05:00 GMT\nLocation:\tBristol, United Kingdom\n\n"
    "New year, new notebook. I walked up to the suspension bridge with Anna and we made a list of places. "
    "Lisbon is at the top of it, then the lakes in the north, then a week of walking in the Alps.\n\n\n"
    "Date:\t14 January 2018 at 20:11:00 GMT\n\n"
    "Valentine dinner came early at the little Georgian restaurant on Park Street, and I proposed to Anna. "
    "She said yes, laughing and crying at once, and the waiter brought two glasses of cava on the house.\n"
)


def test_a_file_of_many_days_is_labelled_by_its_name(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "Journal.md").write_text(DAY_ONE, encoding="utf-8")
    (src / "2018-01-20.md").write_text("Ran along the harbour in the rain and met Tom at the ferry.\n")
    batchsum.run([src], out=out, content_type="journal", index=False, metrics=False)
    month = (out / "digests" / "2018" / "2018-01.md").read_text(encoding="utf-8")
    # Each of its lines under the day of the entry it comes from, never another entry's day.
    assert "**Journal.**" not in month and month.index("**2 January.**") < month.index("suspension bridge"), month
    assert "cava" not in month or month.index("**14 January.**") < month.index("cava"), month
    assert "**20 January.**" in month, month  # a file of one day keeps its day
