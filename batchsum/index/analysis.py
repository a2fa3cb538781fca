"""Text analysis for the lexical index: the same words for a document and for a query, in any language.

* **Words** are runs of letters and digits, lowercased; letters spelled one by one ("L_C_D_", "U.S.A.")
  are joined first, and a number keeps its decimals and thousands ("38.6", "1,450": :data:`NUMBER`).
  English function words (:data:`~batchsum.index.embed.STOPWORDS`) and one-letter words are dropped in
  every language: they carry no topic, and a mixed index must drop them alike. A document's own language
  drops its function words too: Snowball's stop word lists, packaged (``index/data/snowball-stopwords.json``,
  BSD), the short lists made for these stemmers: German "die", "ist", "das" are no words of a German text,
  while English "die" stays one of an English text.
* **Stemming** is Snowball (the ``PyStemmer`` package) in the document's language: the front matter's
  ``language`` when a run recorded one, else the script's usual language (Latin: English; Cyrillic:
  Russian; Greek: Greek; Arabic: Arabic). "died", "dies" and "dying" all become "die".
* **Chinese, Japanese and Korean** have no spaces between words: a run of Han, kana or Hangul becomes
  its overlapping character bigrams, as Lucene's ``CJKAnalyzer`` does (a lone character stays a
  unigram), so "预算会议" is "预算 算会 会议" and a query of two characters is one bigram. This needs no
  dictionary and is decided by script, whatever language the document was tagged with. A query's bigrams
  holding hiragana (Japanese particles and verb endings: "京都で何をしましたか" is 京都 and its grammar) are
  left out when it has other terms (:func:`grammar_bigrams`).
* **Dates** are read as what they name. A CJK date phrase is no word "月", "日" or "年" (a lone one is in every
  dated heading: "7月" had found any month's entries): "2024年" is the year "2024", as English writes it,
  "7月" the month term "7月" (Korean "7월" too), and "7月11日" that month and its day. A day written in any
  language the month names are read in ("11 July", "7月11日", "11 июля", "2024-07-11") is also the day term
  "--07-11" (:func:`day_term`, the form :func:`~batchsum.periods.days_named` gives a day of any year), so a
  query's day finds the entry that writes it, whatever its language.
* **A query's language is unknown** (a few words say little). Each query word becomes a group: its
  stems under every language the index holds in which it is not a function word, plus the siblings that
  Snowball keeps apart: English derivational ones ("decid" from "decide", "decis" from "decision"), a Russian
  noun's in -ан/-ал ("рестора" from "ресторан", "ресторан" from "ресторане": :func:`_siblings`).
  BM25 scores a group as one term, its frequency the sum of its members' (Lucene's ``SynonymQuery``).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from batchsum.index.embed import STOPWORDS
from batchsum.language import HAN, HANGUL, KANA
from batchsum.periods import MONTH_LANGUAGES, MONTH_WORDS, days_named, months_named
from batchsum.readers.decoding import plain_letters

DEFAULT_LANGUAGE = "english"
# ISO 639-1/-3 codes and English names -> Snowball algorithm names (those PyStemmer ships).
_ISO = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian", "nn": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
    "deu": "german", "ger": "german", "fra": "french", "fre": "french", "spa": "spanish", "rus": "russian",
    "eng": "english", "ita": "italian", "por": "portuguese", "nld": "dutch", "swe": "swedish",
}  # fmt: skip
# Languages written without spaces: analysed as CJK bigrams, never stemmed.
CJK_LANGUAGES = frozenset({"zh", "ja", "ko", "zho", "chi", "jpn", "kor", "chinese", "japanese", "korean"})

CJK_CLASS = KANA + HAN + HANGUL
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_HIRAGANA = re.compile("[\u3041-\u309f]")
_HIRAGANA_RUN = re.compile("[\u3041-\u309f]+")
# A number with its decimals or thousands ("38.6", "4.10", "1,450", "1.450,50") is one word: split at its
# separator, its pieces were other numbers' ("38.6%" matched "38") or one digit, too short a word to index.
# Pieces of a date or a version ("14.03.2025", "192.168.1.1": groups other than thousands, more than one
# separator) stay words of their own, so "2025" still finds the date.
NUMBER = r"(?<![\d.,])(?:\d{1,3}(?:(?P<sep>[.,])\d{3})(?:(?P=sep)\d{3})*(?:(?!(?P=sep))[.,]\d+)?|\d+[.,]\d+)(?![.,]?\d)"
_TOKEN = re.compile(rf"{NUMBER}|[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
# Letters spelled one by one: "L_C_D_" (transcripts), "U.S.A." (prose), with a plural or possessive "s".
# Split, each letter would be dropped as a one-letter word and "LCD" could never match.
_SPELLED = re.compile(r"(?<![^\W_])((?:[^\W\d_][_.]){2,})(?:'?s\b)?", re.UNICODE)
# A CJK date phrase: "2024年7月11日", "7月11日", "7月", "2024年", Korean "2024년 7월 11일", Chinese "11号"; a day's
# number alone ("11日") is that number. A number and its unit are written together; only Korean spaces its
# parts ("2024년 7월"), so a heading's "Chapter 2" above "日本の歴史" is no date. A 日 before another ideograph
# may open a word instead ("10日本円": ten yen of 日本円), and is left to the words.
_DAY_UNIT = rf"(?:日(?![{HAN}])|일|号)"
CJK_DATE = re.compile(
    rf"(?<![\d.,])(?:(?:(?P<y>\d{{4}})(?:年|년 ?))?(?P<m>\d{{1,2}})[月월](?:(?:(?<=월) )?(?P<d>\d{{1,2}}){_DAY_UNIT})?"
    rf"|(?P<year>\d{{4}})[年년]|(?P<day>\d{{1,2}}){_DAY_UNIT})"
)
_DIGIT = re.compile(r"\d")
_ISO_DATE = re.compile(r"\d-\d\d-\d")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_GREEK = re.compile(r"[\u0370-\u03ff]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")
# Snowball's English stems of a verb and of its -ion noun differ in their last letter ("decid"/"decis",
# "provid"/"provis", "conclud"/"conclus", "explod"/"explos"); a query stem also reaches its sibling.
_SIBLING = re.compile(r"^(\w{3,}[aeiou])([ds])$")


def snowball_name(language: str | None) -> str | None:
    """The Snowball algorithm for a language code or name ("de", "german"); None when there is none."""
    if not language:
        return None
    key = language.strip().lower().replace("_", "-").split("-")[0]
    if key in CJK_LANGUAGES:
        return None
    name = _ISO.get(key, key)
    return name if name in _algorithms() else None


@functools.cache
def _algorithms() -> frozenset[str]:
    import Stemmer

    return frozenset(Stemmer.algorithms())


@functools.cache
def _stemmer(name: str) -> Any:
    import Stemmer

    stemmer = Stemmer.Stemmer(name)
    stemmer.maxCacheSize = 100_000
    return stemmer


@functools.cache
def function_words(name: str | None) -> frozenset[str]:
    """Snowball's stop word list of the Snowball language ``name`` (lowercased); empty when it has none.
    English's own are :data:`~batchsum.index.embed.STOPWORDS`, dropped in every language."""
    return frozenset(_stop_lists().get(name, ())) if name else frozenset()


