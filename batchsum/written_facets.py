"""Facets the author wrote down: lists under a heading that names their kind, and open tasks.

Meeting notes say what was decided under "## Decisions", who does what under "## Action items"
(``- [ ] Priya: tell Harbor Gas about the April date by Wednesday``) and what is open under
"## Open questions"; a note-taking app marks an open task ``- [ ] ...`` (Obsidian, with ``📅
2024-03-15``) or ``TODO ...`` (Logseq, with ``DEADLINE: <2024-03-15 Fri>``). These are the
facets as their author wrote them, more certain than any cue a rule reads in running text, so they
come first (:func:`with_written`), in any kind of file, not only in conversations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Literal, NamedTuple

from batchsum.due_dates import bracketed_date, due_date
from batchsum.facet_labels import HEDGED_DECISION, plain_label
from batchsum.readers.note_syntax import note_syntax_as_text
from batchsum.text import split_sentences

if TYPE_CHECKING:
    from batchsum.facets import ActionItem, ExtractedFacets

__all__ = ["WrittenFacets", "has_written_facets", "unshown", "with_written", "written_facets"]

# batchsum.facets (its rules and the summarizer's text tools) is imported only when a file has facets
# written down: has_written_facets runs on every document a run reads.

# A heading: Markdown's, a bold line ("**Decisions**", "**Decisions:**") or a short line ending in a colon.
_HEADING = re.compile(
    r"^\s{0,3}(?:#{1,6}\s+(?P<md>.+?)\s*#*|\*\*(?P<bold>[^*]+?):?\*\*:?|(?P<colon>[^\s:][^:]{0,40}):)\s*$"
)
# A heading names a kind when it is one of these names, as a whole (see _heading_name): "Tasks completed
# this week" is no list of open tasks, nor "To do in Lisbon" (sights), nor an FAQ's "Questions".
_KINDS = {
    "decisions": ("decisions", "decision", "decisions made", "key decisions", "decided", "agreed", "agreements",
                  "outcomes"),
    "action_items": (
        "action items", "action item", "actions", "action points", "next steps", "next actions", "to do", "to-do",
        "to-dos", "todo", "todos", "tasks", "open tasks", "follow-ups", "follow ups", "followups", "follow-up",
    ),
    "unresolved": ("open questions", "open question", "open issues", "open points", "outstanding questions",
                   "outstanding issues", "unresolved", "unresolved questions", "unresolved issues", "parking lot",
                   "to decide", "tbd"),
}  # fmt: skip
_KIND_OF = {name: kind for kind, names in _KINDS.items() for name in names}
# These names also head a list with what it is for: "Action items for the Harbor Gas project", "Open
# questions for legal". Not "Tasks for ..." or "To do for ..." ("To do for fun"), not "Decisions ...".
_FOR_NAMES = ("action items", "action points", "next steps", "follow-ups", "open questions", "open issues")
# Names that also head prose describing a thing, not listing its items: "## Tasks" over "Tasks are units of
# work the runner schedules.", a syllabus's "## Outcomes". Only a list or table under them is read.
_NO_PROSE = frozenset(("tasks", "actions", "to do", "to-do", "to-dos", "todo", "todos", "outcomes"))
# A cheap first look for has_written_facets: a kind's name near the start of a line, where a heading has it
# after its marks, emoji and numbering at most.
_KIND_WORD = re.compile(
    r"^[^\n]{0,24}?(?:"
    + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(_KIND_OF, key=len, reverse=True))
    + ")",
    re.IGNORECASE | re.MULTILINE,
)
_NUMBERING = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3})*|[ivxIVX]{1,4}|[A-Za-z])[.)]\s+")
_TRAILING_NOTE = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\])\s*$")  # "(from Monday)", "[draft]"
# An item of a list, its task box as note_syntax renders it ("- ☐ ...": "[ ]" or Logseq's TODO, LATER;
# "- ☑ ...": "[x]" or DONE).
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:(?P<box>[☐☑])\s+)?(?P<text>\S.*)$")
_FENCE = re.compile(r"^\s{0,3}(?P<fence>`{3,}|~{3,})")
# A due date: Obsidian Tasks' "📅 2024-03-15" (Logseq's DEADLINE line comes as 📅 on its task's line) and
# "due: 2024-03-15". Not the Tasks plugin's scheduled (⏳) and start (🛫) dates, nor Logseq's SCHEDULED: they
# say when to work on a task, not by when it is due ("Book the dentist ⏳ 2025-09-15" had read "due").
_WHEN = re.compile(r"(?:📅|\bdue:?)\s*(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_TASK_EMOJI = re.compile(r"\s*(?:[🔺⏫🔼🔽⏬➕✅❌⏳🛫]\uFE0F?\s*(?:\d{4}-\d{2}-\d{2})?|🔁[^📅⏳🛫]*)")
# Logseq's "SCHEDULED: <2024-03-15 Fri>" (on its task's line or the one under it), which note_syntax shows
# as 📅 with DEADLINE's: rewritten first to the Tasks plugin's ⏳, a scheduled date, before the note is read.
_SCHEDULED = re.compile(r"(?:\n[ \t]*|(?<![ \t])[ \t]+)SCHEDULED:[ \t]*<(\d{4}-\d{2}-\d{2})[^>\n]*>[ \t]*(?=\n|$)")
# A DEADLINE line above its SCHEDULED line: put under it, so the scheduled date joins the task's line and the
# DEADLINE line stays whole for note_syntax (the ⏳ had been appended to it, and its due date lost).
_DEADLINE_ABOVE = re.compile(
    r"(\n[ \t]*DEADLINE:[ \t]*<[^>\n]*>[ \t]*)(\n[ \t]*SCHEDULED:[ \t]*<[^>\n]*>[ \t]*)(?=\n|$)"
)
# An item of a list as written: its bullet and its box or Logseq marker, then its text.
_RAW_ITEM = re.compile(
    r"([ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+|(?:TODO|LATER|NOW|DOING|WAITING|DONE)[ \t]+)?)(.*)"
)
# A tag as note_syntax reads one (not a colour "#ffcc00", a number "#42").
_TAG = re.compile(r"#(?![0-9a-fA-F]{3,8}$)[^\W\d_][\w/-]*")
# The Tasks plugin's signifiers: a task's metadata, which it writes after the task's words.
_SIGNIFIERS = frozenset("📅⏳🛫✅➕❌🔁🔺⏫🔼🔽⏬🆔⛔")
# "Priya: tell Harbor Gas ..."; "@priya tell ..."; "... (Priya)".
# A name in any script ("Priya:", "Иван:", "王伟："), not a lower-case Latin word.
_OWNER_LABEL = re.compile(r"^(?P<name>[^\W\d_a-z][\w.'’-]*(?: [^\W\d_a-z][\w.'’-]*){0,2})(?::\s+|：\s*)(?P<task>\S.*)$")
_OWNER_AT = re.compile(r"(?:^|\s)@(?P<name>[A-Za-z][\w.-]*)")
# "@priya: book the venue": a mention written as the task's label is one, as "Priya:" is ("@marco review
# the PR" stays as written: the mention is a word of the task).
_TAIL_AT = re.compile(r"[.!]?\s*$")  # an "@name" at the task's end, left out of it as "(Name)" is
_OWNER_AT_LABEL = re.compile(r"^@(?P<name>[A-Za-z][\w.-]*?):\s+(?P<task>\S.*)$")
_OWNER_TAIL = re.compile(r"\s+[(\[](?P<name>[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?)[)\]]\.?$")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")  # [text](url)
# Words a task's label, "@..." or "(...)" may be that are no person: a day, a month, a priority, a category,
# a place to do it in (GTD's "@home", "@computer").
_NOT_OWNERS = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
    january february march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec today tomorrow tonight weekend later now soon asap eod eow tbd next someday
    note notes update updates status done todo re fyi ps nb info idea ideas question questions answer reminder
    urgent important critical high medium low priority blocker blocked optional maybe waiting
    backend frontend front back end api ui ux db infra ops devops security qa test tests testing bug bugs fix fixes
    feature features chore docs doc documentation design release deploy deployment build ci data research admin
    legal finance budget marketing sales support product engineering hiring team all everyone someone anyone
    home work office computer phone calls errands email emails call meeting meetings travel personal misc general
    other shopping groceries health
    draft review goal goals context step phase part action decision follow also nice
    """.split()
)


