"""An abbreviation that is a word too ("no", "sun", "sec") is one only before a number: "No. 5" keeps the word
after it as it was, "okay. no. the vendor said" ends a sentence at "no." and the cleaner capitalises the next."""

from __future__ import annotations

from batchsum.backends.units import units_from_text
from batchsum.cleanup import clean_transcript


def test_a_word_after_no_opens_a_sentence() -> None:
    cleaned = clean_transcript("okay. no. the vendor said march.\nwe shipped on sun. it rained.")
    assert "No. The vendor" in cleaned and "sun. It rained" in cleaned, cleaned


def test_before_a_number_it_stays_an_abbreviation() -> None:
    cleaned = clean_transcript("see no. 5 and sec. 4 of the deal. then vs. last year Apple Inc. reported.")
    assert "no. 5" in cleaned and "sec. 4" in cleaned and "vs. last" in cleaned and "Inc. reported" in cleaned, cleaned


def test_a_turn_that_answers_no_is_two_sentences() -> None:
    units = units_from_text("ana: can we ship?\nben: no. we can't ship it on friday.\n", "conversation")
    bodies = [u.body for u in units]
    assert "No." in bodies and any(b.startswith("We can't ship") for b in bodies), bodies
