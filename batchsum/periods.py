"""Periods above the files: which month, year or folder each summarized source belongs to.

A source whose date says when it was written (from its file name or front matter) belongs to a month
and that month's year; any other source (no date, or only a file's modification time, which says when
it was copied) belongs to its folder. Each period gets one digest (see :mod:`batchsum.digests`) under
``digests/`` in the output: ``digests/<YYYY>/<YYYY-MM>.md`` for a month, ``digests/<YYYY>.md`` for a
year, ``digests/folders/<folder>.md`` for a folder (``digests/top.md`` for the output's top level).
Everything here is pure (no file is read or written) but :func:`digests_dir`, which looks at what lies in
the output's digests folders.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from batchsum.caseless import capitalised, split_lowercase
from batchsum.cleanup import balance_quotes
from batchsum.language import CJK_CHARS_PER_WORD, cjk_chars, run_on
from batchsum.readers.note_syntax import note_syntax_as_text
from batchsum.text import DATE_LABEL, LIST_ITEM, cut_before_amount, parse_speaker_line, split_sentences, unended

if TYPE_CHECKING:
    from batchsum.config import RunConfig

PeriodKind = Literal["month", "year", "folder"]
PERIOD_KINDS: tuple[PeriodKind, ...] = ("month", "year", "folder")
# Bump when the same summaries would be laid out as other digests (what a line quotes, where it is cut, how
# days, months and files are labelled): part of every digest's signature, so a new layout redoes them all.
# What each version changed: `git log -L '/^DIGEST_FORMAT/,+1:batchsum/periods.py'`.
DIGEST_FORMAT = 17
DIGEST_STATE = "digests.json"  # in the output's state folder: what each digest was made from
DIGESTS_DIR = "digests"
# The digests folder when a source tree already owns ``digests/`` in the output.
DIGESTS_DIR_ALT = "batchsum-digests"
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# The months in the other languages batchsum reads (docs/languages.md): a digest's labels are written in
# its entries' language, and a query names a month in any of them. Russian dates use the genitive
# ("4 апреля") and "in March" the prepositional ("в марте").
LOCAL_MONTHS: dict[str, tuple[str, ...]] = {
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
           "November", "Dezember"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
           "novembre", "décembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre"),
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre",
           "novembre", "dicembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
           "novembro", "dezembro"),
    "ru": ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь",
           "ноябрь", "декабрь"),
}  # fmt: skip
# The weekdays, Monday first, in the languages of the months: a day's heading may open with one ("mardi 5 mars
# 2024", "Dienstag, 5. März 2024", "terça-feira, 5 de março de 2024"). Portuguese also says a weekday short
# ("terça").
LOCAL_WEEKDAYS: dict[str, tuple[str, ...]] = {
    "en": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "de": ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag"),
    "fr": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "it": ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
    "pt": ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"),
    "ru": ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"),
}
_RU_GENITIVE = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
                "ноября", "декабря")  # fmt: skip
_RU_PREPOSITIONAL = ("январе", "феврале", "марте", "апреле", "мае", "июне", "июле", "августе", "сентябре",
                     "октябре", "ноябре", "декабре")  # fmt: skip
# The month words a day's label (:func:`day_label`) is written with.
LABEL_MONTHS = frozenset({*MONTH_NAMES, *(m for names in LOCAL_MONTHS.values() for m in names), *_RU_GENITIVE})
# Accents a keyboard may leave out. Not Portuguese "março"'s: "marco" is a word and a name ("Marco, 5 anni").
_UNACCENTED = str.maketrans("äéûìá", "aeuia")
_NAMED_IN = (("en", MONTH_NAMES), *LOCAL_MONTHS.items(), ("ru", _RU_GENITIVE), ("ru", _RU_PREPOSITIONAL))
# Every word that names a month, lower case, to its number (1-12); accents also left out ("fevrier").
MONTH_WORDS: dict[str, int] = {
    word: i + 1
    for _, names in _NAMED_IN
    for i, name in enumerate(names)
    for word in {name.lower(), name.lower().translate(_UNACCENTED)}
}
# Every word of MONTH_WORDS to the languages (ISO 639-1) that name a month so: "april" is English and German.
MONTH_LANGUAGES: dict[str, frozenset[str]] = {
    word: frozenset(
        lang for lang, names in _NAMED_IN for n in map(str.lower, names) if word in (n, n.translate(_UNACCENTED))
    )
    for word in MONTH_WORDS
}
# Every weekday's name, lower case, also without accents ("martedi", "sabado") and Portuguese's short form ("terça").
WEEKDAY_WORDS = frozenset(
    word
    for names in LOCAL_WEEKDAYS.values()
    for name in names
    for form in (name, name.removesuffix("-feira"))
    for word in (form, form.translate(_UNACCENTED))
)


def month_label(month: int, language: str | None) -> str:
    """A month's name as a digest of ``language`` writes it, capitalised as it heads a paragraph or a title:
    ``April``, ``Avril``, ``Marzo``, ``Апрель``, ``4月``."""
    if language in ("zh", "ja"):
        return f"{month}月"
    names = LOCAL_MONTHS.get(language or "", MONTH_NAMES)
    return names[month - 1][:1].upper() + names[month - 1][1:]


def day_label(day: int, month: int, language: str | None, which: str = "") -> str:
    """A day as a digest of ``language`` labels it: ``4 April.``, ``4. April``, ``4 avril``, ``4 de abril``,
    ``4 aprile``, ``4 апреля``, ``4月4日`` (English's own full stop kept; Portuguese's as Spanish's, a month in
    lower case). ``which``: what tells one of a day's files from the others (its name's words, "evening"), in
    brackets after the day: ``4 April (evening).``, ``4. April (Abend)``, ``4月4日（evening）``; at most
    :data:`WHICH_CHARS` characters, without brackets."""
    if language in ("zh", "ja"):
        return f"{month}月{day}日" + (f"（{which}）" if which else "")
    which = f" ({which})" if which else ""
    if language == "de":
        return f"{day}. {LOCAL_MONTHS['de'][month - 1]}{which}"
    if language in ("fr", "it"):
        return f"{day} {LOCAL_MONTHS[language][month - 1]}{which}"
    if language in ("es", "pt"):
        return f"{day} de {LOCAL_MONTHS[language][month - 1]}{which}"
    if language == "ru":
        return f"{day} {_RU_GENITIVE[month - 1]}{which}"
    return f"{day} {MONTH_NAMES[month - 1]}{which}."


# The most characters a day's file is told apart by (:func:`day_label`'s ``which``): a label stays a label's
# length (search reads a bold run of at most 60 characters as an entry's label).
WHICH_CHARS = 40
# What follows a day in a label of one of the day's files: " (evening)", Chinese and Japanese "（evening）".
_WHICH = rf"(?: \([^()*\n]{{1,{WHICH_CHARS}}}\))?"


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# A day's label as :func:`day_label` writes it in any language, without the bold marks around it ("3 November.",
# "3. November", "3 novembre", "3 de noviembre", "3 ноября", "11月3日").
DAY_LABEL_TEXT = (
    rf"\d{{1,2}}\.? (?:de )?(?:{_alternation(LABEL_MONTHS)}){_WHICH}\.?"
    rf"|\d{{1,2}}月\d{{1,2}}日(?:（[^（）*\n]{{1,{WHICH_CHARS}}}）)?"
)
# A month's name as a year's digest heads its paragraph (:func:`month_label`: "April.", "Avril", "Апрель", "4月").
MONTH_LABEL_TEXT = rf"(?i:{_alternation(LABEL_MONTHS)})\.?|\d{{1,2}}月"
# Each language's form of a day's label, to tell a labelled paragraph's language by its label (English's with its
# full stop, any other's with or without the one a snippet gives it).
_LABEL_FORMS = {
    "en": re.compile(rf"\d{{1,2}} (?:{_alternation(MONTH_NAMES)}){_WHICH}\."),
    "de": re.compile(rf"\d{{1,2}}\. (?:{_alternation(LOCAL_MONTHS['de'])}){_WHICH}\.?"),
    "fr": re.compile(rf"\d{{1,2}} (?:{_alternation(LOCAL_MONTHS['fr'])}){_WHICH}\.?"),
    "es": re.compile(rf"\d{{1,2}} de (?:{_alternation(LOCAL_MONTHS['es'])}){_WHICH}\.?"),
    "it": re.compile(rf"\d{{1,2}} (?:{_alternation(LOCAL_MONTHS['it'])}){_WHICH}\.?"),
    "pt": re.compile(rf"\d{{1,2}} de (?:{_alternation(LOCAL_MONTHS['pt'])}){_WHICH}\.?"),
    "ru": re.compile(rf"\d{{1,2}} (?:{_alternation(_RU_GENITIVE)}){_WHICH}\.?"),
}


def label_language(label: str) -> str | None:
    """The language a day's label (:func:`day_label`) is written in: ``en`` for "4 April.", ``de`` for
    "4. April", ``fr`` for "4 avril", ``es``, ``it``, ``pt``, ``ru``; None for anything else, and for a label
    two languages write alike (Chinese and Japanese "4月4日", Spanish and Portuguese "4 de abril")."""
    spoken = [lang for lang, form in _LABEL_FORMS.items() if form.fullmatch(label)]
    return spoken[0] if len(spoken) == 1 else None


# Dates that say when a text was written (walk.dated); an mtime only says when the file was copied.
REAL_DATE_SOURCES = frozenset(
    {"name", "front matter", "e-mail header", "first message", "document properties", "page date", "first entry"}
)
ONE_LINE_WORDS = 30  # a one-line summary: the final's first sentence, at most this many words

_ISO_MONTH = re.compile(r"^(\d{4})-(\d{2})")
_WS = re.compile(r"\s+")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")  # a Markdown heading line


@dataclass
class FileFacts:
    """What a digest needs of one summarized source (cached between runs by its final's key)."""

    relpath: str
    final_key: str
    date: str | None  # ISO date when it is real (name or front matter), else None
    line: str  # one-line summary
    tokens: int  # the final's output tokens
    content_type: str = "document"
    language: str | None = None  # the source's language (ISO 639-1), as the run read it
    many_days: bool = False  # a file of many dated entries (a one-file diary, "2019-03.md"): labelled by its name


@dataclass(frozen=True)
class Period:
    """One month, year or folder that has a digest."""

    kind: PeriodKind
    key: str  # "1826-05", "1826", or the folder's relpath ("" for the top level)

    @property
    def id(self) -> str:
        """``month:1826-05``, ``year:1826``, ``folder:meetings``: the period's key in the digest state."""
        return f"{self.kind}:{self.key}"

    @property
    def title(self) -> str:
        """``May 1826``, ``1826``, ``meetings`` (``(top level)`` for the top folder)."""
        if self.kind == "month":
            year, month = self.key.split("-")
            return f"{MONTH_NAMES[int(month) - 1]} {year}"
        if self.kind == "folder":
            return self.key or "(top level)"
        return self.key

    def title_in(self, language: str | None) -> str:
        """:attr:`title` as its entries' ``language`` writes it: ``März 2024``, ``Март 2024``, ``2024年3月``."""
        if self.kind != "month" or language in (None, "en"):
            return self.title
        year, month = self.key.split("-")
        if language in ("zh", "ja"):
            return f"{year}年{int(month)}月"
        name = month_label(int(month), language)
        return f"{name} de {year}" if language in ("es", "pt") else f"{name} {year}"

    def path(self, folder: str = DIGESTS_DIR) -> str:
        """The digest's path relative to the output folder."""
        if self.kind == "month":
            return f"{folder}/{self.key[:4]}/{self.key}.md"
        if self.kind == "year":
            return f"{folder}/{self.key}.md"
        if not self.key:
            return f"{folder}/top.md"
        head, _, name = self.key.rpartition("/")
        return f"{folder}/folders/{head + '/' if head else ''}{fitted_name(name)}"

    @property
    def year(self) -> Period | None:
        """The year a month belongs to (None for a year or a folder)."""
        return Period("year", self.key[:4]) if self.kind == "month" else None

    @property
    def start(self) -> str | None:
        """The period's first day (ISO), for search's date filters and recency; None for a folder."""
        if self.kind == "month":
            return f"{self.key}-01"
        return f"{self.key}-01-01" if self.kind == "year" else None


# The bytes of a file name a digest may take: a file system's limit (255, NAME_MAX) less room for the temp
# file its page is written through (".<name>.<pid>.<n>.tmp", tree.atomic_write_bytes).
_NAME_BYTES = 255 - 40
_TAG_CHARS = 10  # hex digits of the hash that tells two folders cut to the same name apart


def fitted_name(stem: str, suffix: str = ".md") -> str:
    """``stem + suffix`` when it fits a file name with room for its temp file; else ``stem`` cut at a
    character to fit, with a short hash of the whole ``stem`` (``-3f2a…``): a folder named with 80 Chinese
    characters gets a digest page all the same, under the same name every night."""
    if len(os.fsencode(stem + suffix)) <= _NAME_BYTES:
        return stem + suffix
    tag = "-" + hashlib.sha256(os.fsencode(stem)).hexdigest()[:_TAG_CHARS]
    room = _NAME_BYTES - len(tag) - len(os.fsencode(suffix))
    cut, used = [], 0
    for char in stem:
        used += len(os.fsencode(char))
        if used > room:
            break
        cut.append(char)
    return "".join(cut) + tag + suffix


_WORD = re.compile(r"[^\W_]+")


# "2024年4月", "2024 年 4 月", Korean "2024년 4월"; a year alone, "1826年".
_CJK_MONTH = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]")
_CJK_YEAR = re.compile(r"(\d{4})\s*[年년]")
_ISO_KEY = re.compile(r"(?<![\d-])(\d{4})-(\d{2})(?![\d-])")


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}|(?<!\d)(?:\d{4}\s*[年년]\s*)?\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일号]")
# A day in words, in the languages of the month names: "15 May 1826", "15th of May", "15. Mai 1826",
# "15 de mayo de 1826", "15 мая 1826", "1er mai"; "May 15, 1826", "February 14". Lowercased queries.
_MONTH_WORD = _alternation(MONTH_WORDS)
_ORDINAL = r"(?:st|nd|rd|th|er)?"
_DAY_MONTH = re.compile(
    rf"(?<![\w.,:-])(\d{{1,2}}){_ORDINAL}\.?\s+(?:of\s+|de\s+)?({_MONTH_WORD})(?!\w)\.?(?:,?\s+(?:de\s+)?(\d{{4}})(?!\w))?"
)
_MONTH_DAY = re.compile(rf"(?<!\w)({_MONTH_WORD})\.?\s+(\d{{1,2}}){_ORDINAL}(?![\w:.,]\d|\w)(?:,?\s+(\d{{4}})(?!\w))?")
_ISO_DAY = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
# "1826年5月15日", and without a year "6月30日" (Chinese also "6月30号"), Korean "6월 30일".
_CJK_DAY = re.compile(r"(?<!\d)(?:(\d{4})\s*[年년]\s*)?(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일号]")
# The words that introduce a day, in the languages of the month names: "on 14 March", "the 14th of March",
# "le 14 mars", "am 14. März", "den 14. März", "el 14 de marzo". A query of a day and these is nothing but
# the day (:func:`only_a_day`), and French "le", "du", "au" make "14 mars" a day ("le 14 mars").
_DAY_ARTICLES = frozenset({"on", "the", "le", "du", "au", "am", "den", "der", "el"})
_FRENCH_ARTICLE = re.compile(r"(?<!\w)(?:le|du|au)\s+$")


