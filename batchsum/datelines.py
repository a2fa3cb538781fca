"""A journal entry dated in-line: a paragraph that opens with its day, not a dated heading.

Diaries printed as one book open each entry's paragraph with its date and a run-in dash ("June 18th.--A
walk ...", "Salem, June 15, 1835.--A walk ...", "_July_ 14, ABBOTSFORD.--Arrived ..."), or give the date
a paragraph of its own, a dateline ("Trient, den 10. September, abends.", "Paris, le 3 mars 1850.",
"〔八月〕二十七日"). Such entries date the lines under them as a dated heading does, and a dateline alone is
a label, never a sentence of the entry: also one that is the first sentence of its entry's paragraph
("Lisbonne, le 11 mai 2024. Nous avons réservé ...", :func:`is_dateline`). The month words are periods.py's,
in every language batchsum reads.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from batchsum.periods import MONTH_WORDS, WEEKDAY_WORDS
from batchsum.text import BLANK_LINES

__all__ = ["DateCarry", "Dateline", "cjk_dateline", "dated_entries", "dateline", "is_dateline"]

_MONTH = "|".join(re.escape(w) for w in sorted(MONTH_WORDS, key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th|d|er|\.)?"
# What may stand before the day: a place or a weekday and its comma, one or two of them ("Salem, ",
# "Saturday, ", "Maine, "), then an article that introduces a day ("den", "le", "el", "am", "der", "il"),
# a weekday's name without its comma, as French, German and Spanish head a day ("mardi 5 mars 2024",
# "le mardi 5 mars", "Dienstag 5. März", "martes 5 de marzo"), and an article again ("Dienstag, den 5.").
# Any other word before the day makes the line a sentence ("Nous avons vu 5 mars").
_ARTICLE = r"(?:(?i:den|der|le|el|il|am)[ \t]+)?"
_WEEKDAY = "|".join(re.escape(w) for w in sorted(WEEKDAY_WORDS, key=len, reverse=True))
_LEAD = (
    rf"(?:[^\W\d_][\w'’.-]*(?:[ \t]+[^\W\d_][\w'’.-]*){{0,2}},[ \t]+){{0,2}}{_ARTICLE}"
    rf"(?:(?i:{_WEEKDAY})(?![\w-])[ \t]+{_ARTICLE})?"
)
_DAY_FIRST = rf"(?P<d1>\d{{1,2}}){_ORDINAL}[ \t]+(?:of[ \t]+|de[ \t]+)?(?P<m1>(?i:{_MONTH}))"
_MONTH_FIRST = rf"(?P<m2>(?i:{_MONTH}))\.?,?[ \t]+(?P<d2>\d{{1,2}}){_ORDINAL}"
# A Russian year is written "2024 г." or "2024 года" ("3 мая 2024 года"): the word is the year's, no place.
_YEAR = r"(?:,?[ \t]+(?:de[ \t]+)?(?P<y>1[5-9]\d\d|20\d\d)(?:[ \t]*(?:года(?!\w)|г\.?))?\.?)?"
# A date in numbers with dots is day first, as Europe and Russia write it ("03.05.2024", "3.5.2024"), the
# year whole: a month over 12 is no date (_checked), and "3.5.24" is as likely a version as a day.
_DOTTED = r"(?P<d3>\d{1,2})\.(?P<m3>\d{1,2})\.(?P<y3>1[5-9]\d\d|20\d\d)(?![\d.]\d)(?:[ \t]*(?:года(?!\w)|г\.?))?"
# A weekday in brackets after the day, as an app writes it: "3. Mai 2024 (Freitag)", "03.05.2024 (Fr.)",
# "3 мая 2024 (пт)". In brackets a weekday may be short, as apps shorten it; bare, "Mo" or "mar" is too
# ambiguous to be one, so the short forms are read here only.
_SHORT_WEEKDAYS = {
    "en": "mon tue tues wed thu thur thurs fri sat sun",
    "de": "mo di mi do fr sa so",
    "fr": "lun mar mer jeu ven sam dim",
    "es": "lun mar mié mie jue vie sáb sab dom",
    "it": "lun mar mer gio ven sab dom",
    "pt": "seg ter qua qui sex sáb sab dom",
    "ru": "пн вт ср чт пт сб вс",
}
_SHORT_WEEKDAY = "|".join(
    sorted({w for forms in _SHORT_WEEKDAYS.values() for w in forms.split()}, key=len, reverse=True)
)
_BRACKETED_WEEKDAY = rf"(?:[ \t]*\((?i:{_WEEKDAY}|{_SHORT_WEEKDAY})\.?\))?"
# After the day: a place, a weekday or a time of day (", ABBOTSFORD", ", Tuesday", ", abends"), behind its
# comma: words that follow the day without one are a sentence's ("Am 3. Mai regnete es.").
_TAIL = r"(?P<tail>(?:,[ \t]*[^\W\d_][^\n.,;:!?]{0,30})*)"
# A clock time after the day, as a journal app writes it: " at 13:05:00 GMT", " at 1:05 PM", ", 9.30 a.m.".
_ZONE = r"(?:[ \t]+[A-Z]{2,5}(?:[+-]\d\d?(?::?\d\d)?)?)?"  # "GMT", "BST", "GMT+01:00"
_TIME = rf"(?:,?[ \t]+(?:at[ \t]+)?\d{{1,2}}[:.]\d\d(?:[:.]\d\d)?(?:[ \t]*[AaPp]\.?[Mm]\.?)?{_ZONE})?"
_DATE = rf"{_LEAD}(?:{_DOTTED}|(?:{_DAY_FIRST}|{_MONTH_FIRST}){_YEAR}){_BRACKETED_WEEKDAY}{_TIME}{_TAIL}"
_RUN_IN = re.compile(rf"{_DATE}\.?[ \t]*(?:--|—)[ \t]*(?=[^\W_])")
_ALONE = re.compile(rf"{_DATE}[.:]?")
# An entry's date written as a field of its header, as Day One's Markdown and text exports open each entry
# ("Date:<TAB>2 January 2018 at 13:05:00 GMT", "Date: January 2, 2018 at 1:05 PM", over "Location:" and
# "Weather:" lines): the field's name is no part of the date.
_FIELD = re.compile(r"(?i:date)[ \t]*:[ \t]*")
# A Chinese or Japanese day on a line of its own, its month and year written or carried: "〔八月〕二十七日",
# "二十八日", "1923年9月1日", "三月五日（月）", "令和6年5月3日", "大正十二年八月二十四日", "2024年　5月　3日"; then
# its weekday, bracketed or not ("（金）", "星期五", "周五", "金曜日"), and the day's weather ("2024年5月3日（金）　晴",
# "八月二十六日　曇、夕方雷雨", "5月3日 星期五 晴转多云"). Chinese and Japanese write a sentence without spaces,
# so the weather stands apart from the day by a space or its weekday: one run on ("5月3日に東京へ行った") is the
# sentence's. Only weather words follow a dateline's day: a diary written as chat leaves a sentence's 。 out,
# and "5月3日 今天很累" is then the entry's first sentence, not its label.
_CJK_NUMBER = r"[\d〇一二三四五六七八九十廿卅]{1,3}"
_CJK_SPACE = r"[^\S\n]"  # any space but a line's end: the ideographic U+3000 too
_ERAS = {"明治": 1867, "大正": 1911, "昭和": 1925, "平成": 1988, "令和": 2018}  # year 1 of each is base + 1
_CJK_YEAR = (
    rf"(?:(?P<y>[\d〇一二三四五六七八九]{{4}})|(?P<era>{'|'.join(_ERAS)})(?P<ey>元|{_CJK_NUMBER})){_CJK_SPACE}*年"
)
_CJK_WEEKDAY = r"(?:[（(][^）)\n]{1,4}[）)]|(?:星期|礼拜|禮拜|周|週)[一二三四五六日天]|[月火水木金土日]曜日?)"
# The weather a diary notes, Chinese ("晴", "多云", "雷阵雨") and Japanese ("晴れ", "曇り", "驟雨"), a time of day
# before it ("夕方雷雨", "午后小雨"); two joined by "转"/"のち"/"後"/"時々" or a comma ("晴转阴", "曇、後驟雨").
_WEATHER = (
    "晴朗 晴れ 快晴 晴 多云 多雲 少云 阴天 阴 陰 曇り 曇 くもり 雷阵雨 阵雨 雷雨 驟雨 暴雨 大雨 中雨 小雨 雨夹雪 "
    "雨 大雪 小雪 雪 雾 霧 霾 大风 风 風 热 暑 寒 冷"
).split()
_TIME_OF_DAY = "上午 下午 午前 午後 午后 夕方 夜半 朝 昼 晚 夕 夜".split()
_CJK_TERM = rf"(?:{'|'.join(_TIME_OF_DAY)})?(?:{'|'.join(_WEATHER)})"
_CJK_JOIN = rf"(?:(?:[、，,]|{_CJK_SPACE}+)(?:のち|後|时|時々|一時|转|轉)?|のち|後|时|時々|一時|转|轉)"
_CJK_GAP = rf"{_CJK_SPACE}+"
_CJK_WORDS = rf"{_CJK_TERM}(?:{_CJK_JOIN}{_CJK_TERM})?"  # "晴", "曇、夕方雷雨", "晴转多云"
_CJK_ALONE = re.compile(
    rf"〔?(?:{_CJK_YEAR}{_CJK_SPACE}*)?〔?(?:(?P<m>{_CJK_NUMBER}){_CJK_SPACE}*月{_CJK_SPACE}*)?〕?"
    rf"(?P<d>{_CJK_NUMBER}){_CJK_SPACE}*日〕?"
    rf"(?:{_CJK_SPACE}*{_CJK_WEEKDAY}(?P<after>{_CJK_SPACE}*{_CJK_WORDS})?|(?P<apart>{_CJK_GAP}{_CJK_WORDS}))?"
)
_MARKS = str.maketrans("", "", "_*[]")  # italics, bold and an editor's brackets ("[_Abbotsford_,] _May_ 16.--")
_ALONE_CHARS = 60  # a dateline is short: a longer paragraph that names a day is prose
_CJK_CHARS = 32  # the longest: a year, weekday and two words of weather ("令和6年12月31日（火）　晴、夕方雷雨")


@dataclass(frozen=True)
class Dateline:
    """The day an entry opens with; ``month`` and ``year`` None when it leaves them to be carried."""

    day: int
    month: int | None
    year: int | None
    alone: bool  # the date is its paragraph's first line (a Chinese or Japanese line) by itself: a label


def _cjk_number(text: str) -> int:
    """ "二十八" is 28, "十" 10, "三十" 30, "28" 28."""
    if text.isdigit():
        return int(text)
    text = text.replace("廿", "二十").replace("卅", "三十")  # "廿五" is 25
    digits = {c: i for i, c in enumerate("〇一二三四五六七八九")}
    tens, _, ones = text.partition("十")
    if "十" not in text:
        return int("".join(str(digits[c]) for c in text))
    return (digits.get(tens, 1) if tens else 1) * 10 + (digits[ones] if ones else 0)


def _cjk_alone(line: str) -> re.Match[str] | None:
    bare = line.strip()
    return _CJK_ALONE.fullmatch(bare) if "日" in bare and len(bare) <= _CJK_CHARS else None


def cjk_dateline(line: str) -> Dateline | None:
    """A Chinese or Japanese day that is the whole of ``line`` ("〔八月〕二十七日", "二十八日"), else None: such a
    text writes a paragraph a line, so its datelines stand between lines of prose, not blank lines."""
    cjk = _cjk_alone(line)
    if cjk is None:
        return None
    month, year, era = cjk.group("m"), cjk.group("y"), cjk.group("era")
    year_: int | None = _cjk_number(year) if year else None
    if era:
        year_ = _ERAS[era] + (1 if cjk.group("ey") == "元" else _cjk_number(cjk.group("ey")))  # 元年 is the first
    return _checked(_cjk_number(cjk.group("d")), _cjk_number(month) if month else None, year_, True)


def dateline(paragraph: str) -> Dateline | None:
    """The day a paragraph opens with as a journal entry's date ("June 18th.--A walk", "Trient, den 10.
    September, abends." alone, "〔八月〕二十七日" on its line), else None. Only the paragraph's opening
    counts: a date inside a sentence dates nothing."""
    first = paragraph.strip().split("\n", 1)[0]
    if (cjk := cjk_dateline(first)) is not None:
        return cjk
    first = first.translate(_MARKS).strip()
    if field := _FIELD.match(first):
        first = first[field.end() :]
    alone = _ALONE.fullmatch(first) if len(first) <= _ALONE_CHARS else None
    m = alone or _RUN_IN.match(first)
    if m is None:
        return None
    if m.group("d3"):
        day, month, year = int(m.group("d3")), int(m.group("m3")), m.group("y3")
    else:
        day, month, year = (
            int(m.group("d1") or m.group("d2")),
            MONTH_WORDS[(m.group("m1") or m.group("m2")).lower()],
            m.group("y"),
        )
    return _checked(day, month, int(year) if year else None, alone is not None)


def is_dateline(sentence: str) -> bool:
    """Whether a sentence is a dateline and nothing else ("Lisbonne, le 11 mai 2024.", "Berlin, den 4. Mai
    2024.", "Lisboa, 18 de mayo de 2024.", "Trient, den 10. September, abends.", "1923年9月1日。"): a label
    of its entry, never one of its sentences, wherever it stands. :func:`dateline` reads a paragraph's
    first line whole, and a dateline closed by its full stop with the entry's words after it on that line
    ("Lisbonne, le 11 mai 2024. Nous avons ...") is neither alone there nor run in by a dash: only its
    sentence shows it. A date inside a sentence ("Hoy, 11 de octubre de 2025, hablé ...") is none, nor is
    one a clause follows ("Le 14 juillet, nous avons dansé."): what follows a dateline's day is a word or
    a name (", abends", ", Tuesday", ", New York")."""
    line = " ".join(sentence.split()).rstrip("。")
    found = dateline(line) if line else None
    if found is None or not found.alone:
        return False
    if (cjk := _cjk_alone(line)) is not None:
        # "1923年9月1日。" is a label closed by its full stop; words after the day closed by one make a
        # sentence ("三月三日　東京に着く。").
        return not sentence.rstrip().endswith("。") or not (cjk.group("after") or cjk.group("apart"))
    alone = _ALONE.fullmatch(line.translate(_MARKS))
    tail = alone.group("tail") if alone else ""
    return all(len(piece.split()) == 1 or piece.lstrip()[:1].isupper() for piece in tail.split(",")[1:])


def _checked(day: int, month: int | None, year: int | None, alone: bool) -> Dateline | None:
    if not 1 <= day <= 31 or (month is not None and not 1 <= month <= 12):
        return None
    return Dateline(day, month, year, alone)


class DateCarry:
    """The dates of a journal's entries in reading order: a date without its year (or month) takes the one
    of the last date that gave it ("June 18th" after "Salem, June 15, 1835"); ``date`` is the ISO day of
    the entry under way, None before the first; ``slip`` the day the last :meth:`iso` was given, written as
    ISO ("2024-02-30"), when no calendar has it, else None."""

    __slots__ = ("date", "month", "slip", "year")

    def __init__(self, year: int | None = None) -> None:
        self.year = year
        self.month: int | None = None
        self.date: str | None = None
        self.slip: str | None = None

    def enter(self, iso: str) -> None:
        """An entry of the full date ``iso`` (a dated heading) begins: its month runs on, as its year does."""
        self.date, self.month = iso, int(iso[5:7])

    def headings(self) -> str:
        """Heading lines that, read before any other, leave a reader in this state: the entry's ISO day, and
        the year when a heading of its own ("1904") came after that entry. A text cut into chunks opens each
        with them, so a day that leaves its year out is dated as the whole text dates it."""
        lines = [self.date] if self.date else []
        if self.year is not None and (self.date is None or int(self.date[:4]) != self.year):
            lines.append(str(self.year))
        return "\n\n".join(lines)

    def iso(self, line: Dateline) -> str | None:
        """The ISO day of ``line`` with what it leaves out carried; None while no year is known or for no such day."""
        self.year = line.year or self.year
        self.month = line.month or self.month
        self.slip = None
        if self.year is None or self.month is None:
            return None
        try:
            return dt.date(self.year, self.month, line.day).isoformat()
        except ValueError:
            # A day the writer meant ("30. Februar", "31 April"): it dates nothing, and is told of, not guessed.
            if 1 <= self.month <= 12 and 1 <= line.day <= 31:
                self.slip = f"{self.year:04d}-{self.month:02d}-{line.day:02d}"
            return None


def dated_entries(text: str) -> int:
    """How many of ``text``'s paragraphs open as dated journal entries (:func:`dateline`), a Chinese or
    Japanese dateline on a line of its own counting wherever it stands. A letter's dateline over its
    salutation ("Апреля 8." over "Бесценная моя Варвара Алексеевна!") opens no journal entry."""
    count = 0
    paragraphs = [p for p in BLANK_LINES.split(text) if p.strip()]
    for k, paragraph in enumerate(paragraphs):
        lines = paragraph.strip().split("\n")
        found = dateline(paragraph)
        below = (
            lines[1] if found is not None and len(lines) > 1 else paragraphs[k + 1] if k + 1 < len(paragraphs) else ""
        )
        count += found is not None and not (found.alone and _SALUTATION.match(below.strip()))
        if "日" in paragraph:
            count += sum(cjk_dateline(line) is not None for line in lines[1:])
    return count


# A letter's salutation: up to five words that end with "!" ("Милая Варенька! ...") or with a comma the
# line ends with ("Dear Sir,").
_SALUTATION = re.compile(r"[^\W\d_]+(?:,?[ \t]+[^\W\d_]+){0,4}(?:!|,\n|,$)")
