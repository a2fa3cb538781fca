"""A month's file of several dated entries is read whole by its month's digest when the month's budget holds
it, each entry under its own day: its short final (one line) had dropped an entry the digest had room for."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

ENTRIES = {
    "3 May": "Started the new project at work, a migration of the billing system. "
    "The kickoff meeting went well and the team seems motivated.",
    "12 May": "My sister Clara had her baby, a girl named Lina, at 4 in the morning. "
    "Everyone is healthy and I drove up to see them in the evening.",
    "27 May": "Ran the city half marathon in 1 hour 58 minutes, my first time under two hours. "
    "My knees hurt badly afterwards.",
}
MONTH = "# May 2023\n\n" + "\n\n".join(f"### {day}\n{text}" for day, text in ENTRIES.items()) + "\n"


def test_each_entry_of_a_month_file_is_quoted_under_its_day(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    (src / "2023-05.md").write_text(MONTH, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    page = (out / "digests" / "2023" / "2023-05.md").read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0]
    assert re.findall(r"\*\*(\d+) May\.\*\*", page) == ["3", "12", "27"], page
    # Each entry's opening sentence, its news, is quoted after its own day's label.
    for day, news in (("3", "Started the new project"), ("12", "My sister Clara"), ("27", "Ran the city half")):
        assert re.search(rf"\*\*{day} May\.\*\* {news}", page), page
    assert "knees" not in page or "half marathon" in page, page  # "afterwards" never without its marathon
