"""A paragraph of thousands of prices and catalogue marks is classified by pairing each mark with the prices
near it, not with every price (``is_back_matter`` had compared every pair: 20,000 prices and 5,000 marks took
14 s a call, now 0.6 s, most of it finding them)."""

from __future__ import annotations

from batchsum.backends.back_matter import is_back_matter

# A price ("6s.") and a count of pages ("16 pp."), each prose alone and never within a few words of the other.
_PRICES = " ".join(["It cost 6s. at the fair in the old town."] * 20_000)
_PAGES = " ".join(["He read 16 pp. that night by the lamp."] * 5_000)


def test_thousands_of_prices_far_from_their_marks_are_prose() -> None:
    assert not is_back_matter(f"{_PRICES} {_PAGES}")


def test_one_catalogue_entry_after_thousands_of_prices_is_a_catalogue() -> None:
    assert is_back_matter(f"{_PRICES} {_PAGES} Poems, 2 vols., 7s. 6d.")
    assert is_back_matter(f"Poems, 2 vols., 7s. 6d. {_PAGES} {_PRICES}")
