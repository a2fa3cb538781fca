"""A sponsor's read hard-wrapped over lines or hyphenated at a line's end is read as its sentence reads, so it is
no summary candidate (review: the lines had been asked raw, "Use the promo\ncode HARBOR" read as no ad)."""

from __future__ import annotations

import pytest

from batchsum.backends.units import units_from_text


@pytest.mark.parametrize(
    "ad",
    [
        "Use the promo\ncode HARBOR at Acme Bank, the bank for small businesses everywhere.",
        "This episode is spon-\nsored by Acme Bank, the bank for small businesses everywhere.",
    ],
)
def test_a_wrapped_sponsor_read_is_no_candidate(ad: str) -> None:
    text = (
        "We reviewed the roadmap for the next quarter today.\n\n"
        f"{ad}\n\nThe team agreed to ship the billing flow in March."
    )
    picked = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert not any("Acme Bank" in p for p in picked), picked
    assert any("billing flow" in p for p in picked), picked
