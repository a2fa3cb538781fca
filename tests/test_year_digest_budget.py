"""A year's digest keeps to its word budget (``--year-words``): when the budget cannot hold a sentence of
every month, it names the months it can (their day labels on top of the budget), never all of them past it."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

ENTRIES = [
    "I repaired the garden fence after the storm knocked two posts over and the wood was soaked.",
    "The team meeting ran long because nobody agreed on the release date for the new version.",
    "We walked along the canal with the dog in the cold sunshine and met the neighbour who keeps bees.",
    "The train was delayed again, so I arrived late to the dentist and had to rebook the visit.",
    "My sister called about the summer plans and thinks we should rent a cabin near the lake.",
    "I sorted the boxes in the attic and found old photographs from school and a broken radio.",
    "We watched a long documentary about glaciers in Iceland and then argued about the ending.",
    "The plumber finally came to fix the kitchen sink, which had been leaking for two whole weeks.",
    "I baked bread for the first time this year and the loaf came out dense but rather tasty.",
]
LABEL = re.compile(r"\*\*[^*]+\*\*")


def test_a_years_digest_keeps_to_its_word_budget(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    for month, entry in enumerate(ENTRIES, start=1):
        # Two sentences a month: a month's digest of 30 words quotes both, the year cannot quote one of each.
        text = f"{entry} Later that evening I wrote a few letters and went to bed early, tired but content.\n"
        (src / f"2023-{month:02d}-10.md").write_text(text, encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--month-words", "30", "--year-words", "40", "--quiet"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    page = (out / "digests" / "2023.md").read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0]
    body = page.split("\n# 2023\n", 1)[1]
    labels = LABEL.findall(body)
    assert labels, body  # some months are named, each by its day's label
    words = LABEL.sub(" ", body).split()
    assert len(words) <= 40, body  # the budget, the labels on top of it
