"""Split a journal into entries and a conversation into turns: the units facts are extracted from.

A unit's hash decides whether it was already processed, so appending an entry to a journal (or a
turn to a conversation) makes exactly one new unit; the entries above it keep their hashes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass

from batchsum.model import Document
from batchsum.periods import WEEKDAY_WORDS, days_named, only_a_day, real_date
from batchsum.speaker_labels import parse_speaker_line
from batchsum.text import email_sender

# A Markdown heading or a bold line, and its words: "## 2026-10-05", "**9. Oktober 2026**".
_HEADING = re.compile(r"[ \t]{0,3}(?:#{1,6}|\*\*)(.*)")
_DAY_WORDS = 6  # the most words a heading's leading day takes ("Monday, the 5th of October 2026")
# A weekday before the day ("Monday, October 5", "Freitag, 9. Oktober 2026", "martedì 5 marzo 2024"), in the
# languages whose months batchsum reads (periods.WEEKDAY_WORDS), and English's short forms ("Mon, Oct 5").
_WEEKDAYS = WEEKDAY_WORDS | frozenset("mon tue tues wed thu thur thurs fri sat sun".split())
# An English month's short name, as a diary's heading writes it ("Mon, Oct 5"), read as the month.
_MONTH_ABBREVIATIONS = {
    m[:3].lower(): m
    for m in "January February March April June July August September October November December".split()
} | {"sept": "September"}
# A day in figures ("14-03-2025", "14.03.2025", "3/14/2025"), in either order: it dates an entry only when
# one order alone makes a day, as a file's name does (doc_dates).
_NUMERIC_DAYS = ("%d-%m-%Y", "%m-%d-%Y", "%d.%m.%Y", "%m.%d.%Y", "%d/%m/%Y", "%m/%d/%Y")
# Speakers whose words are not the user's: seed-style extraction ignores assistant and system text.
NON_USER_SPEAKERS = frozenset({"assistant", "system", "tool", "function", "developer"})
# Labels of a role, not of a person: a conversation with one of them is a chat with an assistant, whose
# user is the human ("User:"/"Assistant:", as a chat export or an agent session renders its turns).
ROLE_SPEAKERS = NON_USER_SPEAKERS | {"user", "human"}
MAX_UNIT_CHARS = 8000  # a longer entry is cut (with a warning): one request must fit a small context window


@dataclass(frozen=True)
class Unit:
    """One journal entry or conversation turn."""

    text: str
    line: int  # 1-based first line in the rendered source
    turn: int | None  # 1-based turn number (conversations)
    date: str | None  # ISO date of the entry, if it has one
    speaker: str | None = None

    @property
    def key(self) -> str:
        """Hash of the unit's text (whitespace-normalized): what "already processed" is keyed on."""
        return hashlib.sha256(" ".join(self.text.split()).encode("utf-8")).hexdigest()[:32]

    @property
    def where(self) -> str:
        """Human form of the position: ``line 12`` or ``turn 3``."""
        return f"turn {self.turn}" if self.turn is not None else f"line {self.line}"


def _strip_front_matter(lines: list[str]) -> int:
    """Index of the first line after a leading YAML front matter block (0 when there is none)."""
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


def _numeric_days(word: str) -> set[str]:
    """The days ``word`` names in figures, one per order that makes a calendar day."""
    days: set[str] = set()
    for form in _NUMERIC_DAYS:
        try:
            days.add(dt.datetime.strptime(word, form).date().isoformat())
        except ValueError:
            continue
    return days


def _heading_day(line: str) -> tuple[bool, str | None]:
    """Whether ``line`` is a heading (or bold line) that opens with a day, and that day (ISO; None when
    it leaves the year out or its figures read as two days). A day is what batchsum reads as one in any
    of its languages (:func:`batchsum.periods.only_a_day`: "2026-10-05", "9 October 2026", "October 9,
    2026", "9. Oktober 2026", "9 octobre 2026"), or figures ("14.03.2025"), after a weekday."""
    m = _HEADING.match(line)
    if m is None:
        return False, None
    words = [_MONTH_ABBREVIATIONS.get(w.strip("*_").rstrip(".").lower(), w.strip("*_")) for w in m.group(1).split()]
    if words and words[0].rstrip(",.").lower() in _WEEKDAYS:
        words = words[1:]
    for n in range(min(len(words), _DAY_WORDS), 0, -1):
        lead = " ".join(words[:n]).rstrip(",:;")
        if only_a_day(lead):
            day = days_named(lead)[0]
            return True, None if day.startswith("-") else day
    if words:
        days = _numeric_days(words[0].rstrip(",:;"))
        if days:
            return True, days.pop() if len(days) == 1 else None
    return False, None


