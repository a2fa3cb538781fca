"""index.md's line for a journal's file reads as its digests do: the entry's own dateline ("_November_ 23.--")
goes, the row's date says the day, and a heading of the next day is that day's plain label, no raw marks."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

ENTRIES = {
    "1825-11-23.md": "_November_ 23.--On comparing notes with Moore, I was confirmed in one or two points about "
    "poor Byron. Will Rose told me that once he fixed his eyes on Byron's feet. Byron saw it and was displeased.",
    # A diary's entry kept in the file of the day before: its heading names the next day.
    "1825-11-24.md": "_November_ 25.--Dined with the Skenes and walked home by the Calton Hill in a thick fog. "
    "Anne is better, and the children are merry. Wrote five pages of the novel before supper.",
}


def test_an_index_line_drops_its_entrys_own_dateline(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    for name, text in ENTRIES.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    res = CliRunner().invoke(
        main, ["run", str(src), "--out", str(out), "--no-index", "--quiet"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    index = (out / "index.md").read_text(encoding="utf-8")
    words = {}
    for name in ENTRIES:
        row = next(line for line in index.splitlines() if line.startswith("- ") and f"(<{name}/" in line)
        words[name] = row.split(") — ", 1)[1]
    for name, line in words.items():
        assert not re.search(r"_\w+_|\.--", line), f"{name}: {line!r}"
    assert words["1825-11-23.md"].startswith("On comparing notes with Moore")
    assert words["1825-11-24.md"].startswith("25 November. Dined with the Skenes")
