"""A lower-case restart at a ``{disfmarker}``: a word that is a subject and its verb ("let's", "that's")
opens a clause, which a hanging preposition, article or auxiliary cannot take, so the abandoned start
ends there and the clause starts a sentence of its own; a conjunction left hanging still takes it."""

from __future__ import annotations

import re

from batchsum.cleanup import clean_transcript
from batchsum.disfluency import names
from batchsum.text import split_sentences

# The abandoned words glued to the clause that replaced them, with no break between.
_GLUED = re.compile(r"\b(?:controls|the) (?:let's|that's|we're)\b", re.IGNORECASE)


def test_a_clause_after_a_hanging_preposition_is_a_restart() -> None:
    cleaned = clean_transcript(
        "Project Manager: We 're planning to sell these remote controls for {disfmarker} let 's make that go away "
        ", that means we 've got five minutes .\n"
        "Marketing: I put it in the {disfmarker} that 's the folder we share .\n"
        "User Interface: The printer broke because {disfmarker} we 're out of toner ."
    ).split("\n")
    assert len(cleaned) == 3
    starts = [s.text.lower() for line in cleaned for s in split_sentences(line)]
    assert not _GLUED.search(cleaned[0]) and any(s.startswith("let's make that go away") for s in starts), starts
    assert "controls for" not in cleaned[0], cleaned[0]  # the hanging preposition went with its start
    assert not _GLUED.search(cleaned[1]) and "that's the folder we share" in cleaned[1].lower(), cleaned[1]
    assert "printer broke" in cleaned[2], cleaned[2]  # a conjunction takes a clause: no restart, it runs on


def test_names_are_capitals_inside_a_sentence_or_never_written_lower_case() -> None:
    found = names("we asked Jane about it . Priyanka said so . Next we ate , and next we slept . It is .")
    assert {"Jane", "Priyanka"} <= found
    assert not {"Next", "It"} & found


def test_a_copula_left_hanging_takes_the_clause() -> None:
    # "The problem is we're late" is one sentence: its start is no abandoned one.
    cleaned = clean_transcript("Ana: The problem is {disfmarker} we 're out of time for this .")
    assert "problem" in cleaned and "out of time" in cleaned, cleaned
    assert len(split_sentences(cleaned.partition(": ")[2])) == 1, cleaned
