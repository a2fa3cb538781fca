"""After "D.C.", "U.S." or joined initials the word that follows decides whether the sentence ends (Kiss & Strunk
2006, Punkt): a sentence starter ("The", "He", "It") or a word the text writes in lower case elsewhere ends it;
a name, or a noun the abbreviation qualifies, goes on; a capitalised word before initials makes them a name's
middle ("President J.F. Kennedy")."""

from __future__ import annotations

import pytest

from batchsum.text import split_sentences


def _split(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("He moved to Washington D.C. The next day he started work.", "He moved to Washington D.C."),
        ("Sales grew in the U.S. The next quarter was flat.", "Sales grew in the U.S."),
        ("She was famous in the U.K. It never reached Spain.", "She was famous in the U.K."),
        ("He earned his Ph.D. Then he left for Boston.", "He earned his Ph.D."),
        # "traffic" is a word of this text, not a name.
        ("We drove around D.C. Traffic cameras showed a crash. The traffic slowed.", "We drove around D.C."),
    ],
)
def test_a_place_or_initials_before_a_sentence_starter_end_the_sentence(text: str, first: str) -> None:
    sentences = _split(text)
    assert sentences[0] == first and sentences[1][:1].isupper(), sentences


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("The U.S. Army sent troops. Army units followed.", "The U.S. Army sent troops."),
        ("The U.K. Treasury sold bonds.", "The U.K. Treasury sold bonds."),
        ("Washington D.C. Traffic Division officers fined him. Traffic Division officers were polite.", "D.C. Traffic"),
        ("The loan came from Banco S.A. Santander in May. It was repaid.", "Banco S.A. Santander"),
        ("See e.g. The Beatles for a band that did.", "e.g. The Beatles"),
        # A surname that opens another sentence is still a name after a title and its initials (review).
        ("Kennedy won Ohio. President J.F. Kennedy spoke in Dallas.", "President J.F. Kennedy spoke"),
        ("Smith called early. Then Agent J.K. Smith arrived at noon.", "Agent J.K. Smith arrived"),
    ],
)
def test_a_name_or_a_noun_after_the_abbreviation_goes_on(text: str, whole: str) -> None:
    assert any(whole in s for s in _split(text)), _split(text)