def days_named(query: str) -> list[str]:
    """The days ``query`` names, as ISO dates (``1826-05-15``), or ``--05-15`` for a day named without its
    year ("14 February": that day of any year): "1826-05-15", "15 May 1826", "May 15, 1826", "15. Mai
    1826", "15 мая 1826", "1826年5月15日", "le 14 mars", "6月30日"."""
    lowered = query.lower()
    found = [(y, m, d) for y, m, d in _ISO_DAY.findall(lowered) + _CJK_DAY.findall(lowered)]
    for pattern, day_group in ((_DAY_MONTH, 1), (_MONTH_DAY, 2)):
        for match in pattern.finditer(lowered):
            month, year = match.group(2 if day_group == 1 else 1), match.group(3)
            if _meant_as_month(query, lowered, match, month, year):
                found.append((year, str(MONTH_WORDS[month]), match.group(day_group)))
    days = [f"{y or '-'}-{int(m):02d}-{int(d):02d}" for y, m, d in found if 1 <= int(m) <= 12 and 1 <= int(d) <= 31]
    return list(dict.fromkeys(days))


# Month names that are also everyday words: "top 10 may be wrong", "12 mars bars" name no day.
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mars"})


def _meant_as_month(query: str, lowered: str, match: re.Match[str], month: str, year: str | None) -> bool:
    """Whether the month word of a day's match names a month: always, but for a word that is also an
    everyday word, which must be capitalized as written ("May 10"), come with a year or an "of" ("the 3rd of
    march"), follow a French article when it is French "mars" ("le 14 mars"), or be all the query."""
    if month not in _AMBIGUOUS_MONTHS or year or re.search(r"\s(?:of|de)\s", match.group(0)):
        return True
    # Searched in place (pos/endpos, no copy): a long paragraph holds many "10 may"s (search's snippets).
    if month == "mars" and _FRENCH_ARTICLE.search(lowered, max(0, match.start() - 40), match.start()):
        return True  # "le 14 mars", "du 3 mars": an article before a number says it is a day
    start = lowered.find(month, match.start())
    written = query[start : start + len(month)] if len(query) == len(lowered) else ""
    alone = not _WORD.search(lowered, 0, match.start()) and not _WORD.search(lowered, match.end())
    return written[:1].isupper() or alone


