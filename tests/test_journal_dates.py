"""A Day One export (each entry under a "Date:<TAB>2 January 2018 at 13:05:00 GMT" line, then "Location:" and
"Weather:" lines) is a diary dated in-line, and is dated by its entries; a month file ("2019-03.md") is
dated to its month and a "2016-3-5.txt" to its day (a reviewer's finds: all three had been dated by their
mtime, filed under "Undated", and the export's header lines read as its sentences)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.datelines import dateline
from batchsum.doc_dates import dated, entries_date, name_date, name_month
from batchsum.tree import read_node

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

DAY_ONE = """Date:\t2 January 2018 at 13:05:00 GMT
Location:\tBristol, United Kingdom
Weather:\t9°C Cloudy

New year, new notebook. I walked up to the suspension bridge with Anna and we made a list of places.

![](photos/e7a7a50.jpeg)


Date:\t14 February 2018 at 20:11:00 GMT
Location:\tBristol, United Kingdom
Weather:\t4°C Rain

Valentine dinner at the little Georgian restaurant on Park Street. I proposed to Anna over dessert.


Date:\t9 May 2018 at 12:19:00 GMT
Location:\tLisbon, Portugal
Weather:\t22°C Sunny

First morning in Lisbon. We took tram 28 up to the castle and ate custard tarts in Belem.
"""


def test_a_day_one_entry_header_is_its_dateline_in_both_export_styles() -> None:
    for line, day in (
        ("Date:\t2 January 2018 at 13:05:00 GMT", (2, 1, 2018)),
        ("Date: January 2, 2018 at 1:05 PM", (2, 1, 2018)),
        ("Date:\tWednesday, September 12, 2018 at 1:05:00 PM GMT+01:00", (12, 9, 2018)),
    ):
        found = dateline(line)
        assert found is not None and (found.day, found.month, found.year) == day and found.alone, line
    # Not a date: the entry's other fields, an e-mail's header (its reader dates it), a date in a sentence.
    for line in ("Location:\tBristol, United Kingdom", "Date: Mon, 2 Jan 2018 13:05:00 +0000", "We met on 2 May 2018."):
        assert dateline(line) is None, line


def test_a_day_one_export_dates_its_lines_by_entry_and_its_header_is_never_a_sentence() -> None:
    units = units_from_text(DAY_ONE, "journal")
    days = {u.text.split()[0]: u.date for u in units}
    assert days["New"] == "2018-01-02" and days["Valentine"] == "2018-02-14" and days["First"] == "2018-05-09"
    assert not [u.text for u in units if any(f in u.text for f in ("Date:", "Location:", "Weather:", "GMT"))]


def test_a_file_that_opens_with_a_dated_entry_is_dated_by_its_earliest_entry(tmp_path: Path) -> None:
    assert dated(tmp_path / "Journal.md", DAY_ONE, COPIED) == ("2018-01-02", "first entry")
    # Exported newest first: still the earliest.
    newest_first = "\n\n".join(reversed(DAY_ONE.split("\n\n\n")))
    assert entries_date(newest_first) == "2018-01-02"
    # Not dated by a day it names further on, nor by an opening day without its year.
    book = "A book about walks.\n\n" + DAY_ONE
    assert dated(tmp_path / "book.md", book, COPIED)[1] == "mtime"
    no_year = "June 18th.--A walk in North Salem.\n\nJune 19th.--Rain all day.\n"
    assert entries_date(no_year) is None


def test_a_month_file_is_dated_to_its_month_and_a_day_without_zeros_to_its_day(tmp_path: Path) -> None:
    assert {n: name_date(tmp_path / n) for n in ("2019-03.md", "2019-03 March.md", "2019_03.txt", "2016-3-5.txt")} == {
        "2019-03.md": "2019-03-01",
        "2019-03 March.md": "2019-03-01",
        "2019_03.txt": "2019-03-01",
        "2016-3-5.txt": "2016-03-05",
    }
    assert name_month(tmp_path / "2019-03 March.md") == "2019-03"
    # No month: a range of years, a version, a number that is no year, a month 13, a dotted version, no day.
    for name in ("2019-2020 budget.md", "v2019-03.md", "1024-12.md", "notes 2019-13.md", "PyCharm 2016.3.5.md"):
        assert name_date(tmp_path / name) is None, name
    assert name_date(tmp_path / "2016-2-30.txt") is None
    assert name_month(tmp_path / "2019-03-15.md") is None and name_date(tmp_path / "2019-03-15.md") == "2019-03-15"


def test_a_month_file_lands_in_its_month_digest(tmp_path: Path) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    (src / "2019-03.md").write_text(
        "# March 2019\n\n### 2 March\n\nMy uncle died this morning at the hospice. The family stayed by his side.\n\n"
        "### 12 March\n\nDad had his knee surgery at St Mary's today. He was joking with the nurses by evening.\n"
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--type", "journal", "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(out / "2019-03.md" / "summaries" / "L3" / "final.md")
    assert (meta["doc_date"], meta["date_source"]) == ("2019-03-01", "name")
    assert (out / "digests" / "2019" / "2019-03.md").is_file()
