"""A note is dated by the forms Obsidian, Logseq and Jekyll users write its day in: "14-03-2025.md", "March 15,
2025.md", a front matter "created: 2025-07-09T08:15" (a new-user review: all three had been dated by their
mtime, and so filed under no month). A date that may be misread is no date, and none is read outside the
front matter."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.doc_dates import dated, front_matter_date, name_date
from batchsum.tree import read_node
from batchsum.walk import SourceRef, read_document

PROSE = "We walked along the harbour wall and watched the ferries come in. Later I cooked a fish stew.\n"
COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written


def _named(folder: Path, *names: str) -> dict[str, str | None]:
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_text(PROSE)
    return {name: name_date(folder / name) for name in names}


def test_a_file_name_gives_its_day_in_the_forms_notes_are_named(tmp_path: Path) -> None:
    assert _named(
        tmp_path / "v",
        "14-03-2025.md",  # a day over 12 says which number is the day
        "03-14-2025.md",
        "14.03.2025.md",
        "walk_16_03_2025.md",
        "05-05-2025.md",  # the same either way
        "March 15, 2025.md",
        "Saturday, March 15th 2025.md",  # Obsidian's "dddd, MMMM Do YYYY"
        "15 March 2025.md",
        "15th of Mar 2025.md",
        "15-mar-2025.md",
        "scott_1825-11-21.md",  # as before: ISO first
        "2025_03_15.md",
    ) == {
        "14-03-2025.md": "2025-03-14",
        "03-14-2025.md": "2025-03-14",
        "14.03.2025.md": "2025-03-14",
        "walk_16_03_2025.md": "2025-03-16",
        "05-05-2025.md": "2025-05-05",
        "March 15, 2025.md": "2025-03-15",
        "Saturday, March 15th 2025.md": "2025-03-15",
        "15 March 2025.md": "2025-03-15",
        "15th of Mar 2025.md": "2025-03-15",
        "15-mar-2025.md": "2025-03-15",
        "scott_1825-11-21.md": "1825-11-21",
        "2025_03_15.md": "2025-03-15",
    }


def test_a_name_that_may_be_misread_or_names_no_day_gives_no_date(tmp_path: Path) -> None:
    names = _named(
        tmp_path / "v",
        "03-04-2025.md",  # the 3rd of April or the 4th of March: alone, no date
        "Q3-2025-report.md",
        "v2.1.0 notes.md",
        "v1.2.2025 changes.md",
        "May 2025 plans.md",
        "31-02-2025.md",
        "page 3 of 12 2025.md",
    )
    assert names == dict.fromkeys(names)
    day, source = dated(tmp_path / "v" / "03-04-2025.md", PROSE, COPIED)
    assert (day, source) == ("2027-01-15", "mtime")


def test_a_folders_other_names_fix_the_order_of_an_ambiguous_one(tmp_path: Path) -> None:
    europe = _named(tmp_path / "europe", "03-04-2025.md", "14-03-2025.md")
    assert europe["03-04-2025.md"] == "2025-04-03"
    us = _named(tmp_path / "us", "03-04-2025.md", "03-14-2025.md")
    assert us["03-04-2025.md"] == "2025-03-04"
    both = _named(tmp_path / "both", "03-04-2025.md", "14-03-2025.md", "03-14-2025.md")
    assert both["03-04-2025.md"] is None  # they disagree: no order
    # A name added since is seen (the folder's order is kept by the folder's mtime).
    later = tmp_path / "later"
    assert _named(later, "03-04-2025.md")["03-04-2025.md"] is None
    (later / "25-04-2025.md").write_text(PROSE)
    os.utime(later, ns=(COPIED, COPIED))  # a folder's mtime may not move within a clock tick: moved here
    assert name_date(later / "03-04-2025.md") == "2025-04-03"


def test_a_dotted_name_is_day_first_as_dots_are_written(tmp_path: Path) -> None:
    # A German journal's "01.05.2024.md" is the 1st of May: dots are written day first wherever they are
    # written (it had been dated by its mtime, filed under no month); a folder whose names fix the other
    # order still decides.
    alone = _named(tmp_path / "de", "01.05.2024.md", "Tagebuch 03.04.2025.md")
    assert alone == {"01.05.2024.md": "2024-05-01", "Tagebuch 03.04.2025.md": "2025-04-03"}
    assert dated(tmp_path / "de" / "01.05.2024.md", PROSE, COPIED) == ("2024-05-01", "name")
    us = _named(tmp_path / "us", "03.04.2025.md", "03.14.2025.md")
    assert us["03.04.2025.md"] == "2025-03-04"


def test_front_matter_keys_that_say_when_a_note_was_written() -> None:
    def front(*lines: str) -> str:
        return "---\n" + "\n".join(lines) + "\n---\n" + PROSE

    assert front_matter_date(front("created: 2025-07-09T08:15")) == "2025-07-09"
    assert front_matter_date(front("Created: 2025-07-09 08:15:00 +02:00", "tags: [walk]")) == "2025-07-09"
    assert front_matter_date(front("creation date: '2025-07-09T08:15:00Z'")) == "2025-07-09"
    assert front_matter_date(front("created_at: 2025-07-09")) == "2025-07-09"
    assert front_matter_date(front("Date: July 9, 2025")) == "2025-07-09"
    assert front_matter_date(front("date: [[2025-07-09]]")) == "2025-07-09"  # a link to the daily note
    assert front_matter_date(front("created: 2025-07-01", "date: 2025-07-09")) == "2025-07-09"  # "date" first
    # Not a date: a modification, a nested key, a body line.
    assert front_matter_date(front("modified: 2025-07-09")) is None
    assert front_matter_date(front("trip:", "  date: 2025-07-09")) is None
    assert front_matter_date(front("title: Harbour") + "date: 2020-01-01\n") is None
    assert front_matter_date("date: 2020-01-01\n" + PROSE) is None


def test_notes_dated_by_their_name_or_front_matter_go_under_their_month(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Harbour walk.md").write_text("---\ncreated: 2025-07-09T08:15\n---\n" + PROSE)
    (vault / "14-03-2025.md").write_text(PROSE)
    (vault / "March 15, 2025.md").write_text(PROSE)
    (vault / "Ferries.md").write_text("---\ntitle: Ferries\n---\n" + PROSE + "\ndate: 2020-01-01\n")
    read = {p.name: read_document(SourceRef(p, p.name, vault)) for p in vault.iterdir()}
    assert {name: (d.doc_date, d.date_source) for name, d in read.items() if name != "Ferries.md"} == {
        "Harbour walk.md": ("2025-07-09", "front matter"),
        "14-03-2025.md": ("2025-03-14", "name"),
        "March 15, 2025.md": ("2025-03-15", "name"),
    }
    assert read["Ferries.md"].date_source == "mtime"  # a body line "date: ..." dates nothing
    # A day's first-person note named with its day is a journal's, in any of these forms as in ISO.
    assert {name: d.content_type for name, d in read.items() if name[0].isdigit() or name[0] == "M"} == {
        "14-03-2025.md": "journal",
        "March 15, 2025.md": "journal",
    }
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(vault), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(out / "Harbour walk.md" / "summaries" / "L3" / "final.md")
    assert (meta["doc_date"], meta["date_source"]) == ("2025-07-09", "front matter")
    assert (out / "digests" / "2025" / "2025-03.md").is_file() and (out / "digests" / "2025" / "2025-07.md").is_file()
