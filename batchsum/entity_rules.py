"""Capitalised words that are no names, whatever their capital says (the entity rules of :mod:`batchsum.facets`).

* a unit, a plural after a number: "three Francs per item" (not "£24 million Welsh Government");
* a role title, a participant's role label and more after a possessive or an article: "our Marketing Expert"
  where "Marketing" speaks, "the User Interface Designer" where "User Interface" does;
* an interjection: "Oh my God.", "Thank God, it works" (each time the word is said);
* a demonym as an adjective, after an article and before a noun: "the Italian data", "the Spanish team";
* an office or a legislature's paper that always takes an article or a possessive: "the Minister", "the Bill";

and the capitals that are no names (:func:`not_a_code_name`): an amount's currency code ("JPY3.6 billion",
"EUR 1.2 billion") and a fiscal or calendar period ("FY24", "Q3", "1H25", "CY2025").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["not_a_code_name", "not_names"]

_NUMBER = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|million|billion|\d+(?:[.,]\d+)*)"
)
_UNIT_BEFORE = re.compile(rf"(?<![\w$€£.,-]){_NUMBER} $", re.I)  # not "$4-billion Canada housing benefit"
_DETERMINER = re.compile(r"\b(?:the|a|an|our|my|your|his|her|their|its|this|that|these|those) $", re.I)
_INTERJECTION_BEFORE = re.compile(r"\b(?:oh|my|thank|good|dear) $", re.I)
_INTERJECTION_AFTER = re.compile(r"\s?[.,!?]|'s sake\b")
_DEMONYM = re.compile(r"[A-Z][a-z]+(?:ian|ean|ese|ish)")  # "Italian", "European", "Chinese", "Spanish"
_NOUN_AFTER = re.compile(r" [a-z]{3,}\b")
# Offices and a legislature's papers, which a text capitalises as titles ("the Minister", "the Bill").
_TITLES = frozenset(
    """minister ministers chair chairman chairwoman chairperson speaker member members president secretary senator
    premier chancellor governor mayor clerk commissioner director bill bills act motion amendment""".split()
)
# A period of a company's year: "FY24", "FY2025", "Q3", "3Q21", "1H25", "H2", "CY24".
_PERIOD = re.compile(r"(?:FY|CY|[HQ][1-4]|[1-4][HQ])(?:'?\d{2}|\d{4})?")
_SCALE = r"(?:thousand|million|billion|trillion|bn|mn|mm|[kmb])\b"
# What follows a currency code glued to its number ("JPY3" of "JPY3.6 billion", "EUR1 billion"), or standing
# before it ("EUR 1.2 billion").
_AMOUNT_GLUED = re.compile(rf"[.,]\d|\s?{_SCALE}", re.I)
_AMOUNT_APART = re.compile(rf" \d[\d.,]*\s?{_SCALE}", re.I)


def not_a_code_name(prose: str, m: re.Match[str]) -> bool:
    """Whether an acronym or identifier (``m``, a match in ``prose``, group 1 the word) is no name: a fiscal
    period, or the currency code of an amount (a match cut at its number's decimal point is one too)."""
    word = m.group(1)
    if _PERIOD.fullmatch(word):
        return True
    if re.fullmatch(r"[A-Z]{2,}\d+", word):
        return _AMOUNT_GLUED.match(prose, m.end()) is not None
    return word.isupper() and _AMOUNT_APART.match(prose, m.end()) is not None


def not_names(prose: str, capitalised: Iterable[re.Match[str]], participants: Iterable[str]) -> set[str]:
    """The capitalised runs (``capitalised``: matches in ``prose``, group 1 the run) that are no names:
    units, role titles, interjections and demonym adjectives (see the module). ``participants``: the speakers'
    labels ("Marketing", "User Interface")."""
    labels = [p.casefold() + " " for p in participants]
    out: set[str] = set()
    exclaimed: dict[str, bool] = {}
    determined: dict[str, bool] = {}
    for m in capitalised:
        name = m.group(1)
        before = prose[max(0, m.start() - 40) : m.start()]
        if _UNIT_BEFORE.search(before) and re.fullmatch(r"[A-Z][a-z]+s", name):  # not "£24 million Welsh Government"
            out.add(name)
        elif _DETERMINER.search(before) and " " in name and name.casefold().startswith(tuple(labels)):
            out.add(name)  # "our Marketing Expert"
        elif _DETERMINER.search(before) and _DEMONYM.fullmatch(name) and _NOUN_AFTER.match(prose, m.end()):
            out.add(name)  # "the Italian data"
        interjected = (
            bool(_INTERJECTION_BEFORE.search(before)) and _INTERJECTION_AFTER.match(prose, m.end()) is not None
        )
        exclaimed[name] = exclaimed.get(name, True) and interjected
        title = name.casefold() in _TITLES
        determined[name] = determined.get(name, True) and title and bool(_DETERMINER.search(before))
    # An office or a legislature's paper that always takes an article is a common noun the text capitalises
    # ("the Minister", "the Bill"), not a name; the institution itself may be one ("the House" of Commons), and
    # a title before a name is part of it ("Minister Freeland").
    return out | {name for name, always in exclaimed.items() if always} | {n for n, a in determined.items() if a}
