"""When a file says it was written: a date in its file name, its front matter or its e-mail header.

Notes name their day in many forms: ``2025-03-15.md`` (Obsidian's and Logseq's default), ``15-03-2025.md``,
``March 15, 2025.md``, ``15th March 2025.md``, or front matter such as ``created: 2025-07-09T08:15``.
A date is taken only where it cannot be misread: ``03-04-2025`` is the 3rd of April to a European and the
4th of March to an American, so it dates a file only when its folder's other names fix the order (a
``14-03-2025`` beside it); alone it is left undated rather than guessed wrong. A file no rule dates is
dated by its modification time, which says only when it was copied (:func:`dated`).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

from batchsum.backends.noise import entry_date, heading_year
from batchsum.datelines import DateCarry, dateline
from batchsum.day_words import heading_day, heading_slip, month_year
from batchsum.periods import iso_week
from batchsum.readers.note_syntax import fenced_block, front_matter
from batchsum.text import BLANK_LINES, email_headers

__all__ = [
    "dated",
    "email_date",
    "entries_date",
    "front_matter_date",
    "iso_day",
    "name_date",
    "name_month",
    "name_rest",
    "named_year",
    "whatsapp_day",
]

_MONTHS = {
    name: k
    for k, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
# Keys that say when a note was written, in the order they are believed ("date" is what the note is
# about, "created" when its app made it), compared without case, spaces, "_" and "-": Obsidian's
# "created" and "Creation date", Jekyll's and Hugo's "date", Notion's "Created time".
_DATE_KEYS = ("date", "created", "createdat", "createdon", "createddate", "createdtime", "creationdate", "datecreated")


class _Patterns:
    """The regexes, compiled on first use: an unchanged re-run dates nothing."""

    __slots__ = ("iso", "loose_line", "month", "month_year", "named", "numeric", "value", "ymd")

    def __init__(self) -> None:
        # "2025-03-15", "2025_03_15" (Logseq), "20250315".
        self.iso = re.compile(r"(?<!\d)(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?!\d)")
        # "2016-3-5", "2016_3_5": a four-digit year first is year, month, day in every locale. Not with dots
        # ("PyCharm 2016.3.5" is a version), nor after a letter or digit ("v2016-3-5").
        self.ymd = re.compile(r"(?<![^\W_])(1[89]\d\d|2[01]\d\d)[-_](\d{1,2})[-_](\d{1,2})(?!\d|\.\d)")
        # A month file: "2019-03.md", "2019-03 March.md", "2019_03.txt"; at the name's start or after a
        # separator, not a range's "2019-2020" (no month 20), a version's "v2019-03", a number's "1024-12"
        # (no such year), nor a longer date's "2019-03-5" or "2019.03.1".
        self.month = re.compile(r"(?<![^\W_])(1[89]\d\d|2[01]\d\d)[-_](0[1-9]|1[0-2])(?![-_.]?\d)")
        # "14-03-2025", "14.03.2025", "3_4_2025"; not inside a version ("v2.1.2025") or a longer number.
        self.numeric = re.compile(r"(?<![^\W_])(?<!\.)(\d{1,2})([-._])(\d{1,2})\2(\d{4})(?!\d|\.\d)")
        month = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?(?![a-z])"
        nth = "(?:st|nd|rd|th)?"
        sep = r"(?:,?[ _-]+)"
        # "March 15, 2025", "Mar 15th 2025", "15 March 2025", "15th of March, 2025", "15-Mar-2025".
        self.named = re.compile(
            rf"(?<![^\W_])(?:(?P<m1>{month}){sep}(?P<d1>\d{{1,2}}){nth}{sep}(?P<y1>\d{{4}})"
            rf"|(?P<d2>\d{{1,2}}){nth}{sep}(?:of )?(?P<m2>{month}){sep}(?P<y2>\d{{4}}))(?!\d)",
            re.IGNORECASE,
        )
        # "July 2023", "Jul. 2023": a month of a year.
        self.month_year = re.compile(rf"(?<![^\W_]){month}[ \t,]+(\d{{4}})(?!\d)", re.IGNORECASE)
        # A front matter value's date: "2025-07-09", with a time or zone after it ("2025-07-09T08:15+02:00").
        self.value = re.compile(r"(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?!\d)")
        # A header block's line that note_syntax.front_matter does not take for YAML: a capitalised key or a
        # key with spaces ("Date: ...", "Creation date: ..."), which a note app still shows as a property.
        self.loose_line = re.compile(r"[A-Za-z_][\w -]{0,40}:(?:\s.*)?|[ \t]+\S.*|-\s.*|\s*|#.*")


_rx = functools.cache(_Patterns)


def iso_day(year: int, month: int, day: int) -> str | None:
    """The ISO date ("2024-05-03") of a year, month and day, or None when it is no day of the calendar."""
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def _folder_order(folder: str, _mtime_ns: int) -> str | None:
    """ "dmy" or "mdy" when the numeric dates of a folder's file names fix their order (a name's first number
    over 12 is a day: "dmy"; its second: "mdy"), None when none does or they disagree. Keyed by the
    folder's mtime, so a file added since is seen."""
    orders: set[str] = set()
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except OSError:
        return None
    for name in names:
        for m in _rx().numeric.finditer(Path(name).stem):
            first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
            if first > 12 >= second and iso_day(year, second, first):
                orders.add("dmy")
            elif second > 12 >= first and iso_day(year, first, second):
                orders.add("mdy")
    return orders.pop() if len(orders) == 1 else None