@functools.cache
def _stop_lists() -> dict[str, list[str]]:
    """Snowball's stop word lists by language (``index/data/snowball-stopwords.json``)."""
    from importlib.resources import files

    data = json.loads(files("batchsum.index").joinpath("data", "snowball-stopwords.json").read_text("utf-8"))
    return dict(data["words"])


@functools.cache
def worded_languages() -> tuple[str, ...]:
    """The Snowball languages whose function words batchsum knows (English and those of Snowball's lists): a
    query read in any of them, when the index's languages are not at hand, drops the function words of the
    one it is written in (:func:`query_groups`)."""
    return (DEFAULT_LANGUAGE, *sorted(_stop_lists()))


def _is_function_word(word: str, name: str | None) -> bool:
    """``word`` carries no topic in Snowball language ``name`` (None: the word's script decides)."""
    return word in STOPWORDS or word in function_words(name or script_language(word))


def script_language(word: str) -> str:
    """The Snowball language a word of unknown language is stemmed in, from its script."""
    if _CYRILLIC.search(word):
        return "russian"
    if _GREEK.search(word):
        return "greek"
    if _ARABIC.search(word):
        return "arabic"
    return DEFAULT_LANGUAGE


def stem(word: str, language: str | None = None) -> str:
    """Snowball stem of one lowercased word in ``language`` (by script when unknown or unsupported), read
    without its Latin letters' accents (:func:`fold`)."""
    name = snowball_name(language) or script_language(word)
    return str(_stemmer(name).stemWord(fold(word)))


_LIGATURE_LETTERS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d"}