# A CJK month, with or without its year or day: "4月" of "2024年4月3日", Korean "4월".
_CJK_MONTH_ANY = re.compile(r"(?<!\d)(\d{1,2})\s*[月월]")
_MONTH_NAME = re.compile(rf"(?<!\w)(?:{_MONTH_WORD})(?!\w)")
# Month names that are also an everyday word or a given name in a language batchsum reads: English "may" and
# "march", French "mars" (the planet), "mai" (Italian "never"; a given name), the names June, April, August and
# Spanish Abril. No data batchsum ships tells them (Snowball's stop word lists hold no month's name), so they
# are listed. Such a name is its month only beside a year ("Mai 2024") or a day ("3 mai"), after a word saying
# "in" in a language that names the month so ("im Mai", "in June", "en mars"), or as the query's only word.
_WORDLIKE_MONTHS = _AMBIGUOUS_MONTHS | {"mai", "june", "april", "august", "abril"}
# The words that say "in" before a month's name, by the languages (ISO 639-1) that write them so.
_IN_MONTH = {
    "in": frozenset({"en", "de"}),
    "im": frozenset({"de"}),
    "en": frozenset({"fr", "es"}),
    "em": frozenset({"pt"}),
}
_BEFORE_YEAR = re.compile(r"\.?,?\s+(?:(?:of|de|del|di)\s+)?\d{4}(?![\w/-]|\.\d)")
_AFTER_YEAR = re.compile(r"(?<![\w./-])\d{4},?\s+$")
_LAST_WORD = re.compile(r"([^\W_]+)\s+$")