def _numeric_date(m: re.Match[str], folder: Path) -> str | None:
    """The date a "14-03-2025" match names: either order when only one makes a date (a number over 12 is
    the day), else the order the folder's other names fix, else None; with dots ("01.05.2024") day first
    unless the folder's names fix the other order."""
    first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
    if first > 12 or second > 12 or first == second:
        order: str | None = "dmy" if first > 12 else "mdy"
    else:
        try:
            order = _folder_order(str(folder), os.stat(folder).st_mtime_ns)
        except OSError:
            return None
        if order is None and m.group(2) == ".":
            # Dots are written day first wherever they are written (Germany, Russia...), as a heading's and a
            # WhatsApp line's are read: a German journal's "01.05.2024.md" had been dated by its mtime.
            order = "dmy"
    if order is None:
        return None
    return iso_day(year, second, first) if order == "dmy" else iso_day(year, first, second)


def _named_date(m: re.Match[str]) -> str | None:
    """The date a "March 15, 2025" or "15 March 2025" match names."""
    month = _MONTHS[(m.group("m1") or m.group("m2")).rstrip(".").lower()]
    day = int(m.group("d1") or m.group("d2"))
    return iso_day(int(m.group("y1") or m.group("y2")), month, day)


def name_date(path: Path) -> str | None:
    """The day a file's name gives: the first real day in ISO form ("ticket-12345678-2024-03-15") or year,
    month and day without zeros ("2016-3-5"), else the first in "14-03-2025" or "March 15, 2025" form that
    is unambiguous (module docstring), else the Monday of an ISO week ("2023-W27.md", "2023W27"), else the
    first day of the month a month file names ("2019-03.md"); None if none."""
    found = _name_day(path)
    return found[0] if found else None


def name_rest(path: Path) -> str:
    """What a file's name says besides the day it gives (:func:`name_date`): ``evening`` of
    "2024-03-04-evening.md", ``lunch with Ana`` of "2024-03-04_lunch_with_Ana.md", ``scott evening`` of
    "scott_2024-03-04-evening.md", the whole name of an undated one, "" of "2024-03-04.md"; separators around
    the day and at its ends left out, "_" read as a space."""
    stem = path.stem
    if found := _name_day(path):
        stem = f"{stem[: found[1]].rstrip(_SEPARATORS)} {stem[found[2] :].lstrip(_SEPARATORS)}"
    return " ".join(stem.replace("_", " ").split()).strip(_SEPARATORS)