@functools.cache
def _folded_letter(ch: str) -> str:
    base = unicodedata.normalize("NFKD", ch)[:1]
    return _LIGATURE_LETTERS.get(ch) or (base if base.isascii() and base.isalpha() else ch)


def fold(term: str) -> str:
    """``term`` with its Latin letters' accents left out ("musée" is "musee", "niñez" "ninez", "Straße"
    "strasse"), so a word typed on a keyboard without them finds it; other scripts' letters stay (Russian
    "й" is no "и"). Applied before stemming, the same way to the index and the query: the stemmer reads
    "musée" and "musee" alike only if both reach it as one."""
    return term if term.isascii() else "".join(_folded_letter(ch) for ch in term)


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a run of CJK characters; a single character stays itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def grammar_bigrams(run: str) -> set[str]:
    """The bigrams of a CJK run that are its grammar: those holding hiragana in a run that also holds kanji or
    katakana. Japanese writes its particles (で, を, は), verb endings and auxiliaries (しました, ですか) in
    hiragana after the kanji of a word, so a question's bigrams across them ("都で", "何を", "した") are no
    words of it (:func:`query_groups`); a run of hiragana alone is a word typed so ("おにぎり", review)."""
    if not _HIRAGANA.search(run) or _HIRAGANA_RUN.fullmatch(run):
        return set()
    return {b for b in cjk_bigrams(run) if _HIRAGANA.search(b)}


def day_term(day: str) -> str:
    """The index term of a day (``2024-07-11`` or ``--07-11``, :func:`~batchsum.periods.days_named`): ``--07-11``,
    the day of any year (its year is the document's date's, or a word of its own)."""
    return "--" + day[-5:]


def due_term(day: str) -> str:
    """The index term of a day a final's action item is due (``due--07-11``): found by a query of the day
    (:func:`day_term`'s), but no day the text covers (a file of many days is no entry of its tasks' days)."""
    return "due" + day_term(day)


def _day_terms(text: str, words: list[tuple[bool | None, str]]) -> list[str]:
    """The day terms of the days ``text`` (its :func:`_words`: ``words``) writes, each once. Only a text with a
    month's name, a CJK date or an ISO date is read for them: reading every text took a seventh of indexing."""
    if not _DIGIT.search(text):
        return []
    dated = any(cjk is None for cjk, _ in words) or not MONTH_WORDS.keys().isdisjoint(w for _, w in words)
    if not dated and not _ISO_DATE.search(text):
        return []
    return list(dict.fromkeys(day_term(d) for d in days_named(text)))


def _date_words(m: re.Match[str]) -> list[str]:
    """What a CJK date phrase names: its year as a number, its month as "7月" (a number past 12 as a number)."""
    year = m.group("y") or m.group("year")
    words = [str(int(year))] if year else []
    if m.group("m"):
        month = int(m.group("m"))
        words.append(f"{month}月" if 1 <= month <= 12 else str(month))
    elif m.group("day"):
        words.append(str(int(m.group("day"))))
    return [w for w in words if len(w) > 1]  # a one-digit number is too short a word, as elsewhere


def _words(text: str) -> list[tuple[bool | None, str]]:
    """(is_cjk, piece) in order: CJK runs and the other words between them (lowercased, spelled letters joined,
    ligatures as their letters: a query typed "ﬁshers" finds "fishers"; "’" as "'"); a CJK date phrase's words
    (:func:`_date_words`) are (None, term): terms as they are, never stemmed nor dropped."""
    text = _SPELLED.sub(lambda m: m.group(1)[::2], plain_letters(text).lower())
    if "’" in text:  # a word processor's apostrophe is a keyboard's: "shouldn’t" is the "shouldn't" typed
        text = text.replace("’", "'")
    out: list[tuple[bool | None, str]] = []
    pos = 0
    for m in CJK_DATE.finditer(text) if _DIGIT.search(text) else ():
        out += _pieces(text, pos, m.start())
        out += [(None, w) for w in _date_words(m)]
        pos = m.end()
    return out + _pieces(text, pos, len(text))


def _pieces(text: str, start: int, end: int) -> list[tuple[bool | None, str]]:
    """The pieces of ``text[start:end]`` (no CJK date phrase in it): its CJK runs and its other words."""
    out: list[tuple[bool | None, str]] = []
    for m in _CJK_RUN.finditer(text, start, end):
        out.extend((False, w.group(0)) for w in _TOKEN.finditer(text, start, m.start()))
        out.append((True, m.group(0)))
        start = m.end()
    return out + [(False, w.group(0)) for w in _TOKEN.finditer(text, start, end)]


