"""Where a segmenter's sentence boundary is none, or where it missed one: the rules :mod:`batchsum.text` applies
to ``sentencex``'s boundaries in every language but English.

A sentence never opens with a bound particle or with clause punctuation, so a quotation closed by ``！”`` or
``。」`` that a particle or a comma follows goes on ("“咋！咋咋咋咋！”地叫着", "「ええ、まあ。」と云いながら"). Initials
and two-letter abbreviation pairs end no sentence, in any script and width ("z. B.", "т. е.", "Ｕ．Ｓ．Ａ．"). And
an abbreviation that often closes a sentence does close it before a capitalised word that is no name it
qualifies (Mikheev 2002, "Periods, Capitalized Words, etc."): "и т. д. Вечером", "2024 г. Потом", "usw. Danach".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from batchsum.abbreviations import SENTENCE_FINAL, SHORT_FORMS, YEAR_FORMS
from batchsum.language import stop_words

__all__ = [
    "abbreviation_pair",
    "after_initial",
    "clause_follows",
    "final_abbreviation_cuts",
    "quote_goes_on",
    "short_form",
]

_OPENERS = "\"'“‘«„([-—–*•¿¡"
_QUOTE_CLOSERS = ("」", "』", "”", "’", "）", "》", "〉", "】", '"', "'")
# What a sentence never opens with after a closed quotation: a Japanese particle that reports it (と, って, ...),
# or a Chinese bound particle (structural 的/地/得, aspect 了/着/过, modal 吗/呢/吧) or a word that takes the
# quotation as its clause's own (时 "when", 便/就 "then", 说/道 "says"): "“咋！咋咋咋咋！”地叫着",
# "“你明天去哪儿？”的时候".
_BOUND_AFTER_QUOTE = re.compile(r"\s*(?:と|って|とか|ぐらい|くらい|など|なんて|[的地得了着过吗呢吧啊呀嘛时便就说道])")
# Punctuation that goes on a clause, half- and full-width: a sentence never opens with it.
_CLAUSE_MARKS = ",;:，、；："


def quote_goes_on(text: str, pos: int) -> bool:
    """Whether a closed quotation before ``pos`` is part of a sentence that goes on at ``pos`` with a particle."""
    return text[max(0, pos - 8) : pos].rstrip().endswith(_QUOTE_CLOSERS) and (
        _BOUND_AFTER_QUOTE.match(text, pos) is not None
    )


def clause_follows(text: str, pos: int) -> bool:
    """Whether the text at ``pos`` goes on with clause punctuation: "un printemps de 18..., dont", "“救命！”，然后"."""
    rest = text[pos : pos + 16].lstrip()
    return rest[:1] != "" and rest[0] in _CLAUSE_MARKS


def after_initial(text: str, pos: int) -> bool:
    """Whether the text before ``pos`` ends with an initial or a one-letter title: "M. Eyssette", "D. Pedro", and in
    full-width letters "Ｕ．Ｓ．Ａ．の話" (read in their ASCII forms; the text keeps its own)."""
    before = unicodedata.normalize("NFKC", text[max(0, pos - 12) : pos]).rstrip()
    return len(before) >= 2 and before[-1] == "." and before[-2].isupper() and not before[-3:-2].isalpha()


# A lower-case abbreviation of one or two letters and a one-letter one: "z. B.", "т. е.", "d. h.", "u. a.".
_PAIR_END = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,2}\.\s?[^\W\d_]\.$")
_PAIR_HEAD = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,2}\.$")
_ONE_LETTER = re.compile(r"\s*[^\W\d_]\.")


def abbreviation_pair(text: str, pos: int) -> bool:
    """Whether the boundary at ``pos`` lies inside or right after an abbreviation pair ("z. | B.", "т. е. |
    Иван"), in a file of any language: a Latin-script "z. B." in a Russian entry is one too. A pair that often
    ends a sentence does end one before a capital (:func:`final_abbreviation_cuts`)."""
    before = text[max(0, pos - 12) : pos].rstrip()
    pair = _PAIR_END.search(before)
    if pair is not None and pair.group(0)[0].islower():
        return True
    head = _PAIR_HEAD.search(before)
    return head is not None and head.group(0)[0].islower() and _ONE_LETTER.match(text, pos) is not None


def short_form(text: str, pos: int, language: str) -> bool:
    """Whether the boundary at ``pos`` follows one of ``language``'s short forms (``SHORT_FORMS``), or is an
    ordinal's stop before one ("im 18. Jh.")."""
    forms = SHORT_FORMS.get(language)
    head = text[max(0, pos - 40) : pos].rstrip()
    if not forms or not head.endswith("."):
        return False
    before = head[:-1].rsplit(None, 1)
    if before and before[-1].lower() in forms:
        return True
    after = text[pos : pos + 40].split(None, 1)
    return bool(before) and before[-1].isdigit() and bool(after) and after[0].rstrip(".").lower() in forms


@lru_cache(maxsize=8)
def _final_forms(language: str) -> re.Pattern[str] | None:
    """``language``'s sentence-final abbreviations as one pattern, spaces inside them optional ("и т.д.")."""
    forms = [r"\.\s*".join(_spaced(part) for part in form.split(". ")) for form in SENTENCE_FINAL.get(language, ())]
    years = [re.escape(form) for form in YEAR_FORMS.get(language, ())]
    alternatives = [rf"(?<![^\W\d_])(?:{'|'.join(forms)})\."] if forms else []
    if years:
        # Only after a year ("3 мая 2024 г.", "1990–1995 гг."): before a place's name "г." is "город" ("г. Москва").
        alternatives.append(rf"(?<!\d)\d{{3,4}}(?:[–-]\d{{2,4}})?\s*(?:{'|'.join(years)})\.")
    return re.compile("|".join(alternatives)) if alternatives else None


def _spaced(part: str) -> str:
    return re.escape(part).replace(r"\ ", r"\s+")


_NEXT_WORD = re.compile(r"\s+[" + re.escape(_OPENERS) + r"]*([^\W\d_]+)(?!\w)(\.?)")
# Languages that capitalise all their nouns: there a capital after an abbreviation may be the noun it qualifies
# ("nach 2 Std. Fahrt"), so only a function word's capital, or a word the paragraph also writes in lower case,
# opens a sentence (as :mod:`batchsum.ordinals` reads one after an ordinal).
_NOUN_CAPITALISING = frozenset({"de"})
# Sentence adverbs the stop-word list lacks, which open a sentence after "usw." or "Std." more than any other.
_GERMAN_OPENERS = frozenset(
    "danach daher dabei damals darauf dadurch deshalb deswegen trotzdem später anschließend zuerst schließlich "
    "leider heute gestern morgen abends morgens mittags nachmittags".split()
)


def final_abbreviation_cuts(text: str, start: int, end: int, language: str) -> list[int]:
    """Positions in ``text[start:end]`` where a sentence ends on an abbreviation that often ends one ("и т. д.",
    "2024 г.", "usw.", "ca. 2 Std."): the next word is capitalised, no initial ("и т. д. А. С. Пушкин") and,
    where nouns are capitalised, a function word (not "2 Std. Fahrt")."""
    pattern = _final_forms(language)
    if pattern is None:
        return []
    cuts: list[int] = []
    for m in pattern.finditer(text, start, end):
        word = _NEXT_WORD.match(text, m.end(), end)
        # One letter and a period is an initial: "и т. д. А. С. Пушкин" goes on to the name ("и т. д. А потом" not).
        if word is None or not word.group(1)[0].isupper() or (len(word.group(1)) == 1 and word.group(2)):
            continue
        if language in _NOUN_CAPITALISING and not _opens_clause(word.group(1).lower(), text, language):
            continue
        cuts.append(m.end())
    return cuts


def _opens_clause(word: str, text: str, language: str) -> bool:
    """Whether the lower-cased ``word`` is one ``language`` writes in lower case inside a sentence: a function
    word, a sentence adverb, or a word ``text`` itself writes in lower case."""
    if word in stop_words(language) or (language == "de" and word in _GERMAN_OPENERS):
        return True
    return re.search(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])", text) is not None
