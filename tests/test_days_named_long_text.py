"""``days_named`` on a long paragraph (search looks for the asked day in every paragraph of a source): an
everyday "10 may" is judged by the words around it in place, so a paragraph of thousands of them is read in
linear time, and what it finds is what a short text gives."""

from __future__ import annotations

from batchsum.periods import days_named


def test_a_paragraph_of_everyday_mays_names_no_day_and_a_dated_one_its_day() -> None:
    filler = "we think 10 may be too many for the team today. " * 20_000  # ~1 MB: quadratic took hours
    assert days_named(filler) == []
    assert days_named(filler + "Filed on 10 May 2024.") == ["2024-05-10"]
    assert days_named("le 14 mars") == ["--03-14"] and days_named("sole 14 mars") == []
    assert days_named("10 may") == ["--05-10"] and days_named("top 10 may be wrong") == []
