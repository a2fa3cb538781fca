"""A journal's line that names an institution between commas is prose: an affiliation carries its sign (a mark
or number, a postcode, a country, an e-mail) and stands above a document's first paragraph."""

from __future__ import annotations

import pytest

from batchsum.backends.units import units_from_text

HOSPITAL = (
    "Busy Saturday.\n\n"
    "Drove Mom to St. Mary's Hospital for her knee scan at nine, picked up groceries on the way back, made lasagna "
    "for dinner with the kids\n\n"
    "Called Dad in the evening about the roof repair and the insurance claim.\n"
)
SCHOOL = (
    "Long day today and the car is still at the garage.\n\n"
    "Picked up Lily from School at three, then soccer practice in the rain, then homework with her until eight\n\n"
    "Lily scored her first goal of the season.\n"
)
# A country at its end, as an affiliation's: below the first paragraph, it is the journal's all the same.
MUSEUM = (
    "We flew in on Monday and slept most of the day.\n\n"
    "Spent the morning at the Art Institute with Anna, then lunch by the lake, Chicago, USA\n"
)
PAPER = (
    "Evening Light Delays Sleep Onset\n\n"
    "1 Department of Psychology, University of Lund, Box 117, 221 00 Lund, Sweden\n\n"
    "Abstract\n"
    "We followed 212 office workers for a year and measured when they fell asleep.\n"
)


@pytest.mark.parametrize(
    ("text", "line"),
    [(HOSPITAL, "St. Mary's Hospital"), (SCHOOL, "Lily from School"), (MUSEUM, "Art Institute")],
)
def test_a_journal_line_with_an_institution_and_commas_is_prose(text: str, line: str) -> None:
    units = [u for u in units_from_text(text, "journal") if line in u.text]
    assert units and all(u.whole for u in units), [u.text for u in units]


def test_an_affiliation_above_the_abstract_is_still_front_matter() -> None:
    units = units_from_text(PAPER, "document")
    assert not any("Department" in u.text for u in units)
    assert any(u.candidate and "212 office workers" in u.text for u in units)
