"""Ordinary sentences that only look like apparatus, markup or broken speech stay sentences: a diarist's colour
("Green represents hope to me"), a score ("We won game 3: 21-18."), a shell line ("$PATH:$HOME"), a typed
message that ends in "…" or names an attachment, and a folder of weekly meetings holds conversations."""

from __future__ import annotations

import pytest

from batchsum.backends.apparatus import is_caption_line, is_reference, is_tex_math
from batchsum.backends.noise import is_fragment
from batchsum.folder_types import folder_kind
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