_SEPARATORS = " -_.,;:()[]"


def _name_day(path: Path) -> tuple[str, int, int] | None:
    """:func:`name_date`'s day and where its name says it (start and end in the stem)."""
    stem = path.stem
    for rx in (_rx().iso, _rx().ymd):
        for m in rx.finditer(stem):
            if day := iso_day(int(m.group(1)), int(m.group(2)), int(m.group(3))):
                return day, m.start(), m.end()
    found = sorted(
        [(m.start(), m) for m in _rx().numeric.finditer(stem)] + [(m.start(), m) for m in _rx().named.finditer(stem)],
        key=lambda pair: pair[0],
    )
    for _, m in found:
        day = _named_date(m) if m.re is _rx().named else _numeric_date(m, path.parent)
        if day:
            return day, m.start(), m.end()
    # A week's file holds the week's entries: dated by its Monday, the day its week begins (its month is its
    # Thursday's: periods.month_of), its entries keeping their own days, as a month's file below.
    if week := iso_week(stem):
        return week[0], week[2], week[3]
    # A month's file holds the month's entries: dated by the month's first day, the date a month's digest
    # has, so it is filed in that month and ``--since`` the month's start finds it; its entries keep their
    # own days (their dated headings).
    if month := _rx().month.search(stem):
        return f"{month.group(1)}-{month.group(2)}-01", month.start(), month.end()
    return None


def name_month(path: Path) -> str | None:
    """The month (``2019-03``) a month file's name gives ("2019-03.md", "2019-03 March.md", "2019_03.txt"):
    a file of the month's days, not of one day. None for a day ("2019-03-15"), a year range ("2019-2020
    budget"), a version ("v2019-03") or a number that is no year ("1024-12")."""
    m = _rx().month.search(path.stem)
    return f"{m.group(1)}-{m.group(2)}" if m else None


def _value_date(value: str) -> str | None:
    """The day a front matter value gives: ISO with anything after it ("2025-07-09T08:15", "[[2025-07-09]]"),
    or "July 9, 2025" / "9 July 2025"."""
    value = value.strip().strip("'\"[]").strip()
    if m := _rx().value.match(value):
        return iso_day(int(m.group(1)), int(m.group(3)), int(m.group(4)))
    m = _rx().named.search(value[:60])
    return _named_date(m) if m else None


def front_matter_date(text: str) -> str | None:
    """The day a file's front matter gives under a key of :data:`_DATE_KEYS` (any case: ``date``,
    ``created``, ``Created at``, ``creation date``), read only inside the front matter: a body line
    "date: 2020-01-01" says nothing of when the note was written."""
    if not text.startswith("---"):
        return None
    front = front_matter(text)
    if front is None:
        loose = fenced_block(text)
        if loose is None or not all(_rx().loose_line.fullmatch(ln) for ln in loose.group(1).split("\n")):
            return None
        front = loose
    found: dict[str, str] = {}
    for line in front.group(1).split("\n"):
        key, colon, value = line.partition(":")
        key = re.sub(r"[\s_-]", "", key).casefold()
        # Only a top-level key: an indented one belongs to another key's mapping.
        if colon and not line[:1].isspace() and key in _DATE_KEYS and key not in found and (day := _value_date(value)):
            found[key] = day
    return next((found[k] for k in _DATE_KEYS if k in found), None)


