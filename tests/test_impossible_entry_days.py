"""A journal's heading or in-line dateline that names a day no calendar has ("## 2024-02-30", "## 31 April
2024", "Berlin, den 30. Februar 2024.") dates nothing, and its file is warned of once, as a file named
"2024-02-30.md" is (a user's find: the ISO heading had become the file's doc_date, an index.md entry and a
February digest, with no word said; the worded ones had dated the file by its mtime silently)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node

COPIED = 1_800_000_000  # an mtime in 2027: when the file was copied, not written
BODY = "Today I fixed the gauge. Maria called me about it.\n"
CALENDAR = "no day of the calendar"


def _run(files: dict[str, str], tmp_path: Path) -> tuple[dict, Path]:
    src, out = tmp_path / "src", tmp_path / "out"
    for rel, text in files.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (COPIED, COPIED))
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-metrics", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), out


def _dating(out: Path, rel: str) -> tuple[str, str]:
    meta, _ = read_node(out / rel / "summaries" / "L3" / "final.md")
    return str(meta["doc_date"]), str(meta["date_source"])


def _warned(data: dict, rel: str) -> list[str]:
    return [w for w in data["warnings"] if CALENDAR in w and rel in w]


def test_an_iso_heading_on_no_day_dates_nothing_and_is_warned_of(tmp_path: Path) -> None:
    data, out = _run(
        {
            "journal/headings.md": f"## 2024-02-30\n{BODY}",
            "journal/leap.md": f"## 2024-02-29\n{BODY}",  # a leap day is a day
            "journal/later.md": f"## Friday, 2024-02-30\n{BODY}\n## 2024-03-02\nThen the pump.\n",
        },
        tmp_path,
    )
    doc_date, source = _dating(out, "journal/headings.md")
    assert source == "mtime" and not doc_date.startswith("2024-02")
    [said] = _warned(data, "headings.md")
    assert "2024-02-30" in said and "mtime" in said
    # The heading that names a real day still dates its file.
    assert _dating(out, "journal/later.md") == ("2024-03-02", "first entry")
    assert len(_warned(data, "later.md")) == 1
    assert _dating(out, "journal/leap.md") == ("2024-02-29", "first entry") and not _warned(data, "leap.md")
    # Neither index.md nor a digest files it under a day no calendar has.
    assert "2024-02-30" not in (out / "index.md").read_text(encoding="utf-8")
    february = out / "digests" / "2024" / "2024-02.md"
    assert not february.exists() or "headings" not in february.read_text(encoding="utf-8")


def test_a_worded_heading_on_no_day_is_warned_of_in_each_language(tmp_path: Path) -> None:
    files = {
        "journal/april.md": f"## 31 April 2024\n{BODY}",
        "journal/februar.md": "## 30. Februar 2024\nHeute habe ich die Pumpe repariert. Maria rief mich an.\n",
        "journal/carried.md": f"# 2024\n\n## February 30\n{BODY}",  # the year from the heading above
        "journal/slashed.md": f"## 2024/02/30\n{BODY}",
    }
    data, out = _run(files, tmp_path)
    for rel in files:
        name = rel.split("/")[-1]
        assert _dating(out, rel)[1] == "mtime", rel
        said = _warned(data, name)
        assert len(said) == 1 and "mtime" in said[0], (rel, data["warnings"])
    assert "31 April 2024" in _warned(data, "april.md")[0] and "2024-04-31" in _warned(data, "april.md")[0]
    assert "30. Februar 2024" in _warned(data, "februar.md")[0]


def test_an_in_line_dateline_on_no_day_dates_nothing_and_is_warned_of(tmp_path: Path) -> None:
    data, out = _run(
        {
            "journal/diary.md": f"April 31, 2024.--{BODY}\nMay 2.--We went out to the lake.\n",
            "journal/brief.md": "Berlin, den 30. Februar 2024.\n\nHeute habe ich die Pumpe repariert.\n",
        },
        tmp_path,
    )
    # The impossible entry dates nothing; the next one, its month and year carried, does.
    assert _dating(out, "journal/diary.md") == ("2024-05-02", "first entry")
    [said] = _warned(data, "diary.md")
    assert "April 31, 2024" in said and "2024-04-31" in said
    assert _dating(out, "journal/brief.md")[1] == "mtime"
    assert len(_warned(data, "brief.md")) == 1


def test_an_org_journal_day_heading_on_no_day_is_warned_of(tmp_path: Path) -> None:
    data, out = _run(
        {
            "journal/numeric.org": "* Friday, 02/30/24\nToday I fixed the gauge.\n",  # org-journal's "%A, %x"
            "journal/iso.org": "* Friday, 2024-02-30\nToday I fixed the gauge.\n",
            "journal/fine.org": "* Thursday, 02/29/24\nToday I fixed the gauge.\n",
        },
        tmp_path,
    )
    for name in ("numeric.org", "iso.org"):
        assert _dating(out, f"journal/{name}")[1] == "mtime", name
        said = _warned(data, name)
        assert len(said) == 1 and "2024-02-30" in said[0], (name, data["warnings"])
    assert _dating(out, "journal/fine.org") == ("2024-02-29", "first entry") and not _warned(data, "fine.org")
