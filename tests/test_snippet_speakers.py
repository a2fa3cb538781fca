"""A snippet from inside a conversation's turn says who spoke: for "who is doing the release notes?" the
answer is the speaker as much as the sentence. A note's "Breakfast: eggs." is no speaker."""

from __future__ import annotations

from batchsum.index.analysis import analyze
from batchsum.index.snippets import make_snippet


def _groups(query: str) -> list[list[str]]:
    return [[term] for term in analyze(query, "en")]


def test_a_sentence_from_inside_a_turn_carries_its_speaker() -> None:
    turns = (
        "Maria Lopez: Who is doing the migration this time?\n"
        "Tom Becker: Great. I will also write the release notes for version 2.3 by Friday.\n"
        "Maria Lopez: Thanks."
    )
    snippet, _ = make_snippet(turns, _groups("write release notes"))
    assert snippet.startswith("Tom Becker: I will also write the release notes"), snippet


def test_prose_with_a_label_gets_no_speaker() -> None:
    note = "Breakfast: eggs. Then I walked to the pier and wrote the release notes for the harbour."
    snippet, _ = make_snippet(note, _groups("wrote release notes"))
    assert not snippet.startswith("Breakfast: Then"), snippet