def dated(
    path: Path, text: str, mtime_ns: int, own_day: tuple[str, str] | None = None, warnings: list[str] | None = None
) -> tuple[str, str]:
    """(ISO date, where it came from: ``name``, ``front matter``, ``e-mail header``, ``first message``,
    ``document properties``, ``page date``, ``first entry`` (:func:`entries_date`) or ``mtime``). All but the
    last say when a text was written; an mtime is only when the file was last copied or touched. ``own_day``:
    the day its reader found and where: a chat export's first message (``first message``: :func:`whatsapp_day`,
    :class:`batchsum.readers.chat_exports.ExportText`), a Word or OpenDocument file's ``created`` property
    (``document properties``), a web page's own date (``page date``). ``warnings`` is told of a journal
    entry's heading or dateline, or of its name, that names a day no calendar has ("## 2024-02-30",
    "2024-02-30.md"), which dates nothing: once, its name first (the first place a date is looked for)."""
    if day := name_date(path):
        return day, "name"
    found, slip = _dated_otherwise(text, mtime_ns, own_day)
    if warnings is None:
        return found
    # The user meant a day: dated silently by another, the file is misplaced in the digests unexplained.
    if named := _NO_SUCH_DAY.search(path.stem):
        warnings.append(f"its name's date {named.group(0)} is no day of the calendar; dated by its {found[1]}")
    elif slip is not None:
        warnings.append(f"{slip[1]} names {slip[0]}, no day of the calendar; dated by its {found[1]}")
    return found


def _dated_otherwise(
    text: str, mtime_ns: int, own_day: tuple[str, str] | None
) -> tuple[tuple[str, str], tuple[str, str] | None]:
    """:func:`dated`'s date of a file its name does not date, and its entries' day no calendar has (written,
    where), if one came before the first real one."""
    if day := front_matter_date(text):
        return (day, "front matter"), None
    if sent := email_date(text):
        return (sent, "e-mail header"), None
    if own_day:
        return own_day, None
    day, slip = _entries(text)
    return ((day, "first entry") if day else (_mtime_day(mtime_ns), "mtime")), slip


# A name's date written with separators ("2024-02-30", "2016-2-30"; unpadded only with "-" or "_", as names
# are dated: "2016.2.30" is a version): a date the writer meant, even when no such day exists.
_NO_SUCH_DAY = re.compile(
    r"(?<!\d)\d{4}(?:[-_.](?:0[1-9]|1[0-2])[-_.](?:0[1-9]|[12]\d|3[01])|[-_](?:0?[1-9]|1[0-2])[-_](?:0?[1-9]|[12]\d|3[01]))(?!\d)"
)


def _mtime_day(mtime_ns: int) -> str:
    # The local day: a note saved at 23:30 in New York was written that evening, not on the UTC morning after.
    return dt.datetime.fromtimestamp(mtime_ns / 1e9).date().isoformat()


# The date a WhatsApp export's line opens with: "12/03/2024, 09:14 - ", "[12/03/2024, 09:14:05] ",
# "3/12/24, 9:14 AM - ", "12.03.24, 09:14 - ", "2024-03-12, 09:14 - ".
_WHATSAPP_DAY = re.compile(r"^[\u200e\u200f]?\[?(\d{1,4})([./-])(\d{1,2})\2(\d{2}|\d{4}),? \d{1,2}:\d{2}", re.MULTILINE)


def whatsapp_day(text: str) -> str | None:
    """The day a WhatsApp export's first message was sent, in the order its own dates fix: a first number
    over 12 is a day, a second one a month (any of its lines may show it: "13/03/2024" makes "12/03/2024"
    the 12th of March). When none does, a date with a four-digit year or with dots is day first: WhatsApp
    writes the phone's short date, and the one locale that puts the month first (the US) writes
    "3/12/24". Otherwise (only "3/12/24", "12/03/24") None: undated rather than guessed wrong."""
    first: tuple[int, int, int] | None = None
    order: str | None = None
    for m in _WHATSAPP_DAY.finditer(text):
        a, sep, b, c = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        if len(m.group(1)) == 4:  # "2024-03-12": year first, nothing to fix
            return iso_day(a, b, int(c))
        year = int(c) + 2000 if len(c) == 2 else int(c)
        if first is None:
            first = (a, b, year)
            if len(c) == 4 or sep == ".":
                order = "dmy"
        if a > 12 >= b:
            order = "dmy"
            break
        if b > 12 >= a:
            order = "mdy"
            break
    if first is None or order is None:
        return None
    a, b, year = first
    return iso_day(year, b, a) if order == "dmy" else iso_day(year, a, b)