def analyze(text: str, language: str | None = None, others: Iterable[str] = ()) -> list[str]:
    """The index terms of ``text`` in ``language`` (None: decided by script), in order. ``others``: languages
    the text may be written in instead (a digest of entries in several): the function words dropped are
    those of the one whose function words ``text`` holds most, the way stop words tell a text's language
    (Grefenstette 1995, "Comparing two language identification schemes"). The stems stay ``language``'s,
    as a query's stems for the document are."""
    name = snowball_name(language)
    words = _words(text)
    latin = [p for cjk, p in words if cjk is False]
    spoken = _most_spoken(latin, [name, *map(snowball_name, others)]) if others else name
    terms: list[str] = []
    for cjk, piece in words:
        if cjk is None:
            terms.append(piece)
        elif cjk:
            terms.extend(cjk_bigrams(piece))
        elif len(piece) > 1 and not _is_function_word(piece, spoken):
            terms.append(str(_stemmer(name or script_language(piece)).stemWord(fold(piece))))
    return terms + _day_terms(text, words)


def _most_spoken(words: list[str], names: list[str | None]) -> str | None:
    """Of ``names`` (Snowball languages), the one whose function words ``words`` hold most (the first on a tie)."""

    def held(name: str | None) -> int:
        stops = _stop_words(name or DEFAULT_LANGUAGE)
        return sum(w in stops for w in words)

    return max(names, key=held)


def _stop_words(name: str) -> frozenset[str]:
    """The function words of Snowball language ``name`` (English's own list for English)."""
    return STOPWORDS if name == DEFAULT_LANGUAGE else function_words(name)


def query_groups(query: str, languages: Iterable[str | None], drop: frozenset[str] = frozenset()) -> list[list[str]]:
    """The query's terms as groups of alternatives (see the module docstring), in order, without duplicates.

    ``languages``: those of the indexed documents (None: unknown, analysed by script). Words that phrase the
    request are left out unless nothing else remains: those in ``drop`` (lowercased; a CJK one is cut out of its
    run, :func:`_phrased`) and the function words of the language of ``languages`` (or English) whose function
    words the query holds most (:func:`_spoken`): German "ist" and "im" are words of a French or a Spanish text.
    """
    langs = list(dict.fromkeys(snowball_name(x) for x in languages)) or [None]
    groups: dict[tuple[str, ...], list[str]] = {}
    kept: dict[tuple[str, ...], list[str]] = {}
    grammar: set[tuple[str, ...]] = set()
    words = _words(query)
    months = months_named(query)
    spoken = _spoken([p for cjk, p in words if cjk is False], langs, months)
    grammar.update((b,) for cjk, piece in words if cjk for b in grammar_bigrams(piece))
    for cjk, piece, phrasing in _phrased([*words, *((None, d) for d in _day_terms(query, words))], drop):
        for word in cjk_bigrams(piece) if cjk else [piece]:
            if cjk is False and (len(word) < 2 or word in STOPWORDS):
                continue
            # The asker's language's function words phrase the request ("Was ist im März passiert?": "ist",
            # "im"), though another language the index holds may stem them as words.
            phrasing = phrasing or (cjk is False and _phrasing(word, spoken, drop))
            if cjk is not False:  # a CJK bigram, a date's term
                group = [word]
            else:
                # Only the languages in which the word is not a function word ("die": English, not German).
                word_langs = [lang for lang in langs if not _is_function_word(word, lang)]
                if not word_langs:
                    continue
                group = list(dict.fromkeys(stem(word, lang) for lang in word_langs))
                for lang in word_langs:
                    group.extend(s for s in _siblings(word, stem(word, lang), lang) if s not in group)
            if (month := _month_of(cjk, word)) in months:
                # A month's name is its month in the languages that write it so, and their texts alone: Italian
                # "mai" is "never" (:func:`term_languages`).
                group = list(dict.fromkeys([*(_own_month_terms(word) if cjk is False else group), *month_terms(month)]))
            target = groups if phrasing else kept
            target.setdefault(tuple(group), group)
    chosen = list((kept or groups).values())
    if any(tuple(g) in grammar for g in chosen) and not all(tuple(g) in grammar for g in chosen):
        # A Japanese question names its topic in kanji, katakana or Latin letters ("京都で何をしましたか"):
        # the bigrams holding hiragana next to them are its grammar, no words of it.
        chosen = [g for g in chosen if tuple(g) not in grammar]
    return chosen


