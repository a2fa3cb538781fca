"""Facets the author wrote down: lists under a heading that names their kind, and open tasks.

Meeting notes say what was decided under "## Decisions", who does what under "## Action items"
(``- [ ] Priya: tell Harbor Gas about the April date by Wednesday``) and what is open under
"## Open questions"; a note-taking app marks an open task ``- [ ] ...`` (Obsidian, with ``📅
2024-03-15``) or ``TODO ...`` (Logseq, with ``SCHEDULED: <2024-03-15 Fri>``). These are the
facets as their author wrote them, more certain than any cue a rule reads in running text, so they
come first (:func:`with_written`), in any kind of file, not only in conversations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from batchsum.note_syntax import note_syntax_as_text

if TYPE_CHECKING:
    from batchsum.facets import ActionItem, ExtractedFacets

__all__ = ["WrittenFacets", "has_written_facets", "with_written", "written_facets"]

# batchsum.facets (its rules and the summarizer's text tools) is imported only when a file has facets
# written down: has_written_facets runs on every document a run reads.

# A heading: Markdown's, a bold line ("**Decisions**", "**Decisions:**") or a short line ending in a colon.
_HEADING = re.compile(
    r"^\s{0,3}(?:#{1,6}\s+(?P<md>.+?)\s*#*|\*\*(?P<bold>[^*]+?):?\*\*:?|(?P<colon>[^\s:][^:]{0,40}):)\s*$"
)
_KINDS = {
    "decisions": ("decisions", "decision", "decided", "agreed", "agreements", "outcomes", "resolutions"),
    "action_items": (
        "action items", "action item", "actions", "action points", "next steps", "to do", "to-do", "to-dos",
        "todo", "todos", "tasks", "follow-ups", "follow ups", "followups", "follow-up",
    ),
    "unresolved": ("open questions", "open question", "questions", "open issues", "open points", "unresolved",
                   "parking lot", "to decide", "tbd"),
}  # fmt: skip
# An item of a list, its task box as note_syntax renders it ("- ☐ ...": "[ ]" or Logseq's TODO, LATER;
# "- ☑ ...": "[x]" or DONE).
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:(?P<box>[☐☑])\s+)?(?P<text>\S.*)$")
# When: Obsidian Tasks' "📅 2024-03-15" (due) or "⏳"/"🛫" dates (Logseq's SCHEDULED and DEADLINE lines
# come as 📅 on their task's line), and "due: 2024-03-15".
_WHEN = re.compile(r"(?:📅|⏳|🛫|\bdue:?)\s*(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_TASK_EMOJI = re.compile(r"\s*(?:[🔺⏫🔼🔽⏬➕✅❌]\uFE0F?\s*(?:\d{4}-\d{2}-\d{2})?|🔁[^📅⏳🛫]*)")
# "Priya: tell Harbor Gas ..."; "@priya tell ..."; "... (Priya)".
_OWNER_LABEL = re.compile(r"^(?P<name>[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,2}):\s+(?P<task>\S.*)$")
_OWNER_AT = re.compile(r"(?:^|\s)@(?P<name>[A-Za-z][\w.-]*)")
_OWNER_TAIL = re.compile(r"\s+[(\[](?P<name>[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?)[)\]]\.?$")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")  # [text](url)
_NOT_OWNERS = frozenset({"Note", "Notes", "Update", "Status", "Done", "Todo", "Next", "Re", "Fyi"})


@dataclass
class WrittenFacets:
    """The items the author wrote under facet headings, and the open tasks, in the text's order."""

    decisions: list[str] = field(default_factory=list)
    action_items: list[ActionItem] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when the text wrote down no facet."""
        return not (self.decisions or self.action_items or self.unresolved)


def _kind(heading: str) -> str | None:
    words = " ".join(re.findall(r"[a-z][a-z-]*", heading.lower()))
    for kind, names in _KINDS.items():
        if any(words == n or words.startswith(n + " ") for n in names):
            return kind
    return None


def _plain(text: str) -> str:
    """An item as it reads: links as their text, no emphasis, highlight or task emoji."""
    text = _LINK.sub(r"\1", text)
    text = _TASK_EMOJI.sub("", _WHEN.sub("", text))
    return " ".join(text.replace("**", "").replace("==", "").split())


def has_written_facets(text: str) -> bool:
    """Whether ``text`` may write facets down: an open task or a heading that names a facet kind."""
    if "[ ]" in text or _ANY_MARKER.search(text):
        return True
    return any(_kind(m.group(1)) for m in _ANY_HEADING.finditer(text))


_ANY_MARKER = re.compile(r"^\s*[-*+]\s+(?:TODO|LATER|NOW|DOING|WAITING)\s", re.MULTILINE)
_ANY_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+|\*\*)?([A-Za-z][\w -]{2,30}?)(?:\*\*)?:?(?:\*\*)?\s*$", re.MULTILINE)


def _task(text: str) -> ActionItem:
    """An action item from a written task: its owner when the task names one, its due date."""
    from batchsum.facets import ActionItem, due_date

    when = _WHEN.search(text)
    text = _plain(text)
    owner = None
    label = _OWNER_LABEL.match(text)
    if label and label.group("name") not in _NOT_OWNERS:
        owner, text = label.group("name"), label.group("task")
    elif (at := _OWNER_AT.search(text)) is not None:
        owner = at.group("name")
    elif (tail := _OWNER_TAIL.search(text)) is not None:
        owner, text = tail.group("name"), text[: tail.start()]
    return ActionItem(text, owner, when.group(1) if when else due_date(text))


def written_facets(text: str) -> WrittenFacets:
    """The facets ``text`` writes down: the list items under a heading that names a facet kind
    ("Decisions", "Action items", "Next steps", "Open questions", ...), and every open task (``- [ ]``,
    Logseq's ``TODO``/``LATER``) wherever it is. A ticked task (``- [x]``, ``DONE``) is done: no action item."""
    out = WrittenFacets()
    kind: str | None = None
    # As the note reads: wikilinks as their text, boxes for tasks, no hidden comment or front matter.
    for line in note_syntax_as_text(text).split("\n"):
        item = _ITEM.match(line)
        if item is None:
            heading = _HEADING.match(line)
            if heading is not None:
                kind = _kind(heading.group("md") or heading.group("bold") or heading.group("colon"))
            elif line.strip() and not line[:1].isspace():
                kind = None  # prose after the list: what follows is no longer under its heading
            continue
        body, box = item.group("text"), item.group("box")
        if box == "☑":
            continue  # done: not what is left to do
        if box == "☐" or kind == "action_items":
            task = _task(body)
            if task.task and all(a.task != task.task for a in out.action_items):
                out.action_items.append(task)
        elif kind == "decisions":
            out.decisions.append(_plain(body))
        elif kind == "unresolved":
            out.unresolved.append(_plain(body))
    return out


def with_written(written: WrittenFacets, found: ExtractedFacets, max_items: int | None = None) -> ExtractedFacets:
    """``found`` (facets picked by rules) with the written ones first, each kind at most ``max_items``
    (:data:`batchsum.facets.MAX_ITEMS`)."""
    from batchsum.facets import MAX_ITEMS, ExtractedFacets

    max_items = MAX_ITEMS if max_items is None else max_items

    def first(mine: list[str], theirs: list[str]) -> list[str]:
        return [*mine, *(x for x in theirs if x not in mine)][:max_items]

    tasks = {a.task for a in written.action_items}
    return ExtractedFacets(
        participants=found.participants,
        decisions=first(written.decisions, found.decisions),
        action_items=[*written.action_items, *(a for a in found.action_items if a.task not in tasks)][:max_items],
        unresolved=first(written.unresolved, found.unresolved),
        entities=found.entities,
        topics=found.topics,
    )
