"""A folder digest's line for each file is a whole sentence of its final: none that trails off ("You can
have a look at it…") while the file holds a whole one, none cut mid-word, and a file's share of the budget
is not taken by one sentence of many times that share."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digests import whole_lines

TOPICS = ["remote control", "battery case", "rubber buttons", "voice chip", "titanium shell", "scroll wheel"]
TOPICS += ["speech sensor", "yellow casing", "power switch", "infrared port", "charging dock", "menu screen"]
# A trailing-off line made of the words every meeting shares: the most central sentence of its file.
TRAILING = "Ann: You can have a look at the simple design of the prototype and the budget of the design…"
WHOLE = "Ben: The printer on the third floor ran out of paper twice during the morning."


def meetings(src: Path) -> None:
    """Twelve short meetings in one undated folder: more text than its digest's budget holds."""
    src.mkdir(parents=True)
    for k, topic in enumerate(TOPICS):
        lines = [
            f"Ann: Today we look at the {topic} of the prototype and we decide together what goes into the design.",
            f"Ben: I think the {topic} should stay simple, because the users told us that they want a simple design.",
            f"Cai: The costs of the {topic} are within the budget if we keep the design of the prototype simple.",
        ]
        (src / f"meeting_{k:02d}.txt").write_text("\n".join([TRAILING, WHOLE] if k == 1 else lines) + "\n")


def paragraphs(page: Path) -> dict[str, str]:
    """A digest page's paragraphs by the file they open with (``**meeting_01.** ...``)."""
    body = page.read_text(encoding="utf-8").split("<!-- batchsum:links -->")[0].split("\n# ", 1)[1]
    found = (re.match(r"\*\*(.+?)\.\*\* (.*)", p, re.S) for p in body.split("\n\n")[1:])
    return {m.group(1): m.group(2) for m in found if m}


def test_folder_digest_passes_over_a_trailing_off_line(tmp_path: Path) -> None:
    meetings(tmp_path / "src" / "meetings")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(tmp_path / "src"), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    paras = paragraphs(out / "digests" / "folders" / "meetings.md")
    assert len(paras) == len(TOPICS)  # every file has its line
    for text in paras.values():
        for line in text.splitlines():
            assert re.search(r"[.!?…]$", line), line  # a sentence's end, never a word cut
    assert "…" not in paras["meeting_01"] and "printer" in paras["meeting_01"]


def test_a_sentence_longer_than_its_files_share_is_passed_over_for_one_that_fits() -> None:
    long = "Ben: So the moral of the story is " + "that we looked at the design and the budget, " * 8 + "and agreed."
    part = f"{long}\nCai: The costs are within the budget if we keep the design simple.\n{TRAILING}"
    kept = whole_lines(part, "document", 40)
    assert "moral" not in kept and "…" not in kept and "The costs are within the budget" in kept
    # A share too small for a one-line summary keeps the long sentence; a file of no other sentence keeps its own.
    assert "moral" in whole_lines(part, "document", 10)
    assert whole_lines(long, "document", 40) == long and whole_lines(TRAILING, "document", 40) == TRAILING