@dataclass
class WrittenFacets:
    """The items the author wrote under facet headings, and the open tasks, in the text's order."""

    decisions: list[str] = field(default_factory=list)
    action_items: list[ActionItem] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    status: str = ""  # a decision record's status as written: "Accepted", "Superseded by ADR 9"

    def is_empty(self) -> bool:
        """True when the text wrote down no facet."""
        return not (self.decisions or self.action_items or self.unresolved)


def _heading_name(heading: str) -> str:
    """A heading's name, in lower case: without emphasis, emoji or numbering before it, and without a note in
    brackets or a colon after it ("## 📋 2. **Action items** (from Monday):" is "action items")."""
    name = heading.replace("**", "").replace("__", "").replace("==", "").replace("`", "").strip(" *_")
    name = _NUMBERING.sub("", re.sub(r"^[^\w(\[]+", "", name))
    for _ in range(2):  # "Action items (from Monday):", "Open questions: (2)"
        name = _TRAILING_NOTE.sub("", re.sub(r"[^\w)\]]+$", "", name))
    return " ".join(name.casefold().split())


def _kind(heading: str) -> str | None:
    """The facet kind a heading names (:data:`_KINDS`, or one of :data:`_FOR_NAMES` "for" something), or None."""
    name = _heading_name(heading)
    if name in _KIND_OF:
        return _KIND_OF[name]
    return next((_KIND_OF[n] for n in _FOR_NAMES if name.startswith(n + " for ") and len(name) > len(n) + 5), None)


