"""A capitalised word is a name only in a sentence in ordinary case: an all-caps transcript or a Title Case
headline after a greeting says something, and so does "next meeting is Tuesday"."""

from __future__ import annotations

import pytest

from batchsum.backends.phatic import is_phatic
from batchsum.backends.units import units_from_text

ALL_CAPS = """ANA: GOOD MORNING EVERYONE, THE PLANT IN OHIO CLOSES ON FRIDAY.
BEN: THAT IS A SURPRISE TO ME AND TO THE WHOLE TEAM HERE.
ANA: HI BEN, THE UNION WAS TOLD YESTERDAY.
BEN: WE NEED A PLAN FOR THE SIXTY WORKERS WHO LOSE THEIR JOBS.
"""


def test_every_turn_of_an_all_caps_transcript_with_a_greeting_is_a_candidate() -> None:
    units = units_from_text(ALL_CAPS, "conversation")
    assert len(units) == 4
    assert all(u.candidate for u in units), [u.text for u in units if not u.candidate]


@pytest.mark.parametrize(
    "sentence",
    [
        "Hello, Tesla Recalls Two Million Cars",
        "Thanks everyone, next meeting is Tuesday.",
        "HI EVERYONE, THE BUDGET IS CUT BY TEN PERCENT.",
        "I'm good at this.",
    ],
)
def test_a_greeting_with_news_in_any_case_is_not_phatic(sentence: str) -> None:
    assert not is_phatic(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["Thank you, Maya and Tom.", "Our next question comes from Tom Lee with J.P. Morgan.", "Thanks everyone."],
)
def test_names_and_the_next_question_stay_phatic(sentence: str) -> None:
    assert is_phatic(sentence)