# A CJK date's month term (:func:`_date_words`).
_MONTH_TERM = re.compile(r"(\d{1,2})月")


def _month_of(cjk: bool | None, word: str) -> int | None:
    """The month a query's piece (:func:`_words`) is the name or the CJK term of; None for any other."""
    if cjk is None:
        return int(m.group(1)) if (m := _MONTH_TERM.fullmatch(word)) else None
    return MONTH_WORDS.get(word) if cjk is False else None


def _own_month_terms(word: str) -> list[str]:
    """The stems of a month's name (a key of :data:`~batchsum.periods.MONTH_WORDS`) in the languages that name the
    month so, and by script."""
    return list(dict.fromkeys(stem(word, lang) for lang in (*sorted(MONTH_LANGUAGES[word]), None)))


@functools.cache
def month_terms(month: int) -> dict[str, frozenset[str | None]]:
    """The index terms a text writing ``month`` (1-12) holds for it, each with the languages (Snowball names)
    whose texts make it: every name of it stemmed in the language that writes it and by script (a text of
    no recorded language), and the CJK month term ("4月", any language). A query's month is the same month in
    each of them: "2024年4月" asks for entries headed "3 April 2024" or "17. April 2024" as "April 2024" does,
    and a name counts only in its own languages' texts (Italian "mai" is "never", no May)."""
    terms: dict[str, set[str | None]] = {f"{month}月": set()}
    for word, langs in MONTH_LANGUAGES.items():
        if MONTH_WORDS[word] != month:
            continue
        for lang in (*langs, None):
            terms.setdefault(stem(word, lang), set()).add(snowball_name(lang))
    return {term: frozenset(langs) for term, langs in terms.items()}


def _spoken(words: list[str], langs: list[str | None], months: set[int]) -> set[str]:
    """The languages (Snowball names) among ``langs`` and English whose function words ``words`` (a query's) hold
    most, as stop words tell a text's language (:func:`_most_spoken`); none when they hold none. A name of a
    month the query names (``months``) is a word of its languages too: "im März" is German, its "im" no topic."""
    names = {name or DEFAULT_LANGUAGE for name in langs} | {DEFAULT_LANGUAGE}
    held = {name: sum(_function_in(w, name) or _month_in(w, name, months) for w in words) for name in names}
    # Another language than English needs two of its words: one is a word of English too ("war memorial", "van").
    held = {name: n for name, n in held.items() if n >= (1 if name == DEFAULT_LANGUAGE else 2)}
    most = max(held.values(), default=0)
    return {name for name, n in held.items() if n == most} if most else set()


def _month_in(word: str, name: str, months: set[int]) -> bool:
    """``word`` names one of ``months`` in Snowball language ``name``."""
    return MONTH_WORDS.get(word) in months and name in {snowball_name(x) for x in MONTH_LANGUAGES[word]}


def _function_in(word: str, name: str) -> bool:
    """``word`` is a function word of Snowball language ``name``, or elided of them ("qu'il", "j'ai")."""
    stops = _stop_words(name)
    return _elided_of(word, stops.__contains__)


def _phrasing(word: str, spoken: set[str], drop: frozenset[str]) -> bool:
    """``word`` (a query's, not CJK) phrases the request: it is in ``drop``, a function word of a language the
    query is ``spoken`` in, or elided of such words ("s'est", "qu'est" of "qu'est-ce qui s'est passé")."""
    return _elided_of(word, lambda w: w in drop or any(w in _stop_words(name) for name in spoken))


def _elided_of(word: str, is_one: Callable[[str], bool]) -> bool:
    """``word`` is one of the words ``is_one`` tells, or an elision of them: each part between its apostrophes
    is one, or a letter ("s'", "j'", "l'")."""
    if is_one(word):
        return True
    parts = word.split("'")
    return len(parts) > 1 and all(len(p) < 2 or is_one(p) for p in parts)


def _phrased(pieces: list[tuple[bool | None, str]], drop: frozenset[str]) -> Iterator[tuple[bool | None, str, bool]]:
    """``pieces`` (:func:`_words`) with each CJK run cut at the CJK words of ``drop`` ("发生了什么" of
    "2024年3月发生了什么"): (is_cjk, piece, whether it is such a word). A bigram across the cut is no word of
    the run's, nor is a character left alone by it (the particle に of "3月に何がありましたか")."""
    cut = _cjk_phrasing(drop)
    for cjk, piece in pieces:
        if not cjk or cut is None:
            yield cjk, piece, False
            continue
        pos = 0
        for m in [*cut.finditer(piece), None]:
            start = len(piece) if m is None else m.start()
            # A lone Han character is a word of its own (猫, 书); a lone kana is a particle (に).
            if start - pos > 1 or (pos == 0 and m is None) or (start - pos == 1 and "\u4e00" <= piece[pos] <= "\u9fff"):
                yield cjk, piece[pos:start], False
            if m is not None:
                yield cjk, m.group(0), True
                pos = m.end()