def _month_meant(lowered: str, match: re.Match[str]) -> bool:
    """Whether a month's name (a ``_MONTH_NAME`` match of the lowercased query) names its month by its place: any
    name but an everyday word's or a given name's (:data:`_WORDLIKE_MONTHS`), which must stand beside a year or
    after a word saying "in" in one of its month's languages ("non ho mai riparato" and "dinner with Mai" name no
    May). A day's name is :func:`days_named`'s; the query's only word is a month (:func:`months_named`)."""
    word, start = match.group(0), match.start()
    if word not in _WORDLIKE_MONTHS or _BEFORE_YEAR.match(lowered, match.end()):
        return True
    if _AFTER_YEAR.search(lowered, max(0, start - 8), start):
        return True  # "2024 May"
    before = _LAST_WORD.search(lowered, max(0, start - 20), start)
    return before is not None and not _IN_MONTH.get(before.group(1), frozenset()).isdisjoint(MONTH_LANGUAGES[word])


def months_named(query: str) -> set[int]:
    """The months (1-12) ``query`` names, with or without a year or a day, by a name in any language batchsum
    reads ("April", "im März", "в марте") or as a CJK month ("4月", "2024年4月3日"). A name that is also an everyday
    word or a given name ("may", "mars", "mai", "June") names its month only as part of a day or a month of a year
    (:func:`days_named`, :func:`periods_named`: "May 2024", "le 3 mars"), after "in" ("in June", "im Mai"), or as
    the query's only word."""
    lowered = query.lower()
    dated = {int(d[-5:-3]) for d in days_named(query)}
    alone = len(_WORD.findall(lowered)) == 1
    named = {int(m) for m in _CJK_MONTH_ANY.findall(lowered)}
    for match in _MONTH_NAME.finditer(lowered):
        month = MONTH_WORDS[match.group(0)]
        if month in dated or alone or _month_meant(lowered, match):
            named.add(month)
    return {m for m in named if 1 <= m <= 12}


