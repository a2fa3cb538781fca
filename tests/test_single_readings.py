"""Each reading the units' builder makes of a text is made once: whether a paragraph's lines are units of their
own (text.lines_are_items) and which sponsor a sentence names (adverts.sponsor). The functions are wrapped to
count their calls; what they answer, and the whole pipeline, are the real ones."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import batchsum.backends.adverts as adverts
import batchsum.text as text
from batchsum.backends.units import units_from_text

# A survey's answers one per line, none with a stop, under a paragraph of prose.
SURVEY = """What the members said about the new harbour schedule this spring.

The early ferry suits the commuters and the school well
Parking near the pier is tight
Weekend sailings should start later
Night buses miss the ferry
Cyclists want racks on the upper deck
Tickets on the phone would help
"""

PODCAST = """Maya: Today's episode is supported by Brightwave.
Maya: Brightwave makes backup simple for small teams.
Maya: Head over to brightwave.com/harbor to get twenty percent off your first year.
Lena: Thanks, Maya. Two storms a year move more sediment than a decade of calm weather.
Lena: Dredging after the storms instead of on a fixed calendar cut the costs by a third.
"""


def _counting(monkeypatch: pytest.MonkeyPatch, func: Callable[..., Any]) -> Counter[str]:
    """Wrap ``func`` in every batchsum module that holds it, counting its calls by their first argument."""
    calls: Counter[str] = Counter()

    def counted(first: str, *args: Any) -> Any:
        calls[first] += 1
        return func(first, *args)

    for name, module in list(sys.modules.items()):
        if name.startswith("batchsum") and getattr(module, func.__name__, None) is func:
            monkeypatch.setattr(module, func.__name__, counted)
    return calls


def test_a_paragraphs_lines_are_read_as_items_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, text.lines_are_items)
    units = units_from_text(SURVEY, "document")
    answers = [u.body for u in units if u.body.startswith(("The early", "Parking", "Tickets"))]
    assert len(answers) == 3, [u.body for u in units]  # one unit a line: read as items
    assert calls and max(calls.values()) == 1, calls


@pytest.mark.parametrize(("source", "content_type"), [(PODCAST, "conversation"), (PODCAST, "document")])
def test_a_sentences_sponsor_is_asked_once(monkeypatch: pytest.MonkeyPatch, source: str, content_type: Any) -> None:
    calls = _counting(monkeypatch, adverts.sponsor)
    units = units_from_text(source, content_type)
    assert not any("Brightwave" in u.body or "brightwave" in u.body for u in units if u.candidate)
    assert any("sediment" in u.body for u in units if u.candidate)
    assert calls and max(calls.values()) == 1, calls
