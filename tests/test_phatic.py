"""Greetings, thanks and a call's logistics are no summary: what was said is."""

from __future__ import annotations

import pytest

from batchsum.backends.extractive import summarize_text
from batchsum.backends.phatic import is_phatic
from batchsum.backends.units import units_from_text
from batchsum.tokens import get_tokenizer

PODCAST = """Maya: Welcome back to Harbor Talk, I am your host Maya.
Lena: Thanks for having me, Maya.
Maya: It is great to have you here.
Maya: You study how tides move sediment in small harbors.
Lena: Yes, and two storms a year move more sediment than a decade of calm weather.
Lena: Dredging after the storms instead of on a fixed calendar cut the costs by a third.
Maya: Thank you so much, Lena.
Lena: Take care, Maya.
"""

CALL = """Operator: Good morning and welcome to the Acme third quarter earnings call.
Operator: All lines are in listen-only mode.
Jane Doe: Revenue was $1.2 billion, up 14% year-over-year.
Jane Doe: We raise our full-year guidance to $4.10 to $4.30 per share.
Operator: Our next question comes from Tom Lee with Citi. Please go ahead.
Tom Lee: How much of the growth came from the new plant in Ohio?
Jane Doe: About half of it, and the plant reaches full capacity next spring.
Operator: This concludes our question-and-answer session.
"""


@pytest.mark.parametrize(
    "sentence",
    [
        "Welcome back to Harbor Talk, I am your host Maya.",
        "Thanks for having me, Maya.",
        "All lines are in listen-only mode.",
        "Our next question comes from Tom Lee with J.P. Morgan.",
        "Good morning and welcome to the Acme third quarter earnings call.",
        "This concludes our question-and-answer session.",
        "Thank you for calling Northwind support, my name is Leo.",
        "Thanks for making time, Ahmed.",
        "Okay, it's two minutes past, I think everyone's here.",
        "Luis, you asked to go first.",
        "Let's get started.",
    ],
)
def test_formulae_with_names_and_the_occasions_words_are_phatic(sentence: str) -> None:
    assert is_phatic(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Welcome back to the show, today we talk about sediment.",
        "Thanks to the new plant, margins rose 3 points.",
        "Hello, I would like to book a table for two at seven.",
        "Revenue was $1.2 billion, up 14% year-over-year.",
        "Thank you for calling, I have issued the refund for the duplicate charge now.",
        "Thanks for taking the time to review the contract.",
        "We'll take care of David Johnson.",
        "We're all set on the budget for the offsite.",
        "Let's start with the venue, Porto or Lisbon.",
    ],
)
def test_a_formula_with_something_said_is_not(sentence: str) -> None:
    assert not is_phatic(sentence)


@pytest.mark.parametrize("text", [PODCAST, CALL])
def test_a_conversation_summary_holds_no_greeting_thanks_or_logistics(text: str) -> None:
    units = units_from_text(text, "conversation")
    phatic = [u.text for u in units if u.candidate and is_phatic(u.text.split(": ", 1)[-1])]
    assert not phatic
    final = summarize_text(
        text, target_tokens=60, max_tokens=60, kind="standard", content_type="conversation", tokenizer=get_tokenizer()
    )
    assert final.strip()
    for line in final.splitlines():
        assert not is_phatic(line.split(": ", 1)[-1]), final
