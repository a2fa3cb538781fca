"""A name after a sentence's capitalised first word is an entity ("Yesterday Angela Merkel met"); only the
tail of a name the sentence opens is none ("Lena Fischer said" where Lena speaks or "Dr. Lena Fischer" is
named elsewhere)."""

from __future__ import annotations

from batchsum.facets import extract_facets


def test_a_name_after_an_opening_adverb_is_an_entity() -> None:
    text = (
        "Ana: Yesterday Angela Merkel met the press in the morning.\n"
        "Ben: Afterwards Angela Merkel flew home to rest.\n"
        "Ana: Good, we will brief the board on Monday."
    )
    assert "Angela Merkel" in extract_facets(text).entities


def test_the_tail_of_a_name_the_sentence_opens_is_none() -> None:
    text = (
        "Ana: We asked Hugo Brandt about the harbor and the tides.\n"
        "Ben: Hugo Brandt said the storms move the sediment.\n"
        "Ana: Hugo Brandt wrote that up in the report for us."
    )
    entities = extract_facets(text).entities
    assert "Brandt" not in entities, entities
