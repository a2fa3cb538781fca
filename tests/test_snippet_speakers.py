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


def test_a_question_that_ends_its_turn_is_shown_with_its_answer() -> None:
    """An interview's question repeats the query's words, so it is the sentence that holds most of them;
    the reader asked for the answer, the next speaker's turn."""
    interview = (
        "INTERVIEWER: Let's begin with how you came to work at the cannery.\n"
        "SMITH: I was sixteen. My mother worked on the slime line.\n"
        "INTERVIEWER: When did the cannery close?\n"
        "SMITH: In 1979. They moved everything to Alaska.\n"
        "INTERVIEWER: What did the work pay?\n"
    )
    snippet, _ = make_snippet(interview, _groups("when did the cannery close"))
    assert snippet.startswith("INTERVIEWER: When did the cannery close?"), snippet
    assert "SMITH: In 1979." in snippet and "What did the work pay" not in snippet, snippet
    # A question inside a turn that goes on is answered by its own speaker: nothing is added.
    talk = "Ana: Did the cannery close? It did, in 1979, and we all sang.\nBen: Sad day."
    snippet, _ = make_snippet(talk, _groups("did the cannery close"))
    assert "Ben" not in snippet, snippet
