"""A day or a month a heading names in any language batchsum reads, beyond ISO's "2024-05-03".

A journal kept in Russian heads its entries "## 3 мая 2024" (or "## 3 мая" under "# Май 2024"), one kept
in Japanese "## 2024年5月3日（金）", in Chinese "## 5月3日" under "# 2024年5月", in German "## 3. Mai 2024",
and many apps write "## 2024/05/03". The words are those of a dateline (:mod:`batchsum.datelines`, whose
month words are :data:`batchsum.periods.MONTH_WORDS`): a heading that is a date is a dateline standing
alone.
"""

from __future__ import annotations

import re

from batchsum.datelines import DateCarry, Dateline, cjk_dateline, dateline
from batchsum.periods import MONTH_WORDS

__all__ = ["heading_day", "heading_slip", "month_year"]

_YEAR = r"(1[5-9]\d\d|20\d\d)"
# Year first with slashes: "2024/05/03", "2024/5/3" (never day or month first, which locales read apart).
_SLASHED = re.compile(rf"(?<![\d/]){_YEAR}/(\d{{1,2}})/(\d{{1,2}})(?![\d/])")
_MONTH = "|".join(re.escape(w) for w in sorted(MONTH_WORDS, key=len, reverse=True))
# A month of a year: "Май 2024", "Mai 2024", "mayo de 2024", "3 мая 2024"'s "мая 2024"; "2024年5月".
_MONTH_YEAR = re.compile(rf"(?<!\w)(?i:{_MONTH})\.?,?\s+(?:de\s+)?{_YEAR}(?!\d)|(?<!\d){_YEAR}\s*年\s*\d{{1,2}}\s*月")
_CJK_YEAR_ALONE = re.compile(rf"{_YEAR}\s*年")
_WORDS_MAX = 8  # a longer heading that names a day is a title about it, not the day's entry


def heading_day(heading: str, year: int | None = None) -> str | None:
    """The ISO day ``heading`` names, its year carried from ``year`` when it leaves it out: "2024/05/03",
    "2024年5月3日（金）", "5月3日 星期五 晴", "3 мая 2024 года", "3. Mai 2024", "03.05.2024" (day first),
    "3 mai 2024", "3 de mayo de 2024", "Freitag, 3. Mai 2024"; None for any other heading, and for a day no
    calendar has."""
    line = _heading_date(heading)
    return DateCarry(year).iso(line) if line is not None else None


def heading_slip(heading: str, year: int | None = None) -> str | None:
    """The day ``heading`` names as :func:`heading_day` reads it, written as ISO ("2024-02-30"), when no
    calendar has it ("30. Februar 2024", "31 April" under "# 2024", "2024/02/30"); else None."""
    line = _heading_date(heading)
    if line is None:
        return None
    carry = DateCarry(year)
    return carry.slip if carry.iso(line) is None else None


def _heading_date(heading: str) -> Dateline | None:
    """The day, month and year ``heading`` writes as a day heading, not yet checked against the calendar."""
    text = heading.strip()
    if len(text.split()) > _WORDS_MAX:
        return None
    if slashed := _SLASHED.search(text):
        year_, month, day = (int(g) for g in slashed.groups())
        return Dateline(day, month, year_, alone=True)
    # A Chinese or Japanese day with its weekday and weather, as a dateline ("2024年5月3日 星期五 晴").
    line = cjk_dateline(text) if "日" in text else None
    if line is None and (found := dateline(text)) is not None and found.alone:
        line = found
    return line


def month_year(title: str) -> int | None:
    """The year of a month a heading names in any language ("Май 2024", "mayo de 2024", "2024年5月", a day's
    "3 мая 2024") or of a Chinese or Japanese year alone ("2024年"); None if it names none."""
    if m := _MONTH_YEAR.search(title) or _CJK_YEAR_ALONE.fullmatch(title.strip()):
        return int(next(g for g in m.groups() if g))
    return None