def _without_days(lowered: str) -> str:
    """A lowercased query without the days it names."""
    return _MONTH_DAY.sub(" ", _DAY_MONTH.sub(" ", _DAY.sub(" ", lowered)))


def without_days(query: str) -> str:
    """``query`` (lowercased) without the days it names: what it asks of them ("what happened on March
    14?" asks "what happened")."""
    return " ".join(_without_days(query.lower()).split())


def only_a_day(query: str) -> bool:
    """Whether ``query`` is nothing but a day's name ("2025-02-14", "14 February 2025", "le 14 mars 2025",
    "6月30日"), with the words that introduce it (:data:`_DAY_ARTICLES`): the entries of that day are then the
    exact answer."""
    rest = _WORD.findall(_without_days(query.lower()))
    return bool(days_named(query)) and all(w in _DAY_ARTICLES for w in rest)


# A year standing as a word of its own: not one joined to a week, a quarter or a version ("2024-W11",
# "Q1-2024", "2024/25"); "1826-05" is a month (_ISO_KEY).
_YEAR = re.compile(r"(?<![\w./-])\d{4}(?![\w/-]|\.\d)")


def periods_named(query: str) -> list[str]:
    """The months (``1826-05``) and years (``1826``) ``query`` names: "May 1826", "März 2024", "1826-05",
    "в марте 2024", "2024年4月"; a year by itself ("in 1826", "1826年"), not as the year of a month ("May
    1826" asks for the month). A day ("1826-05-15", "15 May 1826") names neither: its entry answers
    (:func:`days_named`)."""
    lowered = _without_days(query.lower())
    keys = [f"{y}-{int(m):02d}" for y, m in _ISO_KEY.findall(lowered) + _CJK_MONTH.findall(lowered)]
    years = _YEAR.findall(lowered)
    months = sorted({MONTH_WORDS[m.group(0)] for m in _MONTH_NAME.finditer(lowered) if _month_meant(lowered, m)})
    keys += [f"{y}-{m:02d}" for y in years for m in months]
    keys = [k for k in dict.fromkeys(keys) if 1 <= int(k[5:]) <= 12]
    if not keys:
        keys = list(dict.fromkeys(years + _CJK_YEAR.findall(lowered)))
    return keys


