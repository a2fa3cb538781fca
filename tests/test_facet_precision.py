"""Facet rules a reviewer found wrong on real meetings (action items: 6 of 34 right on 16 QMSum meetings):
talk about the talk, needs, negated and forecast futures, the whiteboard and the next meeting taken for
tasks; an open question lost to a capitalised word before "will"; a decision read from a relative clause;
"wide open question"; units, role titles, interjections and demonyms taken for names; due dates cut short;
a written task's trailing @owner and a Logseq DEADLINE above SCHEDULED."""

from __future__ import annotations

import pytest

from batchsum.due_dates import due_date
from batchsum.facets import extract_facets
from batchsum.written_facets import written_facets

OPENING = ["Anna: Good morning everyone, welcome back to the design review.", "Ben: Thanks, happy to be here."]


def _facets(*lines: str):
    return extract_facets("\n".join([*OPENING, *lines]))


@pytest.mark.parametrize(
    "sentence",
    [
        "I'll briefly describe the working design of our remote control.",  # talk about the talk
        "We'll need only few buttons.",  # a need
        "We'll definitely won't go with that one.",  # negated after an adverb
        "I'll definitely not send the report.",
        "We'll get panned on the next one, anyway.",  # a forecast: done to us
        "We're going to be here at eight o'clock.",  # a state, no task
        "I'll rub off the other two.",  # the whiteboard, in the room
        "Let's meet again tomorrow at nine.",  # the next meeting, no deadline
        "We'll reconvene in thirty minutes.",
    ],
)
def test_no_action_item_from_talk_needs_negations_forecasts_or_the_next_meeting(sentence: str) -> None:
    assert _facets("Anna: " + sentence).action_items == []


@pytest.mark.parametrize(
    "sentence",
    [
        "I'll send the revised budget to Ben by Friday.",
        "We'll need to finish the grant report before the offsite on Friday.",
        "We will be sending the signed contract to Ben tomorrow.",
    ],
)
def test_commitments_stay_action_items(sentence: str) -> None:
    assert [a.task for a in _facets("Anna: " + sentence).action_items] == [sentence]


@pytest.mark.parametrize(
    "sentence",
    [
        "It's still unclear whether Kubernetes will be upgraded before the launch.",
        "The open question is whether Legal will sign off.",
        "It's still unclear when Kubernetes will be upgraded for the launch.",  # no owner: still open
    ],
)
def test_open_question_with_a_capitalised_word_before_will(sentence: str) -> None:
    facets = _facets("Anna: " + sentence)
    assert facets.unresolved == [sentence]
    assert facets.action_items == []


def test_wide_open_question_is_no_open_question() -> None:
    assert _facets("Anna: Bit of a wide open question there of course.").unresolved == []
    assert _facets("Anna: The open question is who pays for the venue.").unresolved != []


def test_decision_not_read_from_a_relative_clause() -> None:
    facets = _facets("Anna: First I'll discuss the buttons we just chose, show you some samples.")
    assert facets.decisions == []
    kept = [
        "In the end we chose the yellow rubber case for the remote.",
        "It's no problem because we decided to keep the concept-to-speech approach.",
        "Last time we agreed that the remote gets three buttons.",
    ]
    for sentence in kept:
        assert _facets("Anna: " + sentence).decisions == [sentence]


def test_entities_leave_out_units_roles_interjections_and_demonyms() -> None:
    facets = extract_facets(
        "Marketing: Oh my God. The remote costs three Francs per item, and three Francs more for the case.\n"
        "Project Manager: I asked our Marketing Expert about Porto and the Italian data from Porto.\n"
        "Marketing: Oh my God, the Marketing Expert says the Italian data is fine, and Porto agrees with Sofia.\n"
        "Project Manager: Then we ask Porto and Sofia about the Italian digits and the price in Francs."
    )
    assert facets.entities == ["Porto", "Sofia"]


@pytest.mark.parametrize(
    ("sentence", "due"),
    [
        ("I'll send the deck to Ben by end of day tomorrow.", "end of day tomorrow"),
        ("I'll send the deck to Ben by Friday at noon.", "Friday at noon"),
        ("I'll send the deck to Ben by 5pm.", "5pm"),
        ("I'll send the deck to Ben by Friday March 15.", "Friday March 15"),
        ("I'll pay the deposit by Friday the ninth.", "Friday the ninth"),
        ("I'll send the deck to Ben by the twenty-first of March.", "the twenty-first of March"),
    ],
)
def test_due_date_is_whole(sentence: str, due: str) -> None:
    assert due_date(sentence) == due
    assert [a.due for a in _facets("Anna: " + sentence).action_items] == [due]


def test_an_ordinal_with_a_noun_after_it_is_no_day() -> None:
    assert due_date("I'll send Ben the notes by the first draft review.") is None


def test_written_task_trailing_mention_is_its_owner_not_its_text() -> None:
    [item] = written_facets("- [ ] Send the job posting to HR @Maria").action_items
    assert (item.owner, item.task) == ("Maria", "Send the job posting to HR")
    [inner] = written_facets("- [ ] Ask @maria about the venue by Friday").action_items
    assert inner.task == "Ask @maria about the venue by Friday"


def test_logseq_deadline_above_scheduled_keeps_its_due_date() -> None:
    for note in (
        "- TODO Finish chapter twelve\n  DEADLINE: <2024-03-19 Tue>\n  SCHEDULED: <2024-03-18 Mon>",
        "- TODO Finish chapter twelve\n  SCHEDULED: <2024-03-18 Mon>\n  DEADLINE: <2024-03-19 Tue>",
    ):
        [item] = written_facets(note).action_items
        assert (item.task, item.due) == ("Finish chapter twelve", "2024-03-19")


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("Not yet. That's the open question in our family right now.", False),  # points back: says nothing
        ("That remains to be seen.", False),
        ("It's TBD.", False),
        ("It's still unclear whether the council will renew the lease.", True),  # says what is open
        ("The open question is who pays for the new buoys.", True),
    ],
)
def test_an_open_question_says_what_is_open(sentence: str, kept: bool) -> None:
    found = _facets("Ben: We talked about the lease of the yard.", f"Anna: {sentence}").unresolved
    assert bool(found) is kept, found