_MAIL_FORMATS = ("%A, %B %d, %Y %I:%M %p", "%A, %B %d, %Y %H:%M", "%B %d, %Y %I:%M %p", "%d %B %Y %H:%M")


def email_date(text: str) -> str | None:
    """The ISO date an e-mail (or a thread's first message) was sent: the ``Date:`` (RFC 5322) or
    Outlook's ``Sent:`` field of the header block (:func:`~batchsum.text.email_headers`) it opens with."""
    fields = email_headers(text.lstrip()[:1500].split("\n\n", 1)[0].split("\n"))
    if fields is None:
        return None
    for value in filter(None, (fields.get("date"), fields.get("sent"))):
        try:
            return email.utils.parsedate_to_datetime(value).date().isoformat()
        except (TypeError, ValueError, IndexError):
            pass
        for fmt in _MAIL_FORMATS:
            try:
                return dt.datetime.strptime(value, fmt).date().isoformat()
            except ValueError:
                continue
    return None


def entries_date(text: str) -> str | None:
    """The earliest day of a text of journal entries, when it opens with one whose year is known: entries
    dated in-line (:func:`batchsum.datelines.dateline`: a Day One export's "Date:<TAB>2 January 2018 at
    13:05:00 GMT" over each entry, a diary copied as one file, "Salem, June 15, 1835.--A walk ..."), or
    entries under dated headings, the days the summarizer labels their lines with (a week's file, "## Monday
    3 July 2023", "## 2023-07-03", or "## Monday 3 July" under "# Week of 3 July 2023": :func:`named_year`).
    Only the opening counts (after front matter and headings): a book whose text somewhere names a day is
    not dated by it. The earliest, not the first: an app may export its newest entry first. A heading or
    dateline naming a day no calendar has ("## 2024-02-30", "## 30. Februar 2024") dates nothing."""
    return _entries(text)[0]


# A day a journal's entries name that no calendar has, as written ("2024-02-30"), and where: its heading or
# dateline quoted.
_Slip = tuple[str, str]
_QUOTED_CHARS = 60


def _entries(text: str) -> tuple[str | None, _Slip | None]:
    """:func:`entries_date`'s day, and the first day its entries' headings or datelines name that no calendar has."""
    front = front_matter(text)
    body = (p for p in _paragraphs(text, front.end() if front else 0) if p.strip())
    headings = _HeadingDays()
    opening = next((prose for p in body if (prose := headings.read(p))), "")
    first = dateline(opening)
    if first is not None and first.year is not None:
        carry = DateCarry()
        rest = ((p, dateline(p)) for p in body if not p.lstrip().startswith("#"))
        days: list[str] = []
        slip: _Slip | None = None
        for paragraph, line in ((opening, first), *rest):
            if line is None:
                continue
            if day := carry.iso(line):
                days.append(day)
            elif carry.slip and slip is None:
                slip = (carry.slip, f'its entry "{_quoted(paragraph)}"')
        return min(days, default=None), slip or headings.slip
    if not opening or (headings.day is None and headings.slip is None):
        return None, None  # the text opens with no entry under a dated heading
    for p in body:
        headings.read(p)
    return min(headings.days, default=None), headings.slip


def _quoted(paragraph: str) -> str:
    """A paragraph's first line up to a run-in dash (its dateline), cut to be quoted in a warning."""
    line = re.split(r"--|—", paragraph.strip().split("\n", 1)[0], maxsplit=1)[0].rstrip()
    return line if len(line) <= _QUOTED_CHARS else line[: _QUOTED_CHARS - 1].rstrip() + "…"


