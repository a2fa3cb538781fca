"""Conversations of the chat endpoint on disk.

::

    <out>/conversations/<id>/turns/user/<timestamp>__<turn id>.md        what the user said
    <out>/conversations/<id>/turns/assistant/<timestamp>__<turn id>.md   what the model answered
    <out>/conversations/<id>/facts/...                                   facts from the user's turns
    <out>/conversations/<id>/transcript.md/summaries/L3/final.md        the conversation's summary tree
    <out>/.batchsum/memory/spool/<timestamp>__<id>.json                  finished exchanges not yet written
    <out>/.batchsum/memory/transcripts/conversations/<id>/transcript.md  the source of that summary tree

A finished exchange is spooled at once (one atomic file in the state folder, no lock needed); the
writer moves it into the tree under the output's lock, so serve never writes the tree while a run does.
The transcript under ``.batchsum`` is summarized like any source (a run over the transcripts folder),
which puts its tree at ``conversations/<id>/transcript.md/summaries``.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from batchsum import jsonio, statefile
from batchsum.config import STATE_DIR
from batchsum.errors import ConfigError
from batchsum.memory.files import Fact, utc_now
from batchsum.tree import atomic_write_text, read_node, render_markdown

CONVERSATIONS = "conversations"
TRANSCRIPT = "transcript.md"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
DEFAULT_ID = "default"


def check_conversation_id(value: str | None) -> str:
    """A safe conversation id (letters, digits, '.', '_', '-'); ConfigError otherwise."""
    if value is None or value == "":
        return DEFAULT_ID
    if not _ID.match(value) or ".." in value:
        raise ConfigError(
            f"conversation_id {value!r}: use 1-100 letters, digits, '.', '_' or '-' (starting with a letter or digit)"
        )
    return value


def scope_of(conversation_id: str) -> str:
    """The memory scope (and folder under the output) of a conversation."""
    return f"{CONVERSATIONS}/{conversation_id}"


def spool_dir(out: Path) -> Path:
    return out / STATE_DIR / "memory" / "spool"


def transcripts_root(out: Path) -> Path:
    """The folder the conversations' summary run walks."""
    return out / STATE_DIR / "memory" / "transcripts"


def transcript_path(out: Path, conversation_id: str) -> Path:
    return transcripts_root(out) / scope_of(conversation_id) / TRANSCRIPT


def summary_path(out: Path, conversation_id: str) -> Path:
    """The final summary of a conversation (present once it is long enough to summarize)."""
    return out / scope_of(conversation_id) / TRANSCRIPT / "summaries" / "L3" / "final.md"


def read_summary(out: Path, conversation_id: str) -> str | None:
    """The conversation's final summary text, if it has one."""
    try:
        meta, body = read_node(summary_path(out, conversation_id))
    except (OSError, ValueError):
        return None
    if meta.get("kept_whole"):
        return None  # the transcript itself, not a summary of it
    return body.strip() or None


@dataclass
class Exchange:
    """One finished request: the user's last message and the model's answer."""

    conversation_id: str
    user: str
    assistant: str
    created_at: str
    id: str

    @classmethod
    def new(cls, conversation_id: str, user: str, assistant: str) -> Exchange:
        return cls(conversation_id, user, assistant, utc_now(), uuid.uuid4().hex)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def spool(out: Path, exchange: Exchange) -> Path:
    """Persist a finished exchange in the state folder (atomic; fsynced: it is the only copy)."""
    stamp = exchange.created_at.replace("-", "").replace(":", "").replace(".", "")
    path = spool_dir(out) / f"{stamp}__{exchange.id}.json"
    atomic_write_text(path, json.dumps(exchange.as_json(), ensure_ascii=False))
    return path


def spooled(out: Path) -> list[tuple[Path, Exchange]]:
    """Exchanges waiting to be written, oldest first (unreadable spool files are skipped)."""
    folder = spool_dir(out)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        try:
            data = jsonio.loads(statefile.read_bytes(folder / name))
            found.append((folder / name, Exchange(**data)))
        except (OSError, ValueError, TypeError):
            continue
    return found


def _turn_count(out: Path, conversation_id: str) -> int:
    base = out / scope_of(conversation_id) / "turns"
    try:
        return sum(1 for role in ("user", "assistant") for n in os.listdir(base / role) if n.endswith(".md"))
    except FileNotFoundError:
        return 0


def write_turns(out: Path, exchange: Exchange) -> tuple[Fact, Fact]:
    """Write the exchange's user and assistant turns and append them to the transcript; returns the turns
    as records (role ``user`` / ``assistant``) for the index. Call with the output's lock held."""
    cid = exchange.conversation_id
    scope = scope_of(cid)
    n = _turn_count(out, cid)
    turns = []
    for offset, (role, text) in enumerate((("user", exchange.user), ("assistant", exchange.assistant))):
        turn = Fact(
            text=text.strip() or "(empty)",
            scope=scope,
            id=f"{exchange.id}-{role}",
            created_at=exchange.created_at,
            doc_date=exchange.created_at[:10],
            source_turn=n + 1 + offset,
            event="TURN",
            role=role,
        )
        path = out / scope / "turns" / role / turn.file_name
        turn.source_path = path.relative_to(out).as_posix()
        meta = {**turn.meta(), "conversation_id": cid}
        for key in ("event", "replaces", "replaced_by", "source_line"):
            meta.pop(key, None)
        atomic_write_text(path, render_markdown(meta, turn.text), durable=False)
        turn.path = path
        turns.append(turn)
    tpath = transcript_path(out, cid)
    tpath.parent.mkdir(parents=True, exist_ok=True)
    with tpath.open("a", encoding="utf-8") as fh:
        fh.write(f"User: {exchange.user.strip()}\n\nAssistant: {exchange.assistant.strip()}\n\n")
    return turns[0], turns[1]