def without_periods(query: str) -> str:
    """``query`` (lowercased) without the days, months and years it names: what it asks of them ("what happened in
    March 2023?" asks "what happened"); the query itself when it names no period."""
    if not periods_named(query):
        return query.lower()
    lowered = _without_days(query.lower())
    # A month's name the query does not mean as its month stays a word of it ("mai" of "non ho mai ... 2024").
    lowered = _MONTH_NAME.sub(lambda m: " " if _month_meant(m.string, m) else m.group(0), lowered)
    rest = _YEAR.sub(" ", _ISO_KEY.sub(" ", _CJK_YEAR.sub(" ", _CJK_MONTH.sub(" ", lowered))))
    return " ".join(_WORD.findall(rest))


def only_a_period(query: str) -> bool:
    """Whether ``query`` is nothing but a period's name ("2024-03", "März 2024", "2024年4月"): its digest
    is then the exact answer."""
    rest = _CJK_YEAR.sub(" ", _CJK_MONTH.sub(" ", _without_days(query.lower())))
    words = _WORD.findall(rest)
    return bool(periods_named(query)) and all(w.isdigit() or w in MONTH_WORDS for w in words)


def digests_dir(relpaths: Iterable[str], out: Path) -> str | None:
    """The output's digests folder: ``digests``, or ``batchsum-digests`` when a source's tree owns
    ``digests/``: a source under ``digests/`` now, or the tree a deleted one left there (kept with the
    output, so the choice holds from night to night). None when sources' trees own both: a digest is
    never written into a source's tree."""
    rels = list(relpaths)
    return next((name for name in (DIGESTS_DIR, DIGESTS_DIR_ALT) if not owns_source_tree(rels, out, name)), None)


def owns_source_tree(relpaths: Iterable[str], out: Path, name: str) -> bool:
    """Whether a source's tree owns the output's folder ``name``: a source under it now, or the tree a
    deleted one left there."""
    return any(_under(rel, name) for rel in relpaths) or _holds_source_tree(out / name)


def _under(relpath: str, folder: str) -> bool:
    return relpath == folder or relpath.startswith(folder + "/")


def _holds_source_tree(folder: Path) -> bool:
    """Whether a source's summary tree (``<relpath>/summaries/L3/``) or the one a deleted source left
    (``<relpath>/deleted/<stamp>/``) is anywhere under ``folder``: a digest would be written where it lies.
    A digest's own folders (``folders/notes/summaries/`` for a source folder so named) hold neither."""
    for root, dirs, _files in os.walk(folder):
        if "summaries" in dirs and any(os.path.isdir(os.path.join(root, "summaries", lv)) for lv in _LEVELS):
            return True
        if "deleted" in dirs and any(_STAMP.fullmatch(d) for d in _listdir(os.path.join(root, "deleted"))):
            return True
    return False


_LEVELS = ("L1", "L2", "L3")
_STAMP = re.compile(r"\d{8}T\d{6}Z")  # a soft-deleted tree's folder (tree.soft_delete_tree)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def real_date(doc_date: object, date_source: object) -> str | None:
    """The ISO date of a source when it says when the text was written, else None."""
    day = str(doc_date or "")[:10]
    if str(date_source or "") not in REAL_DATE_SOURCES or not _ISO_MONTH.match(day):
        return None
    return day


