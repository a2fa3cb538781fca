"""A note's tasks, empty task boxes and Org/Logseq drawers: bookkeeping, never a summary's text."""

from __future__ import annotations

from batchsum.backends.extractive import summarize_text
from batchsum.backends.units import units_from_text
from batchsum.readers.note_syntax import TASK_BOXES, note_syntax_as_text
from batchsum.tokens import get_tokenizer
from batchsum.written_facets import written_facets

DAILY = """---
date: 2021-06-13
tags: [daily, journal]
---
# Sunday, June 13, 2021

## Journal
Our resort was just a short boat ride from Disney Springs so when we took a break from the parks around lunch
time, I would run get lunch and bring it back to the resort while my son rested.

## Tasks
- [ ] call the bank
- [x] water plants
"""


def test_a_task_is_no_brief_line_even_when_the_days_sentence_is_too_long() -> None:
    out = summarize_text(
        DAILY,
        target_tokens=20,
        max_tokens=40,
        kind="brief",
        content_type="journal",
        tokenizer=get_tokenizer(),
    )
    assert out
    assert not any(box in out for box in TASK_BOXES)
    assert "bank" not in out and "resort" in out


def test_every_sentence_of_a_task_item_is_bookkeeping() -> None:
    note = (
        "## Journal\nA quiet day at home with the kids and the dog.\n\n## Tasks\n"
        "- [ ] Call the bank about the mortgage. Ask them about the rate for the coming year and the fees.\n"
        "- Buy some bread and milk at the shop on the corner today.\n"
    )
    units = units_from_text(note_syntax_as_text(note), "journal")
    picked = [u.text for u in units if u.candidate or u.whole]
    assert not any("bank" in t or "rate for the coming year" in t for t in picked)
    # A plain item of the same list, and the day's prose, still are sentences.
    assert any("bread" in t for t in picked) and any("quiet day" in t for t in picked)


def test_an_empty_task_is_left_out_of_the_text() -> None:
    text = note_syntax_as_text("A day.\n- [ ]\n- [ ] \n- [x]\n1. [ ]\n- TODO\n- [ ] call Bob\n")
    assert "[ ]" not in text and "[x]" not in text and "TODO" not in text
    assert [line for line in text.split("\n") if line.strip()] == ["A day.", "- ☐ call Bob"]


def test_an_empty_task_is_no_action_item() -> None:
    for empty in ("- [ ] ", "- [ ]", "- TODO "):
        found = written_facets(f"## Tasks\n{empty}\n- [ ] call Bob\n")
        assert [a.task for a in found.action_items] == ["call Bob"], empty


def test_a_box_with_words_after_it_is_still_a_task() -> None:
    assert note_syntax_as_text("- [ ] `make`\n- [ ]x\n") == "- ☐ `make`\n- [ ]x\n"


def test_any_drawer_is_left_out() -> None:
    page = (
        "- TODO Book Anna Berg for a second session\n"
        "  DEADLINE: <2026-03-20 Fri>\n"
        "  :PROPERTIES:\n"
        "  :CONTACT: anna.berg@example.org\n"
        "  :END:\n"
        "- DOING Edit episode 12\n"
        "  :LOGBOOK:\n"
        "  CLOCK: [2026-03-10 Tue 09:12:44]\n"
        "  :END:\n"
        "- The museum agreed to license six photographs.\n"
    )
    text = note_syntax_as_text(page)
    assert ":PROPERTIES:" not in text and "anna.berg" not in text and ":END:" not in text and "CLOCK" not in text
    assert "☐ Book Anna Berg for a second session 📅 2026-03-20" in text
    assert "\n- ☐ Edit episode 12\n" in text and "\n- The museum agreed" in text  # no line glued to another


def test_a_colon_word_in_prose_is_no_drawer() -> None:
    prose = "Time: 10:00\n:Note: lower case\nsee the :END: of it\n"
    assert note_syntax_as_text(prose) == prose