def _heading(line: str) -> str | None:
    """The text of a heading line: a Markdown heading, a bold line, or a short line ending in a colon that
    opens with a capital, an emoji or a number ("Next steps:", not a wrapped sentence's "actions:")."""
    m = _HEADING.match(line)
    if m is None:
        return None
    colon = m.group("colon")
    if colon is not None and colon.lstrip()[:1].islower():
        return None
    return m.group("md") or m.group("bold") or colon


def _plain(text: str) -> str:
    """An item as it reads: links as their text, no emphasis, highlight or task emoji."""
    text = _LINK.sub(r"\1", text)
    text = _TASK_EMOJI.sub("", _WHEN.sub("", text))
    return " ".join(text.replace("**", "").replace("==", "").split())


def _without_tags(line: str) -> str:
    """A list item without the tags that file it: those before its words and those after them, among the
    Tasks plugin's metadata ("Send Anna the photos 📅 2025-09-12 #todo" had read "... photos todo"); a tag
    among its words reads as a word, as everywhere (note_syntax)."""
    m = _RAW_ITEM.fullmatch(line)
    if m is None or "#" not in m.group(2):
        return line
    words = m.group(2).split()
    end = next((i for i, w in enumerate(words) if w[0] in _SIGNIFIERS), len(words))  # its metadata begins
    while end > 0 and _TAG.fullmatch(words[end - 1]):
        end -= 1
    start = 0
    while start < end and _TAG.fullmatch(words[start]):
        start += 1
    kept = [*words[start:end], *(w for w in words[end:] if not _TAG.fullmatch(w))]
    if start == end or len(kept) == len(words):
        return line  # only tags, or none to leave out
    return m.group(1) + " ".join(kept)


def _as_read(text: str) -> str:
    """``text`` as its facets are read: Logseq's SCHEDULED as a scheduled date (⏳), list items without
    their tags (:func:`_without_tags`), then as the note reads (note_syntax)."""
    if "SCHEDULED:" in text:
        text = _DEADLINE_ABOVE.sub(r"\2\1", text)
        text = _SCHEDULED.sub(lambda m: f" ⏳ {m.group(1)}", text)
    if "#" in text:
        text = "\n".join(_without_tags(line) if "#" in line else line for line in text.split("\n"))
    return note_syntax_as_text(text)


# A line that labels its own kind ("Decision: We will ship ...", "Action: @anna to update ...", "TODO: Jonas to
# book ...", "Open questions: a? b?"), emphasis and a dash read as plain_label reads them: explicit in any
# genre, a document's minutes as a conversation's turn. Not an FAQ's "Question:", which is answered.
_LABELLED = re.compile(
    r"^(?P<label>decisions?|decided|agreed|todo|action items?|action|follow[- ]ups?|open questions?|unresolved)"
    r":\s+(?P<text>\S.*)$",
    re.I,
)
_LABEL_KINDS = {"decisions": ("decision", "decided", "agreed"), "action_items": ("todo", "action", "follow")}
# A cheap first look for has_written_facets: such a label at a line's start, in emphasis at most.
_ANY_LABEL = re.compile(
    r"^[*_]{0,2}(?:decisions?|decided|agreed|todo|action|follow[- ]ups?|open questions?|unresolved)\b",
    re.I | re.M,
)
# "@anna to update ...", "Jonas to book ...": a task that opens with its owner's name, or with a verb ("Need to
# buy milk", "Try to fix the bike"): the word's own look cannot tell, so a name is taken only as
# :func:`_named_owner` says.
_NAMED_TO = re.compile(r"^(?P<at>@)?(?P<name>[A-Za-z][a-z]+) to (?=[a-z])")


