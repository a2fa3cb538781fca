"""A sentence whose subject is a demonstrative followed by its verb ("This made my mum sad.", "This must not be in
future.") points back at a clause, and one that cites a listing or a figure points at what no summary shows: both
lean on what a summary leaves out, so a one-line summary's further sentences pass them over."""

from __future__ import annotations

import pytest

from batchsum.backends.noise import needs_context


@pytest.mark.parametrize(
    "sentence",
    [
        "This made my mum kind of sad.",
        "This must not be in future.",
        "That was why we left.",
        "These also made the roads worse.",
        "The vector holds the values as shown in Listing 8-1.",
        "Figure 2 plots the rates.",
    ],
)
def test_a_demonstrative_subject_or_a_listings_number_leans_back(sentence: str) -> None:
    assert needs_context(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "This morning we walked to the lake.",
        "That evening the band played until late.",
        "These results show a clear fall in the rate.",
        "This book was written in a fortnight.",
        "He listed the figures in a table.",
    ],
)
def test_a_demonstrative_before_its_noun_does_not(sentence: str) -> None:
    assert not needs_context(sentence)
