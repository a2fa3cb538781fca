"""Each reading the units' builder makes of a text is made once: whether a paragraph's lines are units of their
own (text.lines_are_items). The functions are wrapped to
count their calls; what they answer, and the whole pipeline, are the real ones."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

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
