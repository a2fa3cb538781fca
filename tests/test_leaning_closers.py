"""A sentence that closes on what came before ("My knees hurt badly afterwards.", "I went running too.") leans on
it as one that opens on it does, and a digest quotes it only after the sentence it leans on; a turn that only
points at what its speaker shows ("You can have a look at it.") says nothing and is no summary's line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.leaning import needs_context, points_away
from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER


@pytest.mark.parametrize(
    "sentence",
    [
        "My knees hurt badly afterwards.",
        "I went running too.",
        "We took the night train instead.",
        "She came along as well.",
        "I didn't like it either.",
        "It was a good day, though.",
        '"I went anyway."',
    ],
)
def test_a_sentence_that_closes_on_a_conjunctive_adjunct_leans_back(sentence: str) -> None:
    assert needs_context(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "It was too cold.",  # a degree "too" before its adjective
        "Anna ran.",
        "We meet for coffee every now and then.",  # a frequency, not a time before
        "The cat was sick again.",
        "Anna came to the party and Ben came too.",  # tied to its own first clause
        "Ran the Berlin marathon today in 4:12.",
    ],
)
def test_a_sentence_that_does_not_close_so_stands_alone(sentence: str) -> None:
    assert not needs_context(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "You can have a look at it.",
        "User Interface: You can have a look at it…",
        "Let's take a look at this.",
        "Check this out!",
        "So you can see them there.",
        "You'll have a look at it.",  # a contraction as written, not only as tokenized ("you 'll")
        "We'll take a look at this.",
        "you 'll have a look at it .",
    ],
)
def test_a_pointer_at_a_bare_pronoun_points_away(sentence: str) -> None:
    assert points_away(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Look at this chart of the costs per unit.",  # its object named
        "I see that.",  # a reply, not a pointer
        "I will check it.",  # what the speaker does
        "We will see.",
        "You can have a look at it, and then we decide on the case.",
    ],
)
def test_a_sentence_that_says_something_does_not(sentence: str) -> None:
    assert not points_away(sentence)


def _run(src: Path, out: Path, *args: str) -> None:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet", *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output


def _body(page: Path) -> str:
    """A summary page's text, without its front matter and its links."""
    return page.read_text(encoding="utf-8").split(LINKS_MARKER, 1)[0].rsplit("\n---\n", 1)[-1]


DAYS = {
    "2024-05-02": "Worked from home and finished the quarterly report for the board.",
    "2024-05-04": "Ran the Berlin marathon today in 4:12. My knees hurt badly afterwards.",
    "2024-05-06": "Lunch with Ana at the harbour café, we talked about her new job in Hamburg.",
    "2024-05-09": "The dentist fixed the cracked molar and sent me home with a long bill.",
    "2024-05-12": "Planted tomatoes and basil in the new raised bed behind the garage.",
    "2024-05-15": "Mum called about her hip operation, which is now set for June.",
    "2024-05-20": "Took the night train to Vienna for the conference on urban water systems.",
}


def test_a_month_digest_never_quotes_afterwards_without_what_came_before(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    for day, text in DAYS.items():
        (src / f"{day}.md").write_text(f"# {day}\n{text}\n", encoding="utf-8")
    _run(src, out, "--type", "journal", "--month-words", "20")
    month = _body(out / "digests" / "2024" / "2024-05.md")
    assert "**" in month, month  # the digest quotes entries
    assert "knees" not in month or "marathon" in month, month


MONTH_FILE = """# May 2023

### 3 May
Started the new project at work, a migration of the billing system. The kickoff meeting went well and the team \
seems motivated.

### 12 May
My sister Clara had her baby, a girl named Lina, at 4 in the morning. Everyone is healthy and I drove up to see \
them in the evening.

### 27 May
Ran the city half marathon in 1 hour 58 minutes, my first time under two hours. My knees hurt badly afterwards.
"""


def test_a_month_files_digest_never_quotes_afterwards_alone(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    (src / "2023-05.md").write_text(MONTH_FILE, encoding="utf-8")
    _run(src, out, "--month-words", "20")
    month = _body(out / "digests" / "2023" / "2023-05.md")
    assert "**" in month, month
    assert "knees" not in month or "marathon" in month, month


MEETING = """Project Manager: Okay.
User Interface: So this is the prototype of the remote control that we built last week in the workshop, with a \
spongy yellow rubber case, two big buttons for the channel and the volume, a scroll wheel on the side for the menu, \
a kinetic battery that charges when you shake it, and the company logo printed on the bottom near the battery cover.
User Interface: You can have a look at it.
Marketing: Mm-hmm.
Industrial Designer: Yeah.
Project Manager: Right.
Marketing: Okay, yeah.
Industrial Designer: Mm.
Project Manager: Okay, good.
Marketing: Yeah, yeah.
Project Manager: Okay, thanks.
Industrial Designer: Right, okay.
Marketing: Uh-huh.
User Interface: Yep.
Project Manager: Okay then.
"""


def test_a_pointer_at_a_slide_is_not_a_meetings_final_line(tmp_path: Path) -> None:
    src, out = tmp_path / "meetings", tmp_path / "out"
    src.mkdir()
    (src / "design.txt").write_text(MEETING, encoding="utf-8")
    _run(src, out)
    final = _body(out / "design.txt" / "summaries" / "L3" / "final.md")
    assert "prototype" in final, final  # the line says what was shown
    assert "look at it" not in final, final
