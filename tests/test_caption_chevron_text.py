"""A ">>" inside a caption's line is a change of speaker only in captions that use the convention (a cue opens
or ends with one) and before a word; elsewhere it is the words' own, a shell's redirection."""

from __future__ import annotations

from batchsum.readers.formats import render_subtitles
from batchsum.text import split_sentences

SHELL = "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nAna: Type echo hi >> notes.txt in the shell.\n"
BROADCAST = (
    "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n>> Welcome back to the show.\n\n"
    "00:00:03.000 --> 00:00:05.000\nThanks for having me >> so what brings you here?\n"
)


def test_a_redirection_in_a_caption_stays_in_its_sentence() -> None:
    text = render_subtitles(SHELL)
    assert ">> notes.txt" in text, text
    assert len(split_sentences(text)) == 1 and "\n" not in text, text


def test_captions_that_mark_speakers_with_chevrons_still_turn_inside_a_line() -> None:
    turns = render_subtitles(BROADCAST).split("\n\n")
    assert not any(">>" in t for t in turns), turns
    assert turns[-1] == "so what brings you here?", turns