class _Item(NamedTuple):
    """One thing written under a facet heading: a list item, a table row (with its owner and due date when
    its columns give them) or a paragraph of prose (whose sentences are the items)."""

    kind: str
    text: str
    source: Literal["list", "row", "prose"] = "list"
    owner: str | None = None  # a row's: its owner's cell
    due: str | None = None  # a row's: its due date's cell
    labelled: bool = False  # after a task label ("TODO:", "Action:") or under a heading naming its kind


# A paragraph that says there is nothing of its kind: "None this week.", "No decisions yet.", "N/A".
_NOTHING = re.compile(
    r"^(?:none|nothing|n/?a|tbd|nil)\b|^no (?:new |other |open )?(?:decisions?|actions?|action items?|tasks?|"
    r"questions?|issues?|follow-ups?|next steps?|items?)\b",
    re.IGNORECASE,
)


def _paragraph(kind: str | None, lines: list[str]) -> list[_Item]:
    """A paragraph of prose under a heading that names a kind, as one item of it; none when it introduces
    what follows (it ends with a colon) or says there is nothing of its kind."""
    text = " ".join(" ".join(lines).split())
    if kind is None or not text or text.endswith(":") or _NOTHING.match(_plain(text)):
        return []
    return [_Item(kind, text, "prose", labelled=True)]


