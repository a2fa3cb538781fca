"""Emacs Org mode files (``.org``: org-journal, org-roam, plain Org notes) rendered as the Markdown the pipeline reads.

Headings ``*``, ``**``, ... are ``#``, ``##``, ...; a heading with a TODO keyword is a task (``- [ ] ...``,
``- [x] ...`` once done or cancelled), its priority cookie, statistics cookie and tags left out, its
``DEADLINE:`` its due date (``📅 2024-03-15``). A day heading (org-journal's ``* Tuesday, 03/05/24`` or
``* 2024-03-05 Tuesday``, or a heading holding a timestamp) is written ISO date first, ``# 2024-03-05 Tuesday``,
so the entries under it are dated as a Markdown journal's ``## 2024-03-05`` entries are. ``#+TITLE:`` is the
page's ``#`` title and ``#+DATE:`` its front matter's ``date``; what Org never shows as text is left out: other
``#+KEYWORD:`` lines, drawers (``:PROPERTIES:``, ``:LOGBOOK:``), planning lines, comments, ``COMMENT``
subtrees, footnotes and org-crypt's encrypted entries. Source and example blocks are fenced code, quotes
``>`` lines, tables Markdown rows; links read as their labels, emphasis as its words (strike-through dropped),
timestamps as the date they name.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from pathlib import Path

__all__ = ["day_title", "inline", "render_org"]

# A heading's title is taken whole and stripped by its readers: "(.*?)[ \t]*$" retried the trailing blanks
# at every position (quadratic on a long run of them).
_HEADING = re.compile(r"^(\*+)[ \t]+(.*)$")
_BARE_HEADING = re.compile(r"^(\*+)[ \t]*$")
# Org's default keywords and those of the packages people use with it (Logseq's org pages: LATER, DOING).
_OPEN = frozenset({"TODO", "NEXT", "WAITING", "HOLD", "LATER", "DOING", "STARTED"})
_DONE = frozenset({"DONE", "CANCELLED", "CANCELED"})
_PRIORITY = re.compile(r"^\[#[A-Za-z0-9]\][ \t]*")
# Each pattern that opens on blanks opens only on a run's first: linear on a long run of them.
_TAGS = re.compile(r"(?<![ \t])[ \t]+(:[\w@#%]+(?::[\w@#%]+)*:)$")
_COOKIE = re.compile(r"(?<![ \t])[ \t]*\[(?:\d*/\d*|\d*%)\]")  # "[1/3]", "[33%]": a task's progress, no words
_PLANNING = re.compile(r"^(?:(?:CLOSED|SCHEDULED|DEADLINE):[ \t]*[<\[][^>\]\n]*[>\]][ \t]*)+$")
_DEADLINE = re.compile(r"DEADLINE:[ \t]*<(\d{4}-\d{2}-\d{2})")
_DRAWER = re.compile(r"^:[\w-]+:$")
_DRAWER_END = re.compile(r"^:END:$", re.IGNORECASE)
_CREATED = re.compile(r"^:CREATED:[ \t]+\[?(\d{4})-?(\d{2})-?(\d{2})", re.IGNORECASE)
_BLOCK = re.compile(r"^#\+BEGIN_(\w+)(?:[ \t]+(\S+))?", re.IGNORECASE)
_DYNAMIC = re.compile(r"^#\+BEGIN:", re.IGNORECASE)
_KEYWORD = re.compile(r"^#\+(\w+):[ \t]*(.*)$")
_TODO_KEYWORDS = frozenset({"TODO", "SEQ_TODO", "TYP_TODO"})
_COMMENT = re.compile(r"^#(?:[ \t]|$)")
_FIXED = re.compile(r"^:(?:[ \t](.*))?$")
_RULE = re.compile(r"^-{5,}$")
_TABLE_RULE = re.compile(r"^\|[-+:]+\|?$")
_LIST = re.compile(r"^([ \t]*)(?:([-+])|(?<=\s)\*|(\d+)([.)]))[ \t]+(.*)$")
_CHECKBOX = re.compile(r"^\[([ xX-])\][ \t]*")
_FOOTNOTE_DEF = re.compile(r"^\[fn:[^\]]+\]")
_FOOTNOTE_REF = re.compile(r"(?<![ \t])[ \t]*\[fn:[^\]\n]*\]")
_PGP_BEGIN = "-----BEGIN PGP MESSAGE-----"
_PGP_END = "-----END PGP MESSAGE-----"
# A timestamp, active or inactive: "<2024-03-05 Tue>", "[2024-03-05 Tue 10:30]", "<2024-03-05 Tue 10:00-11:00 +1w>".
_TIMESTAMP = re.compile(r"[<\[](\d{4}-\d{2}-\d{2})(?:[ \t]+([^>\]\n]{0,60}))?[>\]]")  # bounded: linear in a line
_TIME = re.compile(r"\d{1,2}:\d{2}(?:-\d{1,2}:\d{2})?")
_RANGE = re.compile(r"(?<=[>\]])--(?=[<\[]\d{4}-)")
_LINK = re.compile(r"\[\[([^\[\]\n]+)\](?:\[([^\[\]\n]+)\])?\]")
# Emphasis as Org reads it: a mark after a line's start, a space or an opening bracket, the text not opening
# or closing with a space, then the same mark before a space, punctuation or the line's end ("2*3*4" is none).
# The text holds no mark of its own kind: a try stops at the next one, so a line is read in linear time (any
# text had made a line of many marks quadratic: minutes for 200 KB).
_EMPHASIS = tuple(
    re.compile(rf"(^|[\s\-({{'\"])({m})([^\s{m}]|[^\s{m}][^\n{m}]*?[^\s{m}]){m}(?=[\s\-.,;:!?'\")}}\[\]]|$)")
    for m in (r"\*", "/", "=", "~", r"\+", "_")
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A heading that is a day and nothing else: "Tuesday, 03/05/24" (org-journal's default "%A, %x"),
# "2024-03-05 Tuesday", "Tuesday, 2024-03-05", "05.03.2024".
_DAY_TITLE = re.compile(
    r"(?:(?P<wd1>[A-Za-z]{3,9})\.?,?[ \t]+)?"
    r"(?:(?P<iso>\d{4}-\d{2}-\d{2})|(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2}))"
    r"(?:,?[ \t]+(?P<wd2>[A-Za-z]{3,9})\.?)?"
)
_BLANK_RUNS = re.compile(r"\n{3,}")


def render_org(text: str, warnings: list[str] | None = None, path: Path | None = None) -> str:
    """An Org file's text as Markdown (see the module's docstring): headings, tasks, day headings ISO-dated,
    paragraphs, lists, tables and quotes, without what Org never shows as text. ``warnings`` is told of
    encrypted entries left out; ``path`` is unused (the renderers' common signature). Raises ValueError
    when the whole file is an encrypted (PGP) message, which holds no text to read."""
    del path
    if text.lstrip("\ufeff \t\r\n").startswith(_PGP_BEGIN):
        raise ValueError("an encrypted file (PGP message), not Org text: decrypt it to have it read")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    reader = _Reader(lines)
    body = reader.render()
    if reader.encrypted and warnings is not None:
        warnings.append(
            f"{reader.encrypted} encrypted entr{'y' if reader.encrypted == 1 else 'ies'} (org-crypt) not read"
        )
    if reader.slip and warnings is not None:  # the user meant a day: dated by another, unexplained
        warnings.append(reader.slip)
    head = f"---\ndate: {reader.date}\n---\n\n" if reader.date else ""
    title = f"# {reader.title}\n\n" if reader.title else ""
    return head + title + _BLANK_RUNS.sub("\n\n", body).strip("\n")


def _year(digits: str) -> int:
    """A two-digit year in this century or the last ("24" is 2024, "98" 1998); a four-digit year as it is."""
    year = int(digits)
    if len(digits) == 2:
        year += 2000 if year <= dt.date.today().year % 100 + 1 else 1900
    return year


def _weekday(word: str | None) -> int | None:
    """The weekday (Monday 0) an English weekday's name or its abbreviation names, None for any other word."""
    if not word:
        return None
    low = word.lower()
    return next((k for k, name in enumerate(_WEEKDAYS) if len(low) >= 3 and name.startswith(low)), None)


def _day(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _day_options(title: str) -> dict[str, dt.date] | None:
    """The days a heading that is only a day may name, by the order that reads it so ("iso", "mdy", "dmy"):
    those its weekday fits. None for any other heading ("Meeting 03/05/24": a word that is no weekday)."""
    m = _DAY_TITLE.fullmatch(title.strip())
    words = [w for w in (m.group("wd1"), m.group("wd2")) if w] if m else []
    weekdays = [_weekday(w) for w in words]
    if m is None or None in weekdays or len(words) > 1:
        return None
    if m.group("iso"):
        options = {"iso": _day(*(int(p) for p in m.group("iso").split("-")))}
    else:
        a, b, year = int(m.group("a")), int(m.group("b")), _year(m.group("y"))
        options = {"mdy": _day(year, a, b), "dmy": _day(year, b, a)}
    return {k: d for k, d in options.items() if d is not None and weekdays in ([], [d.weekday()])}


def day_title(title: str, order: str | None = None) -> str | None:
    """The ISO day a heading that is only a day names ("Tuesday, 03/05/24", "2024-03-05 Tuesday"), None for
    any other heading. A numeric day's order (month or day first: Emacs writes the locale's ``%x``) is the
    one its weekday fits, else the one a number over 12 fixes, else ``order`` (the one the file's other day
    headings fix: "mdy" or "dmy"); else None, undated rather than dated wrong."""
    options = _day_options(title)
    if not options:
        return None
    days = set(options.values())
    if len(days) == 1:
        return days.pop().isoformat()
    return options[order].isoformat() if order in options else None


def _no_such_day(title: str) -> str | None:
    """The day a numeric heading that is only a day writes ("Friday, 02/30/24": "2024-02-30"), when neither order
    of its numbers makes a day of the calendar; else None (an ISO one is :mod:`batchsum.doc_dates`' to check)."""
    m = _DAY_TITLE.fullmatch(title.strip())
    if m is None or m.group("iso") or any(w and _weekday(w) is None for w in (m.group("wd1"), m.group("wd2"))):
        return None
    a, b, year = int(m.group("a")), int(m.group("b")), _year(m.group("y"))
    written = ((a, b), (b, a))  # (month, day) in either order Emacs's %x may write
    if any(_day(year, month, day) for month, day in written):
        return None
    meant = (f"{year:04d}-{month:02d}-{day:02d}" for month, day in written if 1 <= month <= 12 and 1 <= day <= 31)
    return next(meant, None)


def _file_order(lines: list[str]) -> str | None:
    """ "mdy" or "dmy" when the file's numeric day headings that read one way only all read that way."""
    fixed: set[str] = set()
    for line in lines:
        heading = _HEADING.match(line) if line.startswith("*") else None
        options = _day_options(heading.group(2).rstrip()) if heading else None
        if options and len(options) == 1 and "iso" not in options:
            fixed.update(options)
    return fixed.pop() if len(fixed) == 1 else None


def _timestamp_text(m: re.Match[str]) -> str:
    """A timestamp as the date (and time) it names: "<2024-03-05 Tue 10:30>" reads "2024-03-05 10:30"."""
    time = _TIME.search(m.group(2) or "")
    return f"{m.group(1)} {time.group(0)}" if time else m.group(1)


def _link_text(m: re.Match[str]) -> str:
    """A link as its reader sees it: its label, else its target without Org's link type ("file:x.org": "x")."""
    if m.group(2):
        return m.group(2)
    target = m.group(1)
    if target.startswith("id:"):
        return ""  # an id alone names nothing a reader sees
    target = target.removeprefix("roam:").removeprefix("file:").lstrip("*#")
    return target.removesuffix(".org") if "://" not in target else target


def _emphasis(m: re.Match[str]) -> str:
    return m.group(1) if m.group(2) == "+" else m.group(1) + m.group(3)  # struck-through words are no text


def inline(text: str) -> str:
    """A line's Org marks as their reader sees them: links as their labels, emphasis as its words (struck
    words dropped), timestamps as the date they name, footnote marks left out."""
    if "[" in text or "<" in text:
        text = _RANGE.sub(" – ", text)
        text = _TIMESTAMP.sub(_timestamp_text, text)
        text = _LINK.sub(_link_text, text)
        text = _FOOTNOTE_REF.sub("", text)
    marked = text
    for _ in range(2):  # nested emphasis: "*/both/*"
        for mark in _EMPHASIS:
            text = mark.sub(_emphasis, text)
    if "+" in marked and text != marked:  # a struck word's place: "the  lease"
        text = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", text)
    return text


class _Reader:
    """One pass over an Org file's lines, writing the Markdown lines they read as."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out: list[str] = []
        self.title = ""
        self.date = ""
        self.encrypted = 0
        self.slip = ""  # the warning for the first day heading that names no day of the calendar
        self.open, self.done = set(_OPEN), set(_DONE)
        self.list_indents: list[int] = []
        self.order = _file_order(lines)
        self._index()
        # A title is the page's "#": its headings one level below it, as Org exports them.
        self.shift = 0
        for line in lines:  # "#+TODO: TODO FEEDBACK | DONE DELEGATED" holds anywhere in the file
            key = _KEYWORD.match(line.strip()) if line.lstrip().startswith("#+") else None
            if key and key.group(1).upper() in _TODO_KEYWORDS:
                self._todo_keywords(key.group(2))
            elif key and key.group(1).upper() == "TITLE" and key.group(2).strip():
                self.shift = 1

    def _todo_keywords(self, value: str) -> None:
        words = [re.sub(r"\(.*\)$", "", w) for w in value.split()]
        if "|" in words:
            cut = words.index("|")
            self.open.update(words[:cut])
            self.done.update(words[cut + 1 :])
        elif words:
            self.open.update(words[:-1])
            self.done.add(words[-1])

    def _index(self) -> None:
        """Where each block's closing line and each drawer's ":END:" are, found in one pass: a search from each
        opening line had made a file of many unclosed ones quadratic."""
        n = len(self.lines)
        self.closers: dict[str, list[int]] = {}  # "#+END_SRC", "#+END:", the PGP end: their lines, in order
        self.next_end = [n] * (n + 1)  # the first ":END:" line at or after each line
        self.next_heading = [n] * (n + 1)
        for k in range(n - 1, -1, -1):
            line = self.lines[k]
            stripped = line.strip()
            self.next_end[k] = k if _DRAWER_END.match(stripped) else self.next_end[k + 1]
            self.next_heading[k] = k if _is_heading(line) else self.next_heading[k + 1]
            if stripped[:5].upper() == "#+END" or stripped.startswith(_PGP_END):
                key = _PGP_END if stripped.startswith(_PGP_END) else stripped.split(maxsplit=1)[0].upper()
                self.closers.setdefault(key, []).append(k)
        for found in self.closers.values():
            found.reverse()

    def _block_end(self, start: int, end_mark: str) -> int | None:
        """The index of the line ``end_mark`` closes a block on (any case), None when it never comes."""
        found = self.closers.get(end_mark.upper(), [])
        at = bisect.bisect_right(found, start)
        return found[at] if at < len(found) else None

    def _drawer_end(self, start: int) -> int | None:
        """The index of a drawer's ":END:" line; None without one before the next heading (Org then reads
        the opening line as text: a drawer never crosses a heading)."""
        end = self.next_end[start + 1]
        return end if end < self.next_heading[start + 1] and end < len(self.lines) else None

    def _emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def render(self) -> str:
        """The Markdown of the whole file."""
        i = 0
        while i < len(self.lines):
            i = self._line(i)
        return "\n".join(self.out)

    def _line(self, i: int) -> int:
        """Read the construct that opens at line ``i``; the index of the first line after it."""
        line = self.lines[i]
        stripped = line.strip()
        if (m := _HEADING.match(line)) or _BARE_HEADING.match(line):
            return self._heading(i, m)
        if not stripped:
            self.list_indents = []
            self._emit("")
            return i + 1
        if stripped.startswith("#+") or _COMMENT.match(stripped):
            return self._hash_line(i, stripped)
        if _DRAWER.match(stripped):  # a drawer up to its ":END:"; a stray ":END:" is markup too
            end = self._drawer_end(i)
            if end is not None or _DRAWER_END.match(stripped):
                return (end if end is not None else i) + 1
        if _PLANNING.match(stripped) or stripped.startswith("CLOCK:"):
            return i + 1
        if stripped.startswith(_PGP_BEGIN):
            self.encrypted += 1
            end = self._block_end(i, _PGP_END)
            return len(self.lines) if end is None else end + 1
        if _FIXED.match(stripped):
            return self._fixed_width(i)
        if stripped.startswith("|"):
            return self._table(i)
        if _RULE.match(stripped) or _FOOTNOTE_DEF.match(line):
            self._emit("")
            return i + 1
        if m := _LIST.match(line):
            self._list_item(m)
            return i + 1
        if self.list_indents and line[:1] in " \t":
            self._emit("  " + inline(stripped))  # an item's further line, under it
        else:
            self.list_indents = []
            self._emit(inline(stripped))
        return i + 1

    def _hash_line(self, i: int, stripped: str) -> int:
        """A ``#+`` line (a block, a keyword) or a comment."""
        if block := _BLOCK.match(stripped):
            return self._block(i, block.group(1).upper(), block.group(2) or "")
        if _DYNAMIC.match(stripped):  # a clock table's or a column view's rows: made by Org, no one's words
            end = self._block_end(i, "#+END:")
            return i + 1 if end is None else end + 1
        key = _KEYWORD.match(stripped)
        if key and key.group(1).upper() == "TITLE" and not self.title:
            self.title = inline(key.group(2).strip())
        elif key and key.group(1).upper() == "DATE" and not self.date:
            found = re.search(r"\d{4}-\d{2}-\d{2}", key.group(2))
            day = _day(*(int(p) for p in found.group(0).split("-"))) if found else None
            self.date = day.isoformat() if day else ""
        return i + 1

    def _block(self, i: int, kind: str, language: str) -> int:
        end = self._block_end(i, f"#+END_{kind}")
        if end is None:  # Org reads an unclosed block's lines as text: its opening line is markup all the same
            return i + 1
        body = self.lines[i + 1 : end]
        self.list_indents = []
        if kind in ("SRC", "EXAMPLE"):
            fence = "````" if any("```" in ln for ln in body) else "```"
            self._emit("", fence + (language if kind == "SRC" else ""), *_dedent(body), fence, "")
        elif kind == "QUOTE":
            self._emit("", *(f"> {inline(ln.strip())}".rstrip() for ln in body), "")
        elif kind not in ("COMMENT", "EXPORT", "QUERY"):  # a verse, a centred or a special block: its text
            for k in range(i + 1, end):
                self._line_plain(self.lines[k])
        return end + 1

    def _line_plain(self, line: str) -> None:
        stripped = line.strip()
        self._emit(inline(stripped) if not stripped.startswith("#") else "")

    def _fixed_width(self, i: int) -> int:
        """Consecutive ``: text`` lines, Org's fixed-width text: a code block."""
        code: list[str] = []
        while i < len(self.lines) and (m := _FIXED.match(self.lines[i].strip())):
            code.append(m.group(1) or "")
            i += 1
        self._emit("", "```", *code, "```", "")
        return i

    def _table(self, i: int) -> int:
        """A table's rows as Markdown rows; its rules ``|---+---|`` as Markdown's ``|---|---|``."""
        self._emit("")
        while i < len(self.lines) and (row := self.lines[i].strip()).startswith("|"):
            if _TABLE_RULE.match(row):
                self._emit("|" + "---|" * (row.count("+") + 1))
            else:
                self._emit(inline(row if row.endswith("|") else row + " |"))
            i += 1
        self._emit("")
        return i

    def _list_item(self, m: re.Match[str]) -> None:
        indent = len(m.group(1).expandtabs(8))
        while self.list_indents and self.list_indents[-1] >= indent:
            self.list_indents.pop()
        # One level of nesting at most: four spaces after a blank line would be read as code.
        nest = "  " if self.list_indents else ""
        self.list_indents.append(indent)
        text = m.group(5)
        marker = f"{m.group(3)}." if m.group(3) else "-"
        box = _CHECKBOX.match(text)
        if box:
            text = text[box.end() :]
            marker += " [x]" if box.group(1) in "xX" else " [ ]"
        term, sep, desc = text.partition(" :: ")
        text = f"{term}: {desc}" if sep else text.removesuffix(" ::")
        self._emit(f"{nest}{marker} {inline(text)}".rstrip())

    def _heading(self, i: int, m: re.Match[str] | None) -> int:
        """A heading, the planning line and property drawer under it: a Markdown heading or a task."""
        level = len(m.group(1)) if m else len(self.lines[i].strip())
        rest = m.group(2).rstrip() if m else ""
        self.list_indents = []
        keyword, _, after = rest.partition(" ")
        if keyword == "COMMENT" or rest == "COMMENT":  # a commented-out subtree: never exported, never read
            return self._skip_subtree(i, level)
        task = keyword if keyword in self.open or keyword in self.done else None
        title = after if task else rest
        title = _COOKIE.sub("", _TAGS.sub("", _PRIORITY.sub("", title.strip()))).strip()
        i += 1
        deadline: str | None = None
        created: re.Match[str] | None = None
        while i < len(self.lines):
            stripped = self.lines[i].strip()
            if _PLANNING.match(stripped):
                found = _DEADLINE.search(stripped)
                deadline = found.group(1) if found else deadline
                i += 1
            elif stripped.upper() == ":PROPERTIES:" and (end := self._drawer_end(i)) is not None:
                created = next(filter(None, (_CREATED.match(ln.strip()) for ln in self.lines[i + 1 : end])), None)
                i = end + 1
            else:
                break
        if task:
            due = f" 📅 {deadline}" if deadline and task in self.open else ""
            box = "[x]" if task in self.done else "[ ]"
            self._emit("", f"- {box} {inline(title)}{due}".rstrip(), "")
            return i
        heading = self._dated_title(title, level, created)
        self._emit("", f"{'#' * min(level + self.shift, 6)} {heading}".rstrip(), "")
        return i

    def _dated_title(self, title: str, level: int, created: re.Match[str] | None) -> str:
        """A heading's text, ISO day first when it names a day (module docstring)."""
        day = day_title(title, self.order)
        if day is None and not self.slip and (meant := _no_such_day(title)):
            self.slip = f'its heading "{title}" names {meant}, no day of the calendar: it dates nothing'
        if created and day is None and _day_options(title):  # org-journal's CREATED: the day it was written
            found = _day(int(created.group(1)), int(created.group(2)), int(created.group(3)))
            day = found.isoformat() if found else None
        if day:
            return f"{day} {dt.date.fromisoformat(day).strftime('%A')}"
        if stamp := _TIMESTAMP.search(title):
            rest = _TIMESTAMP.sub("", title)
            rest = " ".join(inline(rest).split()).strip(" -–—:,")
            return f"{_timestamp_text(stamp)} {rest}".rstrip()
        if created and level == 1:  # org-journal's day of a heading in a weekly, monthly or yearly file
            day_found = _day(int(created.group(1)), int(created.group(2)), int(created.group(3)))
            if day_found:
                return f"{day_found.isoformat()} {inline(title)}".rstrip()
        return inline(title)

    def _skip_subtree(self, i: int, level: int) -> int:
        i += 1
        while i < len(self.lines):
            m = _HEADING.match(self.lines[i]) or _BARE_HEADING.match(self.lines[i])
            if m and len(m.group(1)) <= level:
                break
            i += 1
        return i


def _is_heading(line: str) -> bool:
    return line.startswith("*") and (_HEADING.match(line) or _BARE_HEADING.match(line)) is not None


def _dedent(lines: list[str]) -> list[str]:
    """A block's lines without the indentation they share (Org indents a block with its heading's text)."""
    widths = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(widths, default=0)
    return [ln[cut:].rstrip() for ln in lines]
