"""Ordinary sentences that only look like apparatus, markup or broken speech stay sentences: a diarist's colour
("Green represents hope to me"), a score ("We won game 3: 21-18."), a shell line ("$PATH:$HOME"), a typed
message that ends in "…" or names an attachment, and a folder of weekly meetings holds conversations."""

from __future__ import annotations

import pytest

from batchsum.backends.apparatus import is_caption_line, is_reference, is_tex_math
from batchsum.backends.noise import is_fragment
from batchsum.engine.prepare import _NO_TEXT_LINE
from batchsum.folder_types import folder_kind
from batchsum.index.asked_periods import only_the_day
from batchsum.index.lexical import query_tokens
from batchsum.readers.chat_lines import render_chat_lines


@pytest.mark.parametrize(
    "sentence",
    ["Green represents hope to me, so I painted the hallway green.", "Black marks covered the kitchen wall."],
)
def test_a_colour_alone_keys_no_legend(sentence: str) -> None:
    assert not is_caption_line(sentence)
    assert is_caption_line("orange represents the ashm genes; green represents the others.")


@pytest.mark.parametrize("sentence", ["We won game 3: 21-18.", "Read Chapter 3: 45-60."])
def test_a_score_or_a_page_range_is_no_reference(sentence: str) -> None:
    assert not is_reference(sentence)
    assert is_reference("Smith, A. (2006) Seagrass decline. Marine Ecology 56: 987-996.")


def test_a_shell_variable_is_no_math() -> None:
    assert not is_tex_math("Set PATH=$PATH:$HOME/.local/bin in your shell.")
    assert is_tex_math("The accuracy was $A = c / n$ on every trial.")


def test_a_message_trailing_off_after_a_whole_phrase_is_said() -> None:
    assert not is_fragment("I booked the venue for the team offsite in Porto next month…")
    assert is_fragment("First we have a look at…")


def test_a_typed_message_that_names_an_attachment_is_kept() -> None:
    lines = [
        "12/03/2024, 18:02 - Ana Silva: The venue in Porto is booked for June.",
        "12/03/2024, 18:03 - Ben Okafor: IMG-20240312-WA0003.jpg (file attached)",
        "12/03/2024, 18:04 - Ana Silva: Signed contract with Porto venue for June 14 (file attached)",
        "12/03/2024, 18:05 - Ben Okafor: Great, thanks.",
    ]
    export = render_chat_lines("\n".join(lines) + "\n")
    assert export is not None
    text = export.text
    assert "Signed contract with Porto venue" in text and "IMG-20240312" not in text, text


@pytest.mark.parametrize("name", ["weekly-meetings", "Daily Calls"])
def test_a_folder_of_weekly_meetings_holds_conversations(name: str) -> None:
    assert folder_kind(name) == "conversation"
    assert folder_kind("Weekly") == "journal"


def test_a_topic_word_that_is_another_languages_function_word_stays() -> None:
    """One German function word ("war") in an English query does not make the query German: it is its topic."""
    assert ["war"] in query_tokens("war memorial visit", ["en", "de"])
    assert ["war"] not in query_tokens("Was ist im März 2024 passiert?", ["de", "en"])  # three German ones
    assert not only_the_day("war on 12 March 2024") and only_the_day("what happened on 12 March 2024?")


def test_a_lone_han_character_beside_phrasing_is_the_topic() -> None:
    assert query_tokens("猫发生了什么", ["zh"]) == [["猫"]]


def test_a_cut_here_line_of_dashes_is_read_as_a_line() -> None:
    """A line of 27 "- " then "8< cut here" is a line with text (its regex read each blank in one way only:
    it had taken seconds, doubling with every dash)."""
    assert _NO_TEXT_LINE.match("- " * 27 + "8< cut here") is None
    assert _NO_TEXT_LINE.match("- [ ] ") is not None and _NO_TEXT_LINE.match("-  " * 40) is not None