def folder_of(relpath: str) -> str:
    """The folder of a source relpath ("" at the top level)."""
    return relpath.rsplit("/", 1)[0] if "/" in relpath else ""


def digest_folder(path: str) -> str | None:
    """The folder whose digest is at ``path`` (the inverse of :meth:`Period.path` for a folder:
    ``digests/folders/a/b.md`` is ``a/b``, ``digests/top.md`` the top level ``""``), None for a month's
    or a year's digest. A folder whose name was cut to fit (:func:`fitted_name`) is given as cut: its
    digest's ``period`` says the whole name."""
    parts = path.split("/")
    if len(parts) == 2 and parts[1] == "top.md":
        return ""
    if len(parts) >= 3 and parts[1] == "folders" and parts[-1].endswith(".md"):
        return "/".join(parts[2:])[: -len(".md")]
    return None


def month_of(facts: FileFacts) -> Period | None:
    """The month of a dated source, None for an undated one. An ISO week's file (``2023-W31.md``), dated by its
    Monday, is in the month of its Thursday, as ISO 8601 places a week: 2023-W31 (31 July to 6 August) in
    August."""
    if facts.date is None:
        return None
    week = iso_week(facts.relpath.rsplit("/", 1)[-1])
    m = _ISO_MONTH.match(week[1] if week and week[0] == facts.date else facts.date)
    if m is None or not 1 <= int(m.group(2)) <= 12:
        return None
    return Period("month", f"{m.group(1)}-{m.group(2)}")


# An ISO 8601 week in a file's name: "2023-W27", "2023W27", "2023_W27-notes" (a year 1800-2199 at the name's
# start or after a separator, not in "v2023-W27" or "2023-W271").
_ISO_WEEK = re.compile(r"(?<![^\W_])(1[89]\d\d|2[01]\d\d)[-_]?[Ww](\d{2})(?!\d)")


def iso_week(name: str) -> tuple[str, str, int, int] | None:
    """(its Monday, the month of its Thursday, where ``name`` says it: start, end) of the first ISO week a file
    name names ("2023-W31.md": ``("2023-07-31", "2023-08", 0, 8)``); None when it names none, or only weeks no
    year has (W00, W54, a W53 in a year of 52 weeks)."""
    for m in _ISO_WEEK.finditer(name):
        try:
            monday = dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:
            continue
        return monday.isoformat(), (monday + dt.timedelta(days=3)).isoformat()[:7], m.start(), m.end()
    return None


def path_order(relpath: str) -> tuple[Any, ...]:
    """The key that sorts paths as a file manager does, numbers by their value: "ch2" before "ch10" (a novel's
    chapters had read ch1, ch10, ch11, ch12, ch2 in its folder's digest and in index.md); a name's stem before
    its extension, as a file manager does: "2024-03-05.md" before "2024-03-05-abend.md" (whole, "-" sorts
    before ".")."""
    stem, extension = os.path.splitext(relpath)
    return (_natural(stem), _natural(extension))


def _natural(text: str) -> tuple[Any, ...]:
    """``text``'s pieces, its numbers by their value and its words without case: "ch10" is ("ch", 10, "")."""
    return tuple(int(piece) if i % 2 else piece.casefold() for i, piece in enumerate(_DIGITS.split(text)))


_DIGITS = re.compile(r"(\d+)")


def group(files: Iterable[FileFacts]) -> dict[Period, list[FileFacts]]:
    """Months and folders with the files in each, oldest date (then path) first; years are built from
    months (:func:`years_of`)."""
    out: dict[Period, list[FileFacts]] = defaultdict(list)
    for f in files:
        out[month_of(f) or Period("folder", folder_of(f.relpath))].append(f)
    for members in out.values():
        members.sort(key=lambda f: (f.date or "", path_order(f.relpath)))
    return dict(out)


def years_of(months: Iterable[Period]) -> dict[Period, list[Period]]:
    """Each year with its months, oldest first."""
    out: dict[Period, list[Period]] = defaultdict(list)
    for m in sorted(months, key=lambda p: p.key):
        year = m.year
        if year is not None:
            out[year].append(m)
    return dict(out)


def members_of(
    period: Period, groups: dict[Period, list[FileFacts]], years: dict[Period, list[Period]]
) -> list[FileFacts]:
    """The files of a month or folder (``groups``), or of a year's months (``years``)."""
    return groups.get(period) or [f for m in years.get(period, []) for f in groups[m]]


def period_language(files: Iterable[FileFacts]) -> str | None:
    """The language most of a period's files are in (None when none is known): its digest's sentence
    rules and, for an LLM, the language it is written in."""
    counts = Counter(f.language for f in files if f.language)
    return counts.most_common(1)[0][0] if counts else None


