"""Due dates as a sentence or a written task says them, whole: "by Friday March 15", "by end of day tomorrow",
"by Friday at noon", "by 5pm" (the rules of :mod:`batchsum.facets` and :mod:`batchsum.written_facets`)."""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["WEEKDAYS", "bracketed_date", "dated_weekday", "due_date"]

# A due date as said, whole: "Friday March 15", "15 March", "the 15th", "end of the month", "next Tuesday".
# Month names only capitalised: "may" and "march" are words too.
_MONTH = (
    r"(?-i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# A day of the month in words ("by Friday the ninth"), where no noun follows: "the first draft" is no day.
_ORDINAL = (
    r"(?:(?:twenty|thirty)[- ])?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|tenth|eleventh"
    r"|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth|twentieth|thirtieth"
)
_DATE = (
    rf"(?:{_MONTH}\.? {_DAY}(?:,? \d{{4}})?|{_DAY}(?: of)? {_MONTH}(?:,? \d{{4}})?"
    rf"|the \d{{1,2}}(?:st|nd|rd|th)(?: of {_MONTH})?"  # "the 15th", not "the 2 options"
    rf"|the (?:{_ORDINAL})(?: of {_MONTH}(?:,? \d{{4}})?|(?=\s*(?:[.,;:!?)]|$|at\b))))"
)
_SOON = (
    rf"(?:(?:next|this|coming) )?{_WEEKDAY}(?:,? {_DATE})?(?: (?:morning|afternoon|evening|night))?"
    r"|tomorrow(?: (?:morning|afternoon|evening|night))?|tonight|this (?:morning|afternoon|evening)"
    r"|(?:the )?end of (?:the |this |next )?(?:day|week|month|quarter|year|sprint)"
    rf"(?: (?:today|tomorrow|(?:on )?(?:(?:next|this|coming) )?{_WEEKDAY}))?"  # "end of day tomorrow"
)
# A time of day, kept with the day it is on ("Friday at noon") or a deadline alone ("by 5pm", "by 17:30").
_CLOCK = r"(?:noon|midnight|\d{1,2}(?::\d{2})? ?(?:am|pm)|\d{1,2}:\d{2})"
_AT = rf"(?:,? at {_CLOCK})?"
_ISO_DATE = r"\d{4}-\d{2}-\d{2}"
# "on" gives a day ("on Friday", "on the 15th"), not a deadline: "later on this week" is no "on this week".
_DUE = re.compile(
    r"\b(?:(?:by|before|due(?: by| on)?|no later than)\s+"
    rf"(?P<when>(?:{_SOON}|{_DATE}|{_ISO_DATE}|(?:the )?end of {_MONTH}"
    rf"|(?:next|this) (?:week|month|quarter|sprint|year)|today|eod|eow){_AT}|{_CLOCK})"
    rf"|on\s+(?P<day>(?:(?:(?:next|this|coming) )?{_WEEKDAY}(?:,? {_DATE})?|{_DATE}|{_ISO_DATE}){_AT}))\b",
    re.I,
)
# Without "by": "next week", "tomorrow", "Friday"; "today's" is no date.
_DUE_BARE = re.compile(rf"\b(?P<bare>(?:{_SOON}|next (?:week|month)|today(?!'s)){_AT})\b", re.I)


# A written task's date in brackets at its end: "- [ ] Sofia: wireframes (Sep 10)", "(due Friday)".
_BRACKETED_DUE = re.compile(rf"\((?:due:? )?(?P<when>{_DATE}|{_ISO_DATE}|{_SOON}|today)\)[.!]?$", re.I)


def bracketed_date(text: str) -> str | None:
    """The due date a written task gives in brackets at its end (``(Sep 10)``), or None."""
    m = _BRACKETED_DUE.search(text.rstrip())
    return m.group("when") if m else None


# "For" names the occasion a thing is for, not when it is due: "Book the boat for Thursday", "slides for
# the end of the month" (a bare time right after it, or inside one: the "Thursday" of "for next Thursday").
# "Until" says how long a state lasts, no deadline: "Let's keep it until Friday and then remove it."
_FOR = re.compile(r"\b(?:for|until|till) (?:(?:the|next|this|coming) )?$", re.I)


def _bare(text: str) -> re.Match[str] | None:
    """The first bare time ``text`` says ("next week", "Friday") that is not what something is for."""
    return next((m for m in _DUE_BARE.finditer(text) if not _FOR.search(text, 0, m.start())), None)


def due_date(text: str) -> str | None:
    """The due date a sentence gives, a deadline ("by Friday March 15") before a bare time ("today"); a time
    something is for ("for Thursday") is none."""
    m = _DUE.search(text) or _bare(text)
    if not m:
        return None
    when = next(g for g in m.groups() if g)
    when = when[4:] if when.lower().startswith("the end") else when
    first, _, rest = when.partition(" ")
    # "Today I'll send ..." is due today; a weekday or a month keeps its capital.
    relative = first.lower() in {"today", "tomorrow", "tonight", "next", "this", "coming", "end", "the", "eod", "eow"}
    return (first.lower() + (" " + rest if rest else "")) if relative else when


# A weekday a due date names without its date ("Thursday", "this Friday at noon", "end of day Friday"); not
# "next Thursday", which some read as this week's and others as the next week's.
_LONE_WEEKDAY = re.compile(rf"(?<!next )\b(?P<day>{_WEEKDAY})\b(?!,? (?:{_DATE}|{_ISO_DATE})\b)", re.I)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # by date.weekday()


def dated_weekday(due: str, day: str | None) -> str:
    """``due`` with the weekday it names followed by its date, the first such day on or after ``day`` (the ISO
    date of the text that says it): "Thursday" in a note of Tuesday 2024-03-12 is "Thursday 2024-03-14". A
    weekday alone means nothing once its week is over. Without ``day`` (an undated file) ``due`` is kept."""
    m = _LONE_WEEKDAY.search(due)
    if m is None or day is None:
        return due
    try:
        start = dt.date.fromisoformat(day)
    except ValueError:
        return due
    ahead = (WEEKDAYS.index(m.group("day").capitalize()) - start.weekday()) % 7
    return f"{due[: m.end()]} {(start + dt.timedelta(days=ahead)).isoformat()}{due[m.end() :]}"