def journal_entries(doc: Document) -> list[Unit]:
    """Entries of a journal: sections under dated headings, or the whole file when it has none."""
    lines = doc.text.split("\n")
    start = _strip_front_matter(lines)
    dated = {i: _heading_day(lines[i]) for i in range(start, len(lines)) if lines[i].lstrip()[:1] in ("#", "*")}
    heads = [i for i, (is_day, _) in dated.items() if is_day]
    if not heads:
        text = "\n".join(lines[start:]).strip()
        return [Unit(text, start + 1, None, doc.doc_date)] if text else []
    units: list[Unit] = []
    if "\n".join(lines[start : heads[0]]).strip():  # a preamble before the first dated entry
        units.append(Unit("\n".join(lines[start : heads[0]]).strip(), start + 1, None, doc.doc_date))
    for n, h in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else len(lines)
        text = "\n".join(lines[h:end]).strip()
        if text:
            units.append(Unit(text, h + 1, None, dated[h][1] or doc.doc_date))
    return units


def _header_blocks(lines: list[str]) -> dict[int, tuple[int, str]]:
    """The e-mail header blocks among ``lines`` (:func:`batchsum.text.email_sender`), by their first line:
    (the line after the block, the sender's name)."""
    blocks: dict[int, tuple[int, str]] = {}
    start = 0
    for end in range(len(lines) + 1):
        if end < len(lines) and lines[end].strip():
            continue
        if end > start and (sender := email_sender(lines[start:end])) is not None:
            blocks[start] = (end, sender)
        start = end + 1
    return blocks


def conversation_turns(doc: Document) -> list[Unit]:
    """Turns of a conversation, as a run reads them: a line with a speaker's label
    (:func:`batchsum.speaker_labels.parse_speaker_line`) opens one, the lines under it are its own. In an
    e-mail thread (a rendered ``.eml``, or one pasted into a text) a message is one turn of its sender,
    written ``Sender: words``; its header block is no turn and its lines are no labels ("Date: ...",
    "Good news: ..." are the sender's)."""
    lines = doc.text.split("\n")
    headers = _header_blocks(lines)
    turns: list[Unit] = []
    cur: list[str] = []
    cur_line, cur_speaker, sender = 0, None, None

    def flush() -> None:
        text = "\n".join(cur).strip()
        if text:
            turns.append(Unit(text, cur_line + 1, len(turns) + 1, doc.doc_date, cur_speaker))
        cur.clear()

    i = 0
    while i < len(lines):
        if i in headers:
            flush()
            i, sender = headers[i]
            cur_speaker = sender
            continue
        line = lines[i]
        label = parse_speaker_line(line)[0] if sender is None else None
        if label is not None:
            flush()
            cur_line, cur_speaker = i, label
            cur.append(line)
        elif cur or line.strip():
            if not cur:
                cur_line = i
                # The sender is named as a labelled turn names its speaker: a batch of several
                # messages tells the model who wrote what.
                line = f"{sender}: {line.strip()}" if sender is not None else line
            cur.append(line)
        i += 1
    flush()
    return turns


def units_of(doc: Document) -> list[Unit]:
    """The units of a journal or conversation (documents have none)."""
    if doc.content_type == "journal":
        return journal_entries(doc)
    if doc.content_type == "conversation":
        return conversation_turns(doc)
    return []


def is_user_turn(unit: Unit) -> bool:
    """False for assistant/system/tool turns, whose text is not a statement by the person."""
    return (unit.speaker or "").strip().lower() not in NON_USER_SPEAKERS


def named_speakers(turns: list[Unit]) -> tuple[str, ...]:
    """The people who speak in a conversation's ``turns`` (all of them, the assistant's too), in the order
    they first speak: a group chat's or a meeting's. None when a role speaks (``User:``/``Assistant:``):
    an assistant chat's words are its user's, whoever that is."""
    labels = [" ".join(u.speaker.split()) for u in turns if u.speaker and u.speaker.strip()]
    if any(label.lower() in ROLE_SPEAKERS for label in labels):
        return ()
    return tuple(dict.fromkeys(labels))


def written_on(unit: Unit, doc: Document) -> str | None:
    """The day ``unit`` was written, when its text or file says so: its entry's dated heading, else the
    file's own date (a dated name, front matter, a chat's first message). An mtime dates a copy, not the
    words, so it gives none."""
    if unit.turn is None:
        heading_day = _heading_day(unit.text.split("\n", 1)[0])[1]
        if heading_day is not None:
            return heading_day
    return real_date(doc.doc_date, doc.date_source)
