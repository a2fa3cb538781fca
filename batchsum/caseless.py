"""Sentence ends in a text without letter case (scraped papers, lower-cased throughout): where no capital opens
a sentence, the splitter's reading of a lower-case word after a period as the same sentence going on means
nothing, so there a period before a lower-case word ends its sentence unless an abbreviation or an initial
explains it. Case is used only where the text shows it (Mikheev 2002, "Periods, Capitalized Words, etc.")."""

from __future__ import annotations

import re

from batchsum.text import ABBREVIATIONS

__all__ = ["capitalised", "split_lowercase"]

# A sentence's start after a stop: with a capital, or in lower case (a lower-cased text: scraped papers).
_UPPER_START = re.compile(r"[.!?][\"'”’)\]]*\s+[\"'“‘(]*[A-Z]")
_LOWER_START = re.compile(r"[.!?][\"'”’)\]]*\s+[\"'“‘(]*[a-z]")


def capitalised(text: str) -> bool:
    """Whether ``text`` opens its sentences with capitals (most texts; not a lower-cased one, whose headings
    are in lower case too and whose next line opens in lower case whatever it is)."""
    return len(_LOWER_START.findall(text)) <= len(_UPPER_START.findall(text))


# A period, then a lower-case word: a sentence end in lower-cased English text (scraped papers, chat logs)
# unless the word before is an abbreviation or an initial ("e.g. the", "l. angustifolius"). Other languages
# are split by their own rules, which know their abbreviations (Spanish "cuando Vd. quiera").
_LOWER_BREAK = re.compile(r"(?<=[a-z0-9>)\]][.!?])\s+(?=[a-z<(])")
# A title ("stirred up Mr. and Mrs. Moreen" in a long sentence of a book) is an abbreviation too.
_NO_BREAK_BEFORE = ABBREVIATIONS | frozenset("ca resp ref refs sp spp var".split())
# In a text with case, a lower-case word after a period goes on a sentence shorter than this.
_RUN_ON_WORDS = 40


def split_lowercase(sentence: str, cased: bool = True) -> list[str]:
    """Split a 'sentence' that is really several lower-case sentences run together: a long one in a text with
    case (``cased``: a lower-case word after a period mostly goes on the sentence there), any one in a text
    without, where it is the same sentence's capital that no one wrote."""
    if (cased and len(sentence.split()) < _RUN_ON_WORDS) or ". " not in sentence:
        return [sentence]
    out: list[str] = []
    start = 0
    for m in _LOWER_BREAK.finditer(sentence):
        before = sentence[start : m.start()].rsplit(None, 1)[-1].rstrip(".!?").lower() if m.start() > start else ""
        # A lone letter is an initial ("l. angustifolius"); a lone digit ends a sentence where no case tells
        # ("... in additional file 3. b graphical ..."), as "file 3. B" does where case does.
        if (len(before) <= 1 and not (before.isdigit() and not cased)) or before in _NO_BREAK_BEFORE:
            continue
        out.append(sentence[start : m.start()].strip())
        start = m.end()
    out.append(sentence[start:].strip())
    return [s for s in out if s]
