"""Ordinals written as digits and a period before a noun: "den 25. Hochzeitstag", "Omas 90. Geburtstag".

German writes an ordinal as "25." and capitalises every noun, so a capital after "25." cannot tell an
ordinal ("zum 13. Geburtstag") from a sentence that ends on a number ("Ich war 25. Dann ging ich."). What
can is the word class of what follows, as Punkt (Kiss & Strunk 2006) reads its orthographic evidence: a
word the language writes in lower case inside a sentence is no noun, so its capital marks a sentence's
start. Such a word is a function word of the language (an article, a pronoun, a conjunction: "Die", "Wir",
"Dann") or one the same paragraph writes in lower case ("heute" there, "Heute" after the number); any
other capitalised word after an ordinal is read as the noun it qualifies. That alone read "Der Bus kam um 8.
Leider war er voll." as one sentence: an adverb is capitalised at a sentence's start too, and a paragraph
need not write it in lower case. So the number must also stand where an ordinal does, as an adjective
after its determiner: an article ("den 25."), an article merged with its preposition ("zum 13.", "im
19."), a possessive or demonstrative ("sein 3."), or a name's genitive ("Omas 90."); a count stands after
a bare preposition or a verb ("um 8.", "bis 10.", "wurde 30."). The languages that write
ordinals this way but not their nouns in capitals (Danish, Norwegian, Finnish, Czech, Polish, Hungarian...)
need no rule: a lower-case word after the number already keeps the sentence whole, and a capital there
opens the next one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from batchsum.language import stop_words

__all__ = ["ordinal_before_noun"]

# Languages that capitalise all their nouns and write ordinals as digits and a period.
_NOUN_CAPITALISING = frozenset({"de"})

# Up to three digits: "1000." is rare as an ordinal, and a year ends a sentence ("im Jahr 1704. Leibniz").
# Not after another number and a dot: "3.5." is a date, read by the date rules.
_NUMBER_END = re.compile(r"(?<![\d.])\d{1,3}\.$")
_WORD = re.compile(r"[^\W\d_]+")
# The (up to) two words before the number: its determiner, and what stands before a genitive.
_CONTEXT = re.compile(r"(?:([^\W\d_]+)[^\w]*\s+)?([^\W\d_]+['’]?)[\"'“”„»«)]*\s+\d{1,3}\.$")
# What an attributive ordinal follows: an article, an article merged into its preposition, a possessive,
# a demonstrative or a quantifier ("jeden 2. Tag"), inflected. A bare preposition takes a count ("um 8").
_DETERMINERS = frozenset(
    """
    der die das den dem des ein eine einen einem einer eines
    am im zum zur vom beim ins ans aufs durchs fürs übers unters vors hinterm überm unterm vorm
    mein meine meinen meinem meiner meines dein deine deinen deinem deiner deines
    sein seine seinen seinem seiner seines ihr ihre ihren ihrem ihrer ihres
    unser unsere unseren unserem unserer unseres euer eure euren eurem eurer eures
    dieser diese diesen diesem dieses jener jene jenen jenem jenes jeder jede jeden jedem jedes
    kein keine keinen keinem keiner keines welcher welche welchen welchem welches
    """.split()
)


def ordinal_before_noun(text: str, pos: int, language: str) -> bool:
    """Whether the boundary at ``pos`` follows an ordinal ("25.") that a noun goes on from, in a language
    that capitalises its nouns: "den 25. Hochzeitstag" is one sentence, "Ich war 25. Dann ..." two."""
    if language not in _NOUN_CAPITALISING:
        return False
    # A few characters each side: copying the whole text at every boundary is quadratic on a long paragraph.
    before = text[max(0, pos - 64) : pos].rstrip()
    if _NUMBER_END.search(before) is None or not _ordinal_context(before):
        return False
    word = _WORD.match(text[pos : pos + 64].lstrip().lstrip("*_"))  # "25. *Geburtstag*"
    if word is None or not word.group()[0].isupper():
        return False
    lower = word.group().lower()
    return lower not in stop_words(language) and lower not in _lower_case_words(text)


def _ordinal_context(before: str) -> bool:
    """Whether the number ending ``before`` follows a determiner, or a name's genitive ("Omas", "Hans'")
    that no determiner precedes ("im Haus 5." is a house's number)."""
    m = _CONTEXT.search(before)
    if m is None:
        return False
    prior, word = m.group(1), m.group(2)
    if word.lower() in _DETERMINERS:
        return True
    # A capitalised pronoun ending in -s ("Es", "Alles") is a function word, no name.
    genitive = word[0].isupper() and (word.endswith(("'", "’")) or (word.endswith("s") and not word.endswith("ss")))
    return genitive and word.lower() not in stop_words("de") and (prior is None or prior.lower() not in _DETERMINERS)


@lru_cache(maxsize=4)
def _lower_case_words(text: str) -> frozenset[str]:
    """The words ``text`` writes in lower case: read once per paragraph, however many numbers it holds."""
    return frozenset(w for w in _WORD.findall(text) if w.islower())
