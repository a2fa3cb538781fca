"""A ticket key is one entity with its number; a labelled open question is the question, not its label."""

from __future__ import annotations

from batchsum.facets import extract_facets

CALL = """Marco Bianchi: I logged the onboarding checklist reset as bug ONB-212 for the design team.
Dana Reyes: Thanks, the ONB-212 ticket helps us a lot with the rollout.
Marco Bianchi: Open question: do we offer a small-team discount?
Dana Reyes: Good point, we should look into the pricing page as well.
"""


def test_a_ticket_key_is_named_whole() -> None:
    facets = extract_facets(CALL)
    assert "ONB-212" in facets.entities and "ONB" not in facets.entities, facets.entities


def test_a_labelled_open_question_is_listed_without_its_label() -> None:
    facets = extract_facets(CALL)
    assert facets.unresolved == ["Do we offer a small-team discount?"], facets.unresolved