# A row of a Markdown table, and the rule under its header ("|---|:--:|").
_TABLE_ROW = re.compile(r"^\s{0,3}\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s{0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
# What a table's columns hold, by their names: a row's item, its owner, its due date, its status.
_COLUMNS = {
    "item": ("action", "actions", "action item", "action items", "task", "tasks", "item", "items", "what", "to do",
             "todo", "follow-up", "next step", "next steps", "description", "decision", "decisions", "question",
             "questions", "open question", "issue", "issues"),
    "owner": ("owner", "owners", "who", "assignee", "assignees", "assigned to", "responsible", "dri"),
    "due": ("due", "due date", "due by", "when", "deadline", "by", "by when", "target date", "eta"),
    "status": ("status", "state", "done", "resolved"),
}  # fmt: skip
_COLUMN_OF = {name: column for column, names in _COLUMNS.items() for name in names}
# A status saying a row is settled: done, or (an open question's) answered.
_DONE = re.compile(
    r"^(?:[✅☑✔✓]|\[x\]|x$|yes$|done|complete|completed|closed|resolved|fixed|finished|shipped|merged|answered"
    r"|decided|cancell?ed|dropped|won'?t)",
    re.IGNORECASE,
)
# A cell that names no one and no date: "-", "?", "TBD", "n/a".
_BLANK_CELL = re.compile(r"^(?:[-—–?]*|tbd|tba|n/?a|none|unassigned|nobody)$", re.IGNORECASE)


def _labelled(line: str) -> _Item | None:
    """The item a line labels with its kind (:data:`_LABELLED`), or None. Several open questions after one
    label are each an item."""
    m = _LABELLED.match(plain_label(line.strip()))
    if m is None:
        return None
    label = m.group("label").casefold()
    kind = next((k for k, words in _LABEL_KINDS.items() if label.startswith(words)), "unresolved")
    if kind == "decisions" and HEDGED_DECISION.search(m.group("text")):
        return None  # "Decision: we will probably ship ...": not quite made, as in a conversation's turn (facets)
    return _Item(kind, m.group("text"), "prose" if kind == "unresolved" else "list", labelled=True)


def _cells(row: str) -> list[str]:
    """The cells of a table row, without their pipes (an escaped ``\\|`` stays in its cell)."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _table_items(kind: str | None, rows: list[str]) -> Iterator[_Item]:
    """The rows of a table under a heading that names a kind, read by its header: the item is the column
    named like one ("Action", "Task", "Decision", "Question", ...; else the first other than owner, due date
    and status), with the owner and due date its columns give. A row whose status says it is done (or
    answered) is no open item."""
    if kind is None or len(rows) < 3 or not _TABLE_RULE.match(rows[1]):
        return
    role: dict[str, int] = {}
    for i, name in enumerate(_cells(rows[0])):
        column = _COLUMN_OF.get(_heading_name(name))
        if column is not None and column not in role:
            role[column] = i
    if "item" not in role:
        role["item"] = next((i for i in range(len(_cells(rows[0]))) if i not in role.values()), 0)
    for row in rows[2:]:
        cells = _cells(row)
        value = {column: (cells[i] if i < len(cells) else "") for column, i in role.items()}
        status = value.get("status", "").replace("**", "").strip(" *_`~")
        if not _plain(value["item"]) or _DONE.match(status):
            continue
        owner, due = (_plain(value.get(c, "")) for c in ("owner", "due"))
        yield _Item(kind, value["item"], "row", None if _BLANK_CELL.match(owner) else owner,
                    None if _BLANK_CELL.match(due) else due)  # fmt: skip


def _items(text: str) -> Iterator[_Item]:
    """Each item ``text`` writes down, in order: a top-level item of a list or a row of a table under a heading
    that names its kind (a nested item is a detail of its parent), the prose under such a heading when it
    has no list or table, and an open task (``- [ ]``, ``TODO``) at any depth and anywhere. Fenced code is
    left out: a README showing task syntax sets no task."""
    kind: str | None = None
    prose_kind: str | None = None  # the kind of the prose under the heading (see _NO_PROSE)
    top: int | None = None  # the indent of the top-level items of the list under way
    listed = False  # a list or table under the heading: its items are the kind's, prose after it is not
    fence: str | None = None
    para: list[str] = []  # the paragraph under way, under a heading that names a kind
    prose: list[_Item] = []  # paragraphs under the heading, its items unless a list or table follows
    table: list[str] = []
    # As the note reads: wikilinks as their text, boxes for tasks, no hidden comment or front matter.
    for line in [*_as_read(text).split("\n"), ""]:
        if table and not _TABLE_ROW.match(line):
            yield from _table_items(kind, table)
            table = []
        opens = _FENCE.match(line)
        if fence is not None:
            closing = line.strip()
            if opens and closing.startswith(fence) and closing == closing[0] * len(closing):
                fence = None
            continue
        item = _ITEM.match(line)
        heading = _heading(line) if item is None and opens is None else None
        if not line.strip() or opens or item or heading is not None or _TABLE_ROW.match(line):
            prose += _paragraph(prose_kind, para) if not listed else []
            para = []
        if opens is not None:
            fence = opens.group("fence")
            continue
        if item is None:
            if heading is not None:
                yield from prose
                kind, top, listed, prose = _kind(heading), None, False, []
                prose_kind = None if _heading_name(heading) in _NO_PROSE else kind
            elif kind is not None and _TABLE_ROW.match(line):
                table.append(line)
                listed, prose = True, []  # prose above a table introduces it
            elif not line[:1].isspace() and (labelled := _labelled(line)) is not None:
                yield labelled
                if listed:
                    kind, top = None, None
            elif line.strip() and not line[:1].isspace():
                if listed:
                    kind, top = None, None  # prose after the list: what follows is no longer under its heading
                elif prose_kind is not None:
                    para.append(line)
            continue
        indent = len(item.group("indent").expandtabs(4))
        nested = top is not None and indent > top
        top = indent if top is None else min(top, indent)
        listed, prose = True, []  # prose above a list introduces it
        body, box = item.group("text"), item.group("box")
        if box == "☐":
            yield _Item("action_items", body, labelled=kind == "action_items" and not nested)
        elif box is None and kind is not None and not nested:
            yield _Item(kind, body, labelled=True)
        elif box is None and kind is None and not nested and (labelled := _labelled(body)) is not None:
            yield labelled  # "- Decision: ..." in a list of notes
        # a ticked task ("☑") is done: not what is left to do
    yield from prose


def has_written_facets(text: str) -> bool:
    """Whether ``text`` writes facets down: an open task, or an item under a heading that names a facet kind.
    Cheap, for every document a run reads: a box or a kind's word must be there before the lines are read,
    and then they are read as :func:`written_facets` reads them."""
    if "[ ]" in text or _ANY_MARKER.search(text):
        return True
    for k, m in enumerate(_ANY_LABEL.finditer(text)):  # "Decision: ...", "TODO: ..." at a line's start
        if k == _MAX_CANDIDATES:
            break
        if _labelled(text[m.start() : text.find("\n", m.start()) % (len(text) + 1)]) is not None:
            return True
    # Each line that may name a kind is read with what follows it, not the whole text: a book's
    # "Questions ..." had made a second copy of a 200 MB text.
    for k, m in enumerate(_KIND_WORD.finditer(text)):
        if k == _MAX_CANDIDATES:
            break
        start = text.rfind("\n", 0, m.start()) + 1
        if next(_items(text[start : start + _WINDOW]), None) is not None:
            return True
    return False


_MAX_CANDIDATES = 100  # lines that may name a kind, read before a file is taken to write none down
_WINDOW = 4000  # characters read from such a line: its heading and the list under it


_ANY_MARKER = re.compile(r"^[ \t]*[-*+][ \t]+(?:TODO|LATER|NOW|DOING|WAITING)\s", re.MULTILINE)


def _owner(name: str, participants: Sequence[str]) -> str | None:
    """``name`` as a task's owner: the participant it names ("Priya" is "Priya Raman"), else ``name`` when it
    looks like a person's: not a day, month, priority ("P1"), category ("Backend", "Urgent") or code in capitals."""
    from batchsum.facets import _owner_among

    if participants and (who := _owner_among(name, participants)) is not None:
        return who
    for word in name.split():
        bare = word.strip(".'’-")
        if bare.casefold() in _NOT_OWNERS or any(c.isdigit() for c in bare) or (len(bare) > 1 and bare.isupper()):
            return None
    return name


def _used_as_name(name: str, text: str) -> bool:
    """Whether ``text`` uses ``name`` as a person's elsewhere: a speaker's label opening a line ("Priya: I can
    take it") or the word capitalised after a lower-case one ("asked Priya", "Anna Berg, Jonas Weber"). Where a
    sentence, line or label opens, any word has its capital ("Need to buy milk"), and "Name to ..." is the
    task's own line."""
    word = re.escape(name)
    speaker = rf"^[ \t]*{word}(?: [A-Z][\w'’-]*)?:[ \t]+\S"
    within = rf"(?:(?<=[a-z] )|(?<=[a-z][,;] )){word}\b(?! to [a-z])"
    return re.search(f"{speaker}|{within}", text, re.M) is not None


def _named_owner(
    named: re.Match[str], participants: Sequence[str], used_as_name: Callable[[str], bool] | None
) -> str | None:
    """The owner of a task opening "Name to ..." (:data:`_NAMED_TO`): a participant it names, a mention
    ("@jonas"), or, after a task label, a word the text uses as a name elsewhere (``used_as_name``). Not a
    bare capitalised word: a journal's "- [ ] Need to buy milk" opens with its verb."""
    from batchsum.facets import _owner_among

    name = named.group("name").capitalize()
    if (
        named.group("at")
        or (participants and _owner_among(name, participants))
        or (used_as_name and used_as_name(name))
    ):
        return _owner(name, participants)
    return None


def _task(text: str, participants: Sequence[str] = (), used_as_name: Callable[[str], bool] | None = None) -> ActionItem:
    """An action item from a written task: its owner when the task names one, its due date. ``used_as_name``:
    for a task after a label, whether its text uses a word as a name (:func:`_named_owner`)."""
    from batchsum.facets import ActionItem

    when = _WHEN.search(text)
    # A date in brackets at the end is the due date, said once ("(due: 2026-10-03)" too), unless an
    # explicit "📅 2026-10-03" before it says so.
    bracketed = bracketed_date(text)
    if bracketed and when is not None and when.start() < text.rstrip().rfind("("):
        bracketed = None
    if bracketed:
        when = None
        text = text[: text.rstrip().rfind("(")].rstrip()
    text = _plain(text)
    owner = None
    if (label := _OWNER_LABEL.match(text)) and (owner := _owner(label.group("name"), participants)):
        text = label.group("task")
    if owner is None and (at := _OWNER_AT_LABEL.match(text)) and (owner := _owner(at.group("name"), participants)):
        text = at.group("task")
    named = _NAMED_TO.match(text)
    if owner is None and named and (owner := _named_owner(named, participants, used_as_name)):
        text = text[named.end() :][:1].upper() + text[named.end() + 1 :]  # its owner named once, as "Anna:" is
    if owner is None and (at := _OWNER_AT.search(text)):
        owner = _owner(at.group("name"), participants)
        if owner is not None and _TAIL_AT.match(text, at.end()):  # "Send the posting to HR @Maria"
            text = text[: at.start()].rstrip()
    if owner is None and (tail := _OWNER_TAIL.search(text)) and (owner := _owner(tail.group("name"), participants)):
        text = text[: tail.start()]
    return ActionItem(text, owner, bracketed or (when.group(1) if when else due_date(text)))


def written_facets(text: str, participants: Sequence[str] = ()) -> WrittenFacets:
    """The facets ``text`` writes down: the top-level items of a list, the rows of a table (read by its
    header's column names) or, with neither, the sentences of the prose (an ADR's "## Decision") under a
    heading that names a facet kind ("Decisions", "Action items", "Next steps", "Open questions", ...; the whole
    heading, see :data:`_KINDS`), and every open task (``- [ ]``, Logseq's ``TODO``/``LATER``) wherever it is,
    outside fenced code. A ticked task (``- [x]``, ``DONE``) or a row whose status is done is no action item.
    ``participants``: the speakers, when the text is a conversation; a task's owner is one of them when it
    names one."""
    from batchsum.facets import MAX_ITEMS, ActionItem, _owner_among

    out = WrittenFacets()
    used_as_name = cache(lambda name: _used_as_name(name, text))  # once a name: a labelled task may repeat it
    for item in _items(text):
        bodies = [item.text]
        if item.source == "prose":  # its whole sentences, as many as a kind lists
            bodies = [" ".join(item.text[sp.start : sp.end].split()) for sp in split_sentences(item.text)][:MAX_ITEMS]
        for body in bodies:
            if item.kind != "action_items":
                (out.decisions if item.kind == "decisions" else out.unresolved).append(_plain(body))
                continue
            if item.source == "row":  # the columns say who and by when
                owner = item.owner and (
                    (_owner_among(item.owner, participants) if participants else None) or item.owner
                )
                task = ActionItem(_plain(body), owner, item.due or due_date(_plain(body)))
            else:
                task = _task(body, participants, used_as_name if item.labelled else None)
            if task.task and all(a.task != task.task for a in out.action_items):
                out.action_items.append(task)
    if out.decisions:  # a record of decisions (an ADR): whether they stand is its status
        out.status = _status(text)
    return out


# "Status: Accepted", "- **Status:** superseded by ADR 9": a status written as a label, not as a heading.
# A record's own "Status:" line, at the top level (MADR's "* Status: accepted"); an indented one is an item's.
_STATUS_LABEL = re.compile(
    r"^(?:[-*+][ \t]+)?(?:\*\*|__)?status(?:\*\*|__)?[ \t]*:[ \t]*(?:(?:\*\*|__)[ \t]*)?(\S.*)$", re.I
)
_STATUS_WORDS = 30  # a longer paragraph under "## Status" is a report: its first sentence says the status


def _status(text: str) -> str:
    """The status a decision record gives its decision, as written: the paragraph under its "Status" heading
    ("Accepted (2024-02-12). Supersedes ADR 4.") or the value of a "Status:" label above its sections; "" when
    it gives none."""
    lines = _as_read(text).split("\n")
    sections = False  # a label under the record's sections ("## Action items") is another thing's status
    for i, line in enumerate(lines):
        if not sections and (label := _STATUS_LABEL.match(line)) and _heading(line) is None:
            return _plain(label.group(1))
        heading = _heading(line)
        sections = sections or (heading is not None and line.startswith("##"))
        if heading is None or _heading_name(heading) != "status":
            continue
        para: list[str] = []
        for below in lines[i + 1 :]:
            if not para and not below.strip():
                continue
            if _heading(below) is not None or (para and (not below.strip() or _ITEM.match(below))):
                break  # its paragraph, or a list's first item ("- Accepted" over "- Deciders: ...")
            para.append(m.group("text") if (m := _ITEM.match(below)) else below)
        said = _plain(" ".join(para))
        if len(said.split()) > _STATUS_WORDS and (first := next(iter(split_sentences(said)), None)):
            said = said[first.start : first.end]
        return said
    return ""


def with_written(written: WrittenFacets, found: ExtractedFacets, max_items: int | None = None) -> ExtractedFacets:
    """``found`` (facets picked by rules) with the written ones first, each kind at most ``max_items``
    (:data:`batchsum.facets.MAX_ITEMS`)."""
    from batchsum.facets import MAX_ITEMS, ExtractedFacets

    max_items = MAX_ITEMS if max_items is None else max_items

    def first(mine: list[str], theirs: list[str]) -> list[str]:
        return [*mine, *(x for x in theirs if not _said_in(x, mine))][:max_items]

    # A found task the notes file under Decisions is that decision ("We will file the motion by June 28."
    # under "## Decisions" had come back as an action item without an owner).
    tasks = [a.task for a in written.action_items] + written.decisions
    return ExtractedFacets(
        participants=found.participants,
        decisions=first(written.decisions, found.decisions),
        action_items=[*written.action_items, *(a for a in found.action_items if not _said_in(a.task, tasks))][
            :max_items
        ],
        unresolved=first(written.unresolved, found.unresolved),
        entities=found.entities,
        topics=found.topics,
        status=written.status,
        decided_by=found.decided_by,
    )


_MIN_SAME_WORDS = 2  # one word in common ("Launch") is a topic shared, not an item said twice


def _words(item: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", item.casefold()))


def _said_in(found: str, written: Sequence[str]) -> bool:
    """Whether an item a rule found says what one written down says: the words of one are all among the
    other's (at least :data:`_MIN_SAME_WORDS` of them). The written "Launch on April 3." and the sentence
    "We decided to launch on April 3." are one decision, listed once, as written."""
    mine = _words(found)
    for item in written:
        theirs = _words(item)
        shorter = min(mine, theirs, key=len)
        if len(shorter) >= _MIN_SAME_WORDS and shorter <= (theirs if shorter is mine else mine):
            return True
    return False


# What tells two writings of one sentence apart and says nothing: emphasis and code marks, curly quotes, spacing.
_MARKS = str.maketrans({"*": "", "_": "", "`": "", "’": "'", "‘": "'", "“": '"', "”": '"'})
_ITEM_SPEAKER = re.compile(r"^[^:]{1,80}: ")  # a speaker's label before a listed sentence: "Ben: I'll send ..."
# A list item of a summary, its task box aside as written ("[ ]") or as a page shows it ("☐", "☑": a note kept
# whole), and the "@" of an owner's mention, which the facets show as the owner's name ("@Priya: book the venue").
_LISTED = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+|[☐☑][ \t]*)?@?(.+)$")


# A line wholly in emphasis is a heading as a "#" line is: "**Open questions**", "__Decisions:__".
_EMPHASISED = re.compile(r"^(\*\*|__)(?P<text>.+)\1$")


def _introduces(lead: str) -> bool:
    """Whether ``lead`` (a stripped line) may stand before a list: a heading, emphasised or not, or a line
    that ends in ":" inside or outside its emphasis ("**Decisions:**")."""
    return lead.startswith("#") or _EMPHASISED.match(lead) is not None or lead.strip("*_ ").endswith(":")


def _listed_items(shown: str) -> set[str]:
    """The items ``shown`` lists, compared as :func:`_compared` does: its list lines' texts, each whole with
    the indented lines that continue it (a hard-wrapped item). A line with a marker glued to a line of running
    text ("Pricing goes live.\n- Free tier keeps 3 projects.": a summary that picked two bullets and kept one
    marker) is that paragraph's, no list: a list opens the text, or follows a blank line, a heading, a line
    that introduces it ("Open questions:", "**Decisions:**") or an item. A line that labels its kind lists
    its sentences inline ("Open questions: Do we ...? Who ...?", :func:`_labelled`)."""
    items: list[str] = []
    before = ""
    in_item = False  # the line before is an item or its continuation
    for line in shown.splitlines():
        m = _LISTED.match(line)
        if not m and in_item and line[:1] in (" ", "\t") and line.strip():
            items[-1] += " " + line.strip()  # an indented line after an item goes on with it
            continue
        if not m and (labelled := _labelled(line)) is not None:  # "Open questions: a? b?" lists them inline
            items += [labelled.text[sp.start : sp.end] for sp in split_sentences(labelled.text)]
        lead = before.strip()
        opens = not lead or _introduces(lead) or in_item
        if m and opens:
            items.append(m.group(1))
        in_item = m is not None and opens
        before = line if not m or opens else "running text"  # a glued item keeps its paragraph going
    return {_compared(item) for item in items}


def _compared(text: str) -> str:
    return " ".join(_plain(text).translate(_MARKS).split()).casefold()


def unshown(facets: ExtractedFacets, shown: str) -> ExtractedFacets:
    """``facets`` without the decisions, action items and open questions that ``shown`` (the summary they
    follow in a final) already lists word for word (:func:`_listed_items`), spacing and marks aside: a note's
    own "Open questions:" list picked whole. A sentence of its running text stays an item (the facets say what
    kind it is); entities are words and stay. ``facets`` itself when nothing is listed again."""
    listed = _listed_items(shown)

    def new(*writings: str) -> bool:  # each also without a speaker's label before it
        return not any(_compared(v) in listed for w in writings for v in (w, _ITEM_SPEAKER.sub("", w)))

    decisions = [d for d in facets.decisions if new(d, *(f"{who}: {d}" for who in (facets.decided_by.get(d),) if who))]
    # An action item is listed as its task, or as its line in the facets says it: "Owner: task".
    tasks = [
        a for a in facets.action_items if new(a.task, *(f"{who}: {a.task}" for who in (a.said_by or a.owner,) if who))
    ]
    unresolved = [q for q in facets.unresolved if new(q)]
    if len(decisions) + len(tasks) + len(unresolved) == (
        len(facets.decisions) + len(facets.action_items) + len(facets.unresolved)
    ):
        return facets
    return replace(facets, decisions=decisions, action_items=tasks, unresolved=unresolved)
