"""The summary record of one compaction and the system message that carries it into the context.

A record keeps the narrative, key points and structured facets of the messages it replaced, the
ids of those messages (never their text) and its place in the chain (``depth``, ``parent_id``).
:func:`render_summary_message` turns it into the synthetic system message placed before the
verbatim tail, within a token cap; :func:`parse_summary_header` reads the chain position back
from such a message, so a saved session can be compacted again without its history.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from batchsum.compact.extractors import SUMMARY_MARK
from batchsum.facets import ActionItem
from batchsum.tokens import Tokenizer

MAX_CONTEXT_ITEMS = 100  # per facet list of a record: enough for a long session, bounded for a runaway one

_HEADER = re.compile(
    r"^\[Conversation summary · id (?P<id>[\w-]+) · depth (?P<depth>\d+)(?: · parent (?P<parent>[\w-]+))?"
    r" · (?P<count>\d+) messages\]"
)


@dataclass
class SummaryContext:
    """Structured facets of the replaced messages."""

    participants: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    action_items: list[ActionItem] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    domain_entities: list[str] = field(default_factory=list)  # files, commands, classes, APIs
    files_touched: list[str] = field(default_factory=list)
    commands_run: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    source: str = "extracted"  # "extracted" (rules) or "llm"
    raw: dict[str, Any] = field(default_factory=dict)  # escape hatch: notes such as a chain restart


@dataclass
class SummaryRecord:
    """One compaction: narrative, key points, facets, and the chain it belongs to."""

    id: str
    timestamp: int  # ms since the epoch
    depth: int  # 0 = first compaction of a chain
    parent_id: str | None
    summary: str
    key_points: list[str]
    context: SummaryContext
    original_message_ids: list[str]
    token_estimate: int = 0  # tokens of the summary message
    mode: str = "rule-based"  # "rule-based" or "llm"
    task: str = ""  # the head of the opening request, carried along the chain

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SummaryRecord:
        """Read a record written by :meth:`to_dict`."""
        ctx = dict(data.get("context") or {})
        items = [ActionItem(**{k: a.get(k) for k in ("task", "owner", "due")}) for a in ctx.pop("action_items", [])]
        known = set(SummaryContext.__dataclass_fields__)
        context = SummaryContext(action_items=items, **{k: v for k, v in ctx.items() if k in known})
        return cls(
            id=str(data["id"]),
            timestamp=int(data.get("timestamp") or 0),
            depth=int(data.get("depth") or 0),
            parent_id=data.get("parent_id"),
            summary=str(data.get("summary") or ""),
            key_points=list(data.get("key_points") or []),
            context=context,
            original_message_ids=list(data.get("original_message_ids") or []),
            token_estimate=int(data.get("token_estimate") or 0),
            mode=str(data.get("mode") or "rule-based"),
            task=str(data.get("task") or ""),
        )


def new_record_id(parent_id: str | None, depth: int, message_ids: Sequence[str]) -> str:
    """A record id in uuid form, derived from what the record replaces.

    Derived rather than random so a compaction is a pure function of its input: the id is part of
    the summary message, and a random id would change its token count and so what fits the budget.
    """
    blob = "\x00".join([parent_id or "", str(depth), *message_ids])
    return uuid.UUID(bytes=hashlib.sha256(blob.encode("utf-8")).digest()[:16], version=4).hex


def now_ms() -> int:
    """The current time in milliseconds."""
    return int(time.time() * 1000)


def header_line(record: SummaryRecord) -> str:
    """The first line of a summary message; :func:`parse_summary_header` reads it back."""
    parent = f" · parent {record.parent_id}" if record.parent_id else ""
    return (
        f"{SUMMARY_MARK} · id {record.id} · depth {record.depth}{parent} · {len(record.original_message_ids)} messages]"
    )


def parse_summary_header(content: str) -> dict[str, Any] | None:
    """``{"id", "depth", "parent_id", "messages"}`` of a summary message we wrote, else None."""
    m = _HEADER.match(content.lstrip())
    if not m:
        return None
    return {
        "id": m.group("id"),
        "depth": int(m.group("depth")),
        "parent_id": m.group("parent"),
        "messages": int(m.group("count")),
    }


def _short(command: str, limit: int = 80) -> str:
    return command if len(command) <= limit else command[: limit - 1] + "…"


def _fmt_action(a: ActionItem) -> str:
    return (f"{a.owner}: " if a.owner else "") + a.task + (f" (due {a.due})" if a.due else "")


def render_summary_message(record: SummaryRecord, cap: int, tokenizer: Tokenizer) -> str:
    """The summary message's text within ``cap`` tokens.

    Sections are added in priority order - narrative, errors, files, commands, decisions, action
    items, open questions, key points (newest first), entities - one line at a time while the
    cap allows; what does not fit stays in the record only, and a closing line says how much.
    """
    ctx = record.context
    head = header_line(record)
    lines: list[str] = [head]
    used = tokenizer.count(head)
    left_out = 0

    def fits(line: str) -> bool:
        nonlocal used
        cost = tokenizer.count(line) + 1  # + the newline joining it
        if used + cost > cap:
            return False
        lines.append(line)
        used += cost
        return True

    if record.task:
        fits(f"Task: {record.task}")
    if record.summary:
        fits(f"Summary: {record.summary}")

    def section(title: str, items: Sequence[str], fmt: Callable[[str], str] = lambda s: f"- {s}") -> None:
        nonlocal left_out
        if not items:
            return
        first = fmt(items[0])
        if used + tokenizer.count(f"{title}:") + tokenizer.count(first) + 2 > cap:
            left_out += len(items)  # a heading without a single item would only waste tokens
            return
        fits(f"{title}:")
        for i, item in enumerate(items):
            if not fits(fmt(item)):
                left_out += len(items) - i
                return

    def inline(title: str, items: Sequence[str]) -> None:
        # Entities-like lists go on one line each, cut where the cap says.
        nonlocal left_out
        if not items:
            return
        kept: list[str] = []
        for item in items:
            trial = f"{title}: " + ", ".join([*kept, item])
            if used + tokenizer.count(trial) + 1 > cap:
                break
            kept.append(item)
        if kept:
            fits(f"{title}: " + ", ".join(kept))
        left_out += len(items) - len(kept)

    section("Errors", ctx.errors)
    inline("Files", ctx.files_touched)
    inline("Commands", [f"`{_short(c)}`" for c in ctx.commands_run])
    section("Key points (newest first)", list(reversed(record.key_points)))
    section("Decisions", ctx.decisions)
    section("Action items", [_fmt_action(a) for a in ctx.action_items])
    section("Open questions", ctx.unresolved)
    shown = set(ctx.files_touched) | set(ctx.commands_run)
    inline("Entities", [e for e in ctx.domain_entities if e not in shown])
    text = "\n".join(lines)
    if left_out:
        note = f"(+{left_out} more items in the summary record)"
        if used + tokenizer.count(note) + 1 <= cap:
            text += "\n" + note
    return text


_LIST_SECTIONS = {
    "Errors:": "errors",
    "Decisions:": "decisions",
    "Action items:": "action_items",
    "Open questions:": "unresolved",
    "Key points (newest first):": "key_points",
}
_INLINE = {"Files: ": "files_touched", "Commands: ": "commands_run", "Entities: ": "domain_entities"}


def parse_summary_message(content: str) -> tuple[str, list[str], SummaryContext, str]:
    """Narrative, key points (oldest first), facets and task read back from a summary message we wrote.

    Used to chain from a saved session when the summary record itself is not at hand; items the
    message left out for its token cap are lost, which is why callers should pass ``history``.
    """
    ctx = SummaryContext()
    narrative = ""
    task = ""
    key_points: list[str] = []
    current: str | None = None
    for line in content.split("\n")[1:]:
        if line.startswith("Task: ") and not task:
            task, current = line[len("Task: ") :].strip(), None
            continue
        if line.startswith("Summary: "):
            narrative, current = line[len("Summary: ") :].strip(), None
            continue
        if line in _LIST_SECTIONS:
            current = _LIST_SECTIONS[line]
            continue
        inline = next((k for k in _INLINE if line.startswith(k)), None)
        if inline is not None:
            items = [i.strip() for i in line[len(inline) :].split(", ") if i.strip()]
            if _INLINE[inline] == "commands_run":
                items = [i.strip("`") for i in items]
            getattr(ctx, _INLINE[inline]).extend(items)
            current = None
            continue
        if current and line.startswith("- "):
            item = line[2:].strip()
            if current == "key_points":
                key_points.insert(0, item)
            elif current == "action_items":
                owner, sep, what = item.partition(": ")
                ctx.action_items.append(
                    ActionItem(what, owner) if sep and len(owner.split()) <= 3 else ActionItem(item)
                )
            else:
                getattr(ctx, current).append(item)
    return narrative, key_points, ctx, task
