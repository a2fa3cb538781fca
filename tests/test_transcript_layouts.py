"""Transcript layouts read as turns: Rev.com's label on a line of its own over the words, and a Q/A
interview's "Q:" and "A:" speakers. Text in neither layout is read as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.readers.chat_lines import render_chat_lines
from batchsum.speaker_labels import parse_speaker_line
from batchsum.text import conversation_lines
from batchsum.walk import SourceRef, read_document

REV_GENERIC = (
    "Speaker 1 (00:00:02):\nOkay, we're recording. Can you say your name for the tape?\n\n"
    "Speaker 2 (00:00:06):\nRuth Olsen. I organized the Wives Association in 1969.\n\n"
    "Speaker 1 (00:01:02):\nAnd you got the rescue station built?\n\n"
    "Speaker 2 (00:01:05):\nIn 1973. It took four years of bake sales\nand a trip to Olympia.\n"
)
REV_NAMED = (
    "Jo Park (00:02):\nRuth, how did the association start?\n\n"
    "Ruth Olsen (00:16):\nWith a funeral. We met in my kitchen the week after.\n\n"
    "Jo Park [01:02]:\nAnd you got it built?\n\n"
    "Ruth Olsen [01:05]:\nIn 1973.\n"
)
QA = (
    "Q: Can you tell me where you were when the strike started?\n"
    "A: I was on the night shift at Pier 7. We heard it from the foreman at two in the morning.\n\n"
    "Q: How long did it last?\n"
    "A: Eleven weeks. My wife took in laundry.\n"
)


def _read(tmp_path: Path, name: str, text: str) -> tuple[str, str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = read_document(SourceRef(path, name, tmp_path))
    return doc.content_type, doc.type_reason, doc.text


@pytest.mark.parametrize(
    ("text", "speakers"),
    [(REV_GENERIC, ["Speaker 1", "Speaker 2"] * 2), (REV_NAMED, ["Jo Park", "Ruth Olsen"] * 2)],
    ids=["speaker n", "names"],
)
def test_rev_labels_over_the_words_are_turns(tmp_path: Path, text: str, speakers: list[str]) -> None:
    ctype, reason, read = _read(tmp_path, "interview.txt", text)
    assert ctype == "conversation", reason
    lines = conversation_lines(read)
    assert [who for who, _ in lines] == speakers, read  # a turn's second line ("and a trip") goes on with it
    assert all(said and "(0" not in said and "[0" not in said for _, said in lines), read


def test_descript_style_name_and_time_code_over_the_words() -> None:
    text = (
        "Ana Silva  00:00:02\nThe deadline is March 22.\n\n"
        "Ben Okafor  00:01:02\nI'll send the quote.\n\nAna Silva  00:01:40\nGood.\n"
    )
    export = render_chat_lines(text)
    assert export is not None
    assert [who for who, _ in conversation_lines(export.text)] == ["Ana Silva", "Ben Okafor", "Ana Silva"]


def test_a_log_of_times_of_day_over_the_words_is_no_transcript(tmp_path: Path) -> None:
    """A recording's time codes run forward; a food log's times of day go back every morning."""
    log = "Breakfast (08:30):\noatmeal\n\nLunch (12:45):\nsoup\n\nDinner (19:30):\nfish\n\nBreakfast (08:00):\neggs\n"
    assert render_chat_lines(log) is None
    assert _read(tmp_path, "food.txt", log)[2] == log


def test_qa_interview_answers_keep_their_speaker() -> None:
    lines = conversation_lines(QA)
    assert [who for who, _ in lines] == ["Q", "A", "Q", "A"]
    assert lines[1][1].startswith("I was on the night shift"), lines


def test_prose_with_a_lettered_line_stays_a_document(tmp_path: Path) -> None:
    text = (
        "The committee met on Tuesday to pick a contractor for the new roof.\n"
        "Three bids came in, and we rated each of them on price and start date.\n"
        "A: the cheapest bid, but the crew cannot start before the end of June.\n"
        "The board prefers the second bid because that crew can start in April.\n"
    )
    ctype, reason, read = _read(tmp_path, "roof.txt", text)
    assert (ctype, reason) == ("document", "default")
    assert read == text
    # A lower-case letter before a colon is a list's letter or a variable, never a name.
    assert parse_speaker_line("a: the cheapest bid")[0] is None
    assert parse_speaker_line("x: 3, y: 4")[0] is None
