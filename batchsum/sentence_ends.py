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

from batchsum.abbreviations import PAIR_HEADS, SENTENCE_FINAL, SHORT_FORMS, YEAR_FORMS
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
# or a Chinese bound particle (structural 的/地/得, aspect 着, modal 吗/呢/吧/嘛) or 便 "then", which take the
# quotation as their clause's own: "“咋！咋咋咋咋！”地叫着", "「ええ、まあ。」と云いながら". Each character but where it
# opens a word that does open sentences (地铁, 的确, 得到, 便宜, ところが, とても), and 时 "when" only before a comma
# ("“去哪儿？”时，", not 时间). Not 了, 过, 就, 说, 道, 啊, 呀: they open sentences too (了解, 过了一会儿, 就在这时,
# 说实话, 道路, 啊，).
_OPENS_WORD = {
    "と": "ころ|にかく|ても|もかく|うとう|きどき|りあえず",
    "的": "[确士哥]",
    "地": "[铁方上下面图球点址区震板位毯里主道]",
    "得": "[到知意罪失了]",
    "着": "[急实手想凉火迷]",
    "便": "[利宜当衣条签秘饭服]",
    "吗": "啡",
    "呢": "[喃子绒]",
    "吧": "[台女]",
}
_BOUND_AFTER_QUOTE = re.compile(
    r"\s*(?:って|とか|ぐらい|くらい|など|なんて|时(?=[，、,])|"
    + "|".join(f"{re.escape(c)}(?!{word})" for c, word in _OPENS_WORD.items())
    + "|嘛)"
)
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


# A pair's head (``PAIR_HEADS``) and a one-letter abbreviation: "z. B.", "т. е.", "d. h.", "u. a.".
_PAIR_END = re.compile(r"(?<![^\W\d_])([^\W\d_])\.\s?[^\W\d_]\.$")
_PAIR_HEAD = re.compile(r"(?<![^\W\d_])([^\W\d_])\.$")
_ONE_LETTER = re.compile(r"\s*[^\W\d_]\.")


def abbreviation_pair(text: str, pos: int) -> bool:
    """Whether the boundary at ``pos`` lies inside or right after an abbreviation pair ("z. | B.", "т. е. |
    Иван"), in a file of any language: a Latin-script "z. B." in a Russian entry is one too. A pair that often
    ends a sentence does end one before a capital (:func:`final_abbreviation_cuts`)."""
    before = text[max(0, pos - 12) : pos].rstrip()
    pair = _PAIR_END.search(before)
    if pair is not None and pair.group(1) in PAIR_HEADS:
        return True
    head = _PAIR_HEAD.search(before)
    return head is not None and head.group(1) in PAIR_HEADS and _ONE_LETTER.match(text, pos) is not None


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
# Sentence adverbs the stop-word lists lack, which open a sentence after "usw.", "Std." or "и т. д." more than
# any other word.
_SENTENCE_ADVERBS: dict[str, frozenset[str]] = {
    "de": frozenset(
        "danach daher dabei damals darauf dadurch deshalb deswegen trotzdem später anschließend zuerst schließlich "
        "leider heute gestern morgen abends morgens mittags nachmittags".split()
    ),
    "ru": frozenset(
        "вечером утром днём днем ночью вчера завтра сначала наконец теперь поэтому однако впрочем позже".split()
    ),
}


def final_abbreviation_cuts(text: str, start: int, end: int, language: str) -> list[int]:
    """Positions in ``text[start:end]`` where a sentence ends on an abbreviation that often ends one ("и т. д.",
    "2024 г.", "usw.", "ca. 2 Std."): the next word is capitalised, no initial ("и т. д. А. С. Пушкин") and opens
    a clause (:func:`_opens_clause`: "2024 г. Потом", not "1812 г. Наполеон" or "2 Std. Fahrt")."""
    pattern = _final_forms(language)
    if pattern is None:
        return []
    cuts: list[int] = []
    for m in pattern.finditer(text, start, end):
        word = _NEXT_WORD.match(text, m.end(), end)
        # One letter and a period is an initial: "и т. д. А. С. Пушкин" goes on to the name ("и т. д. А потом" not).
        if word is None or not word.group(1)[0].isupper() or (len(word.group(1)) == 1 and word.group(2)):
            continue
        if _opens_clause(word.group(1).lower(), language):
            cuts.append(m.end())
    return cuts


def _opens_clause(word: str, language: str) -> bool:
    """Whether the lower-cased ``word`` opens a clause in ``language``: a function word or a sentence adverb. A
    capital after an abbreviation is as often a name or a noun it qualifies ("1812 г. Наполеон", "2 Std. Fahrt",
    "и др. Пушкин"), and the word alone decides: no other part of the paragraph, however long, is read."""
    return word in stop_words(language) or word in _SENTENCE_ADVERBS.get(language, frozenset())
