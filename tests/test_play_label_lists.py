"""Paragraphs led by a word in capitals and a period are a play's turns only when the names hand the word back
(A, B, A): a trip plan's "UTAH. ...", "NEVADA. ..." leads come once each, and minutes' "AGREED. ...", "ACTION. ..."
are agenda words, however they alternate. Real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.readers.court_layout import play_as_labels
from tests.one_final import final_text

TRIP = (
    "Trip plan\n\nUTAH. Arches first.\n\nNEVADA. Drive through.\n\nIDAHO. Visit Ana.\n\nOREGON. Coast for three days.\n"
)
MINUTES = (
    "Board minutes, 4 March\n\n"
    "AGREED. The budget for the spring fair goes up by ten percent.\n\n"
    "ACTION. Ana writes to the council about the hall.\n\n"
    "AGREED. Two new volunteers are hired for the summer.\n\n"
    "ACTION. Bo calls the printer about the posters.\n\n"
    "RESOLVED. The next meeting is on 1 April.\n"
)
DIALOGUE = (
    "SAMUEL. The glass is falling fast.\n\nAGNES. Then the boat won't make harbour.\n\n"
    "SAMUEL. It will if the light is kept.\n\nAGNES. Then keep it.\n"
)


def _final(tmp_path: Path, text: str) -> str:
    return final_text(tmp_path, "notes.md", text)


@pytest.mark.parametrize("text", [TRIP, MINUTES], ids=["trip plan", "minutes"])
def test_capitalised_paragraph_leads_are_no_speakers(tmp_path: Path, text: str) -> None:
    assert play_as_labels(text) is text
    final = _final(tmp_path, text)
    assert "content_type: conversation" not in final and "participants:" not in final.split("\n---\n")[0], final


def test_names_that_hand_the_word_back_still_speak() -> None:
    read = play_as_labels(DIALOGUE)
    assert read.count("SAMUEL: ") == 2 and read.count("AGNES: ") == 2, read
