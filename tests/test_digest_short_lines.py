"""A month's digest quotes every entry when the budget holds a sentence of each, counting an entry's whole
sentence too short to be a candidate ("Lunch: soup with Ana.") when its only candidate is too long."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

ENTRIES = {
    "2023-03-20": "Took the kids to the zoo and we watched the penguins being fed at noon. "
    "The elephants were asleep all afternoon in the shade.",
    "2023-03-22": "Lunch: soup with Ana. Then we walked to the harbour and watched the old ferries for an hour. "
    "Dinner: pasta.",
    "2023-03-24": "Dad was taken to hospital with a heart attack. "
    "The surgeon says the bypass went well and he can come home next week.",
}


def test_a_short_line_stands_in_for_its_entry(tmp_path: Path) -> None:
    src, out = tmp_path / "j", tmp_path / "out"
    src.mkdir()
    for day, text in ENTRIES.items():
        (src / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    args = ["run", str(src), "--type", "journal", "--out", str(out), "--month-words", "25", "--quiet"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    page = (out / "digests" / "2023" / "2023-03.md").read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0]
    days = re.findall(r"\*\*(\d+) March\.\*\*", page)
    assert days == ["20", "22", "24"], page  # each entry quoted once
    body = re.sub(r"\*\*[^*]+\*\*", " ", page.split("\n# March 2023\n", 1)[1])
    assert len(body.split()) <= 25, page  # within the month's budget
    assert page.count("Dinner") == 0, page  # a stand-in covers its entry once, no second pick
