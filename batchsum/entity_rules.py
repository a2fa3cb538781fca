"""Capitalised words that are no names, whatever their capital says (the entity rules of :mod:`batchsum.facets`).

* a unit, a plural after a number: "three Francs per item" (not "£24 million Welsh Government");
* a role title, a participant's role label and more after a possessive or an article: "our Marketing Expert"
  where "Marketing" speaks, "the User Interface Designer" where "User Interface" does;
* an interjection: "Oh my God.", "Thank God, it works" (each time the word is said);
* a demonym as an adjective, after an article and before a noun: "the Italian data", "the Spanish team".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["not_names"]

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


def not_names(prose: str, capitalised: Iterable[re.Match[str]], participants: Iterable[str]) -> set[str]:
    """The capitalised runs (``capitalised``: matches in ``prose``, group 1 the run) that are no names:
    units, role titles, interjections and demonym adjectives (see the module). ``participants``: the speakers'
    labels ("Marketing", "User Interface")."""
    labels = [p.casefold() + " " for p in participants]
    out: set[str] = set()
    exclaimed: dict[str, bool] = {}
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
    return out | {name for name, always in exclaimed.items() if always}