@functools.cache
def _cjk_phrasing(drop: frozenset[str]) -> re.Pattern[str] | None:
    """The CJK words of ``drop`` as one pattern, longest first; None when it has none."""
    cjk = sorted((w for w in drop if _CJK_RUN.fullmatch(w)), key=lambda w: (-len(w), w))
    return re.compile("|".join(map(re.escape, cjk))) if cjk else None


def term_languages(query: str, languages: Iterable[str | None]) -> dict[str, set[str | None]]:
    """For each stem :func:`query_groups` makes of a non-CJK query word, the languages whose analysis made it
    (None: documents without a recorded language): a stem counts only in documents of those languages, so
    Spanish "para" stemmed as French ("par") does not match every French "par"."""
    made: dict[str, set[str | None]] = {}
    months = months_named(query)
    for word, lang in _stemmed_words(query, languages):
        if MONTH_WORDS.get(word) in months:
            continue  # a month's name counts in its month's languages' texts alone (below)
        term = stem(word, lang)
        for made_term in (term, *_siblings(word, term, lang)):
            made.setdefault(made_term, set()).add(lang)
    for month in months:  # a month's names in its languages' texts (:func:`month_terms`)
        for made_term, langs in month_terms(month).items():
            if langs:  # the CJK month term is every language's
                made.setdefault(made_term, set()).update(langs)
    return made


def _stemmed_words(query: str, languages: Iterable[str | None]) -> Iterator[tuple[str, str | None]]:
    """(word, Snowball language) of each non-CJK query word under each language in which it is no function word."""
    langs = list(dict.fromkeys(snowball_name(x) for x in languages)) or [None]
    for cjk, word in _words(query):
        if cjk is not False or len(word) < 2 or word in STOPWORDS:
            continue
        yield from ((word, lang) for lang in langs if not _is_function_word(word, lang))


def sibling_stems(query: str, languages: Iterable[str | None]) -> frozenset[str]:
    """The terms :func:`query_groups` adds to a query word's group only as a sibling of its stem (:func:`_siblings`:
    "decid" for "decision"), no stem any language makes of a query word: a derivation, a looser match than the
    word's own inflections."""
    pairs = [(word, lang, stem(word, lang)) for word, lang in _stemmed_words(query, languages)]
    derived = {s for word, lang, own in pairs for s in _siblings(word, own, lang)}
    return frozenset(derived - {own for _, _, own in pairs})


def _siblings(word: str, stem_: str, language: str | None) -> list[str]:
    """The stems a query word's ``stem_`` in ``language`` (None: by script) also reaches, those Snowball keeps
    apart from it: English derivational siblings (:data:`_SIBLING`), and a Russian noun's forms. Snowball's
    Russian reads a noun's final "-ан", "-ал", "-ян", "-ял" as a verb's ending ("гулял", "сказан") and cuts
    its "н"/"л" ("ресторан" is "рестора", "вокзал" "вокза"), while the noun's other forms keep it
    ("ресторане" is "ресторан"): a stem in "а"/"я" that its word goes on with "н"/"л" reaches that stem with
    the letter, and a stem in "ан", "ал", "ян", "ял" reaches it without, each when Snowball would cut so."""
    name = snowball_name(language) or script_language(word)
    if name == "english":
        m = _SIBLING.match(stem_)
        return [m.group(1) + ("s" if m.group(2) == "d" else "d")] if m else []
    if name != "russian":
        return []
    russian = _stemmer("russian").stemWord
    if stem_[-2:-1] in ("а", "я") and stem_[-1:] in ("н", "л") and russian(stem_) == stem_[:-1]:
        return [stem_[:-1]]  # "ресторане": "ресторан", whose own form Snowball reads as "рестора"
    cut = fold(word)[len(stem_) : len(stem_) + 1] if fold(word).startswith(stem_) else ""
    if stem_.endswith(("а", "я")) and cut in ("н", "л") and russian(stem_ + cut) == stem_:
        return [stem_ + cut]  # "ресторан": "рестора", whose other forms keep the "н"
    return []
