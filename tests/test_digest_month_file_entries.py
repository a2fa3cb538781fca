"""A month's file of several dated entries is read whole by its month's digest when the month's budget holds
it, each entry under its own day: its short final (one line) had dropped an entry the digest had room for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
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


MARCH = {
    "2 March": "Anna and I talked about moving to Leipzig over coffee in the park. She thinks the timing is right "
    "because her company opens an office there in spring. We walked home the long way along the river and "
    "counted the herons on the weir, eleven of them, more than last year.",
    "9 March": "The dentist says the old crown has to be replaced next month. It will cost 850 euros, which is "
    "more than the insurance pays. I booked the appointment for the twentieth and bought a softer toothbrush "
    "on the way back through the market.",
    "16 March": "Thomas and I hiked 22 kilometres in the Harz and slept in the hut on the Brocken. The weather "
    "was cold but clear, and from the top we could see the chimneys of the power station in the valley.",
    "23 March": "I handed in my resignation today and start in Leipzig in May. Mum was surprised on the phone "
    "but happy for me, and she asked whether the new flat has a balcony for her tomatoes.",
}
DAYS = {
    "2024-03-05.md": "Fixed the garden fence with Dad on Saturday morning. The posts had rotted at the base. "
    "We set two new ones in concrete and painted the boards green.",
    "2024-03-12.md": "Book club met at Sofia's flat to talk about the novel. Nobody had finished it. "
    "We agreed to read the second half by April and drank too much tea.",
    "2024-03-28.md": "The car failed its inspection because of the brakes. The garage can fit new pads "
    "on Monday. I will take the train to work until then.",
}


@pytest.mark.parametrize("opening", ["", "Goals this month: run twice a week and call Mum on Sundays.\n\n"])
def test_a_month_files_entries_are_the_months_peers_beside_its_day_files(tmp_path: Path, opening: str) -> None:
    # A month kept partly in one file ("2024-03.md", four entries longer than the month's budget) and partly in
    # day files: each of the file's entries is a peer of the day files, quoted under its own day. The file had
    # been one part read by its final (a whole text's summary, its opening first): the digest named the 2nd
    # only, and the resignation of the 23rd was lost. Words before its first day (``opening``) lead, under the
    # file's name; they had made the file be read by its final, its days' sentences run together under it.
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    month = "# March 2024\n\n" + opening + "\n\n".join(f"## {day}\n\n{text}" for day, text in MARCH.items()) + "\n"
    (src / "2024-03.md").write_text(month, encoding="utf-8")
    for name, text in DAYS.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--quiet", "--type", "journal", "--month-words", "150"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    page = (out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0]
    labels = re.findall(r"\*\*(\d+) March\.\*\*", page)
    assert labels == ["2", "5", "9", "12", "16", "23", "28"], page  # every day, in date order
    for day in ("2", "9", "16", "23"):
        assert re.search(rf"\*\*{day} March\.\*\* \S", page), page
    assert "resignation" in page, page
    if opening:
        assert "**2024-03.** Goals this month" in page, page