def one_line(summary: str, words: int = ONE_LINE_WORDS, language: str | None = None) -> str:
    """A one-line summary: the first sentence of ``summary`` on one line, at most ``words`` words; a
    Markdown heading ("# 2026-10-03 — Saturday", atop a file kept whole as its summary) and a line's date
    label ("2026-10-12: ") are left out: the line is shown beside the file's date."""
    # A list's bullet says nothing on a line of its own ("- **NTU**: ..." atop a glossary kept whole).
    # A chat message that ends without a stop ends its sentence all the same: flattened, it would run
    # into the next turn ("... at 12s Jun: I shipped ..."), whether the turns are on consecutive lines or
    # paragraphs apart (as a kept-whole export's are). A hard-wrapped line goes on, as it does.
    lines = [unbulleted(line) for line in note_syntax_as_text(summary).split("\n") if not _HEADING.match(line)]
    turn_next = [False] * len(lines)  # whether the next line that is not blank opens a speaker's turn
    for k in range(len(lines) - 2, -1, -1):
        below = lines[k + 1]
        turn_next[k] = turn_next[k + 1] if not below.strip() else parse_speaker_line(below)[0] is not None
    text = "\n".join(line + "." if turn_next[k] and unended(line) else line for k, line in enumerate(lines))
    # Lines run on as the summarizer runs sentences on: no space between Chinese or Japanese ones.
    flat = _WS.sub(" ", run_on(part.strip() for part in DATE_LABEL.sub("", text).split("\n") if part.strip()))
    if not flat:
        return ""
    first = flat
    for sentence in split_sentences(flat, language):  # not at "Mr." or an initial ("Lord B.")
        # A caseless text's sentences run on past the cap ("... diploid organisms. the ashm levels ..."):
        # they are told apart as the summarizer tells them (a lower-case paper's line had held three).
        heads = [flat[: sentence.end]]
        if language in (None, "en") and digest_words(sentence.text) > words:
            pieces = split_lowercase(flat[sentence.start : sentence.end].strip(), cased=capitalised(flat))
            heads = [(flat[: sentence.start] + " ".join(pieces[: k + 1])).strip() for k in range(len(pieces))]
        # A first "sentence" of a few words ("May 3.") says nothing: take sentences up to a third of the cap.
        head = next((h for h in heads if digest_words(h) >= words // 3), None)
        if head is not None:
            first = head
            break
    # A first sentence cut from a longer quotation gets its marks made whole ('She texted: "Went well.').
    if digest_words(first) <= words:
        return balance_quotes(first) if len(first) < len(flat) else first
    if cjk_chars(first) * 2 > len(first):  # Chinese or Japanese: no spaces to cut at
        return _cjk_cut(first, words * CJK_CHARS_PER_WORD) + "…"
    kept = first.split(" ")
    head = cut_before_amount(" ".join(kept[:words]), " ".join(kept[words:]))  # "at…", not "at $210…" (million)
    return balance_quotes(head.rstrip(",;:-") + "…")  # '... and…"', not 'and"…'


def _cjk_cut(text: str, chars: int) -> str:
    """``text`` cut at a clause mark (，、；：) near ``chars`` characters, never inside a word: the last
    mark in the second half of the cap, else the first one a little past it, else the last one before."""
    head = text[:chars]
    clause = max(head.rfind(mark) for mark in _CLAUSE_MARKS)
    if clause > chars // 2:
        return head[:clause]
    after = min((i for i in (text.find(mark, chars) for mark in _CLAUSE_MARKS) if i >= 0), default=-1)
    if 0 <= after <= chars + chars // 3:
        return text[:after]
    return head[:clause] if clause > 0 else head


_CLAUSE_MARKS = "，、；："


def unbulleted(line: str) -> str:
    """``line`` without a list item's bullet or number ("- ", "2. ")."""
    bullet = LIST_ITEM.match(line)
    return line[bullet.end() :] if bullet else line


def digest_words(text: str) -> int:
    """Words of ``text``, a Chinese or Japanese one counting :data:`CJK_CHARS_PER_WORD` characters."""
    return len(text.split()) + cjk_chars(text) // CJK_CHARS_PER_WORD


def digest_settings(cfg: RunConfig, identity: tuple[str, str | None]) -> list[object]:
    """What every digest depends on besides its inputs: the backend and model (``identity``), the word
    budgets and the layout."""
    return [*identity, cfg.digest_month_words, cfg.digest_year_words, DIGEST_FORMAT]
