"""A journal's one-line paragraph that opens with "Lunch:" is the line's words, not a speaker's turn: a
year's digest that picks a later sentence of it writes that sentence alone, never after "Lunch:"."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

TOPICS = [
    "I spent the morning repairing the garden fence after the storm knocked two posts over. The wood was soaked "
    "and heavy, so it took far longer than I expected. In the afternoon I read the novel Marta lent me.",
    "Work was slow today and the team meeting ran long because nobody agreed on the release date. I cooked lentil "
    "stew for dinner and called my sister about the summer plans. She thinks we should rent a cabin near the lake.",
    "A long walk along the canal with the dog in the cold sunshine. We met the neighbour who keeps bees and he "
    "promised us a jar of honey in spring. Later I sorted the boxes in the attic and found old photographs.",
    "The train was delayed again, so I arrived late to the dentist and had to rebook. I used the spare hour to write "
    "letters and pay the electricity bill. In the evening we watched a documentary about glaciers in Iceland.",
]
DAYS = ["01-08", "01-15", "01-22", "02-03", "02-11", "02-19", "04-05", "04-12", "04-20", "05-04", "05-13", "05-25"]
LUNCH = (
    "Lunch: soup with Ana. Then we walked to the river and talked about the move to Porto, the new flat near the "
    "harbour, the cat, the boxes, the lake cabin and the summer plans with my sister. The dog slept in the sun by "
    "the canal while we talked about the move and the new flat. Later I sorted the boxes in the attic and found "
    "old photographs from school, which made the move feel real."
)


def test_a_journal_label_is_no_speaker_in_a_years_digest(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    for i, day in enumerate(DAYS):
        (src / f"2024-{day}.md").write_text(" ".join(TOPICS[(i + k) % 4] for k in range(3)) + "\n", encoding="utf-8")
    (src / "2024-03-09.md").write_text(LUNCH + "\n", encoding="utf-8")  # a one-line paragraph, March's only entry
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0]
    march = re.search(r"\*\*9 March\.\*\* (.*)", year)
    assert march is not None, year
    later = [s for s in LUNCH.split(". ")[1:] if s.rstrip(".")[:40] in march.group(1)]
    assert later, march.group(1)  # the year picked a sentence after the opener: the case this is about
    for sentence in later:
        # Each such sentence is written as the journal wrote it, with no "Lunch:" before it.
        assert f"Lunch: {sentence[:40]}" not in march.group(1), march.group(1)
    assert "Lunch:" not in march.group(1) or "Lunch: soup with Ana" in march.group(1), march.group(1)