def named_year(title: str) -> int | None:
    """The year a heading gives the days under it that leave theirs out: a year alone ("1903"), or the year of
    a day or month it names ("Week of 3 July 2023", "2023-07-03", "July 2023", "Май 2024", "2024年5月"). None if it
    names none."""
    if year := heading_year(title):
        return year
    for rx in (_rx().iso, _rx().ymd):
        for m in rx.finditer(title):
            if iso_day(int(m.group(1)), int(m.group(2)), int(m.group(3))):
                return int(m.group(1))
    if (named := _rx().named.search(title)) and _named_date(named):
        return int(named.group("y1") or named.group("y2"))
    if month := _rx().month_year.search(title):
        return int(month.group(1))
    # In any language: "3 мая 2024", "2024年5月3日", "2024/05/03", a month's "# Май 2024", "# 2024年5月".
    day = heading_day(title)
    return int(day[:4]) if day else month_year(title)


class _HeadingDays:
    """The days a text's headings name, read in order as the summarizer reads them (its ``entry_date``): a
    day heading without its year takes the year of the last heading that named one (:func:`named_year`), and
    its day holds for the text under it until the next day heading. ``slip``: the first day heading that names
    a day no calendar has ("## 2024-02-30", "## 31 April 2024"), which dates nothing."""

    __slots__ = ("day", "days", "slip", "year")

    def __init__(self) -> None:
        self.day: str | None = None
        self.days: list[str] = []
        self.slip: _Slip | None = None
        self.year: int | None = None

    def read(self, paragraph: str) -> str:
        """Take in ``paragraph``'s heading lines (lines opening with "#"); the prose under them, "" if none."""
        lines = paragraph.strip("\n").split("\n")
        k = 0
        while k < len(lines) and lines[k].lstrip().startswith("#"):
            title = lines[k].strip().strip("#").strip()
            self.year = named_year(title) or self.year
            day = entry_date(title, self.year)
            if day is not None:
                self.day = day
                self.days.append(day)
            elif self.slip is None and (slip := _iso_slip(title) or heading_slip(title, self.year)):
                self.slip = (slip, f'its heading "{_quoted(title)}"')
            k += 1
        return "\n".join(lines[k:])


# An ISO day a heading names as the summarizer's entry_date reads one (a heading of up to eight words), month and
# day in range: entry_date dates nothing by one no calendar has ("2024-02-30"), but the user meant a day.
_ISO_HEADING_DAY = re.compile(r"(?<!\d)([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?!\d)")


def _iso_slip(title: str) -> str | None:
    """The ISO day ``title`` writes when no calendar has it ("## 2024-02-30"), else None."""
    m = _ISO_HEADING_DAY.search(title)
    if m is None or len(title.split()) > 8 or iso_day(int(m.group(1)), int(m.group(2)), int(m.group(3))):
        return None
    return m.group(0)


def _paragraphs(text: str, start: int) -> Iterator[str]:
    """The paragraphs of ``text`` from ``start``, one at a time: a book's text is not copied whole."""
    pos = start
    for gap in BLANK_LINES.finditer(text, start):
        yield text[pos : gap.start()]
        pos = gap.end()
    yield text[pos:]


# An ISO timestamp's day ("2024-03-05T10:00:00Z"); a year before 1980 is a tool's placeholder, not a day written.
_ISO_DAY = re.compile(r"\s*((?:19[89]\d|2\d{3})-\d{2}-\d{2})")


def stamp_day(stamp: str) -> str | None:
    """The calendar day an ISO timestamp opens with (a document's ``created`` property, a page's ``<time>``), or
    None when it names no day of the calendar ("2024-13-45": a real date would break its month's digest)."""
    day = _ISO_DAY.match(stamp)
    try:
        return day.group(1) if day is not None and dt.date.fromisoformat(day.group(1)) else None
    except ValueError:
        return None
