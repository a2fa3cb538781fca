"""claude.ai's data export (``conversations.json``) rendered as ``User:``/``Assistant:`` turns.

Told by its shape (conversations holding ``chat_messages``) in
:func:`batchsum.readers.chat_exports.render_export`, and read as a ChatGPT export is there: the whole file is
one document, each conversation under its name and the day it was started, along the branch it shows.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

__all__ = ["is_claude_conversation", "render_claude"]

# claude.ai's senders as the ChatGPT reader names the same roles, so both exports read alike.
_SPEAKERS = {"human": "User", "user": "User", "assistant": "Assistant"}
# Senders that are not the conversation (instructions), left out as the ChatGPT reader leaves them out.
_LEFT_OUT = frozenset({"system"})
# What claude.ai writes in a message's ``text`` where a tool call, an artifact or a search stood: no one's
# words. Only the ``text`` fallback holds it; ``content`` has the real blocks.
_PLACEHOLDER = re.compile(r"(?:```\s*)?This block is not supported on your current device yet\.(?:\s*```)?")
_EPOCH = dt.datetime.min.replace(tzinfo=dt.UTC)


def is_claude_conversation(data: Any) -> bool:
    """Whether ``data`` is one claude.ai conversation: its ``chat_messages`` beside its ``uuid`` or ``name``."""
    return isinstance(data, dict) and "chat_messages" in data and ("uuid" in data or "name" in data)


def _when(value: Any) -> dt.datetime | None:
    """A message's ``created_at`` ("2024-03-12T09:14:05.123456Z") as an aware time (naive read as UTC)."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _by_time(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` by ``created_at``; one without a readable time stays after the message before it."""
    keyed: list[tuple[dt.datetime, int, dict[str, Any]]] = []
    last = _EPOCH
    for i, m in enumerate(messages):
        last = _when(m.get("created_at")) or last
        keyed.append((last, i, m))
    return [m for _, _, m in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _shown_branch(conv: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of the branch a conversation shows: from its ``current_leaf_message_uuid`` (else its
    latest message) up the ``parent_message_uuid`` chain. An edited question or a regenerated answer is a
    branch of its own, and reading them all would put both versions in the summary. Without parent links
    (an older export), every message by ``created_at``."""
    ordered = _by_time(messages)
    by_id = {m["uuid"]: m for m in ordered if isinstance(m.get("uuid"), str)}
    if not any(m.get("parent_message_uuid") in by_id for m in ordered):
        return ordered
    leaf = conv.get("current_leaf_message_uuid")
    key: Any = leaf if isinstance(leaf, str) and leaf in by_id else ordered[-1].get("uuid")
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    # A cycle of parents in a broken export must end; so does a chain whose parent is not in the export.
    while isinstance(key, str) and key in by_id and key not in seen:
        seen.add(key)
        chain.append(by_id[key])
        key = by_id[key].get("parent_message_uuid")
    return chain[::-1] or ordered


def _message_text(message: dict[str, Any]) -> str:
    """A message's words: its ``content`` text blocks, else its ``text`` (older exports have no blocks).

    Thinking, tool calls and tool results are left out, as the ChatGPT reader leaves out tool output: the
    work behind an answer, not the conversation. So are ``attachments`` and ``files``: an attachment's
    ``extracted_content`` is the pasted file, not what was said about it."""
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if blocks:  # the blocks are the message; its ``text`` holds placeholders where their tools stood
        said = [b["text"].strip() for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n\n".join(s for s in said if s)
    text = message.get("text")
    if not isinstance(text, str):
        return ""
    return re.sub(r"\n{3,}", "\n\n", _PLACEHOLDER.sub("", text)).strip()


def _heading(conv: dict[str, Any]) -> str:
    """A conversation's name and the day it was started, as the ChatGPT reader heads one."""
    name = " ".join(str(conv.get("name") or "").split()) or "Untitled conversation"
    started = _when(conv.get("created_at"))
    # The day as written: claude.ai writes its times in UTC, as a ChatGPT heading's day is.
    return f"{name} ({conv['created_at'].strip()[:10]})" if started else name


def render_claude(conversations: list[dict[str, Any]]) -> str:
    """A claude.ai ``conversations.json``: each conversation under ``# Name (day started)``, then
    ``User:``/``Assistant:`` turns along the branch it shows; empty messages and conversations left out.
    Raises ValueError naming the conversation whose ``chat_messages`` is not a list."""
    parts: list[str] = []
    for n, conv in enumerate(conversations, 1):
        messages = conv.get("chat_messages")
        if not isinstance(messages, list):
            raise ValueError(f"looks like a claude.ai export, but conversation {n}'s 'chat_messages' is not a list")
        turns: list[str] = []
        for message in _shown_branch(conv, [m for m in messages if isinstance(m, dict)]):
            sender = str(message.get("sender") or "unknown").strip().lower()
            text = _message_text(message) if sender not in _LEFT_OUT else ""
            if text:
                turns.append(f"{_SPEAKERS.get(sender) or sender[:1].upper() + sender[1:]}: {text}")
        if turns:
            parts.append(f"# {_heading(conv)}\n\n" + "\n\n".join(turns))
    return "\n\n".join(parts)
