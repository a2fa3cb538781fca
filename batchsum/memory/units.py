"""Split a journal into entries and a conversation into turns: the units facts are extracted from.

A unit's hash decides whether it was already processed, so appending an entry to a journal (or a
turn to a conversation) makes exactly one new unit; the entries above it keep their hashes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from batchsum.model import Document

# A Markdown heading (or bold line) that starts with a date: "## 2026-10-05", "# Monday, October 5",
# "**October 5, 2026**".
_DATED_HEADING = re.compile(
    r"^\s{0,3}(?:#{1,6}\s*|\*\*)\s*(?:\d{4}-\d{2}-\d{2}|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*,?\s+\w+\s+\d{1,2}"
    r"|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},?\s+\d{4})",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_SPEAKER = re.compile(r"^\s*(?:\[[^\]]{1,20}\]\s*)?([A-Z][\w .'-]{0,40}?|[A-Z]{2,}\d*)\s*:\s+\S", re.IGNORECASE)
# Speakers whose words are not the user's: seed-style extraction ignores assistant and system text.
NON_USER_SPEAKERS = frozenset({"assistant", "system", "tool", "function", "developer"})
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


def _iso(text: str, default: str | None) -> str | None:
    m = _ISO_DATE.search(text)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else default


def journal_entries(doc: Document) -> list[Unit]:
    """Entries of a journal: sections under dated headings, or the whole file when it has none."""
    lines = doc.text.split("\n")
    start = _strip_front_matter(lines)
    heads = [i for i in range(start, len(lines)) if _DATED_HEADING.match(lines[i])]
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
            units.append(Unit(text, h + 1, None, _iso(lines[h], doc.doc_date)))
    return units


def conversation_turns(doc: Document) -> list[Unit]:
    """Turns of a conversation (``Speaker: text`` blocks); continuation lines belong to the turn above."""
    lines = doc.text.split("\n")
    turns: list[Unit] = []
    cur: list[str] = []
    cur_line, cur_speaker = 0, None

    def flush() -> None:
        text = "\n".join(cur).strip()
        if text:
            turns.append(Unit(text, cur_line + 1, len(turns) + 1, doc.doc_date, cur_speaker))

    for i, line in enumerate(lines):
        m = _SPEAKER.match(line)
        if m:
            flush()
            cur, cur_line, cur_speaker = [line], i, m.group(1).strip()
        elif cur or line.strip():
            if not cur:
                cur_line = i
            cur.append(line)
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
