"""The files a claude.ai or ChatGPT data export holds beside its ``conversations.json``: no conversation.

An unzipped export puts the account (claude.ai's ``users.json``, ChatGPT's ``user.json``), claude.ai's
``memories.json`` and projects (``projects.json`` or ``projects/*.json``), ChatGPT's ratings, model
comparisons and shared links, and ChatGPT's ``chat.html`` (the same conversations rendered for a browser)
beside the conversations. Each is told by its name, its place (the folder of a ``conversations.json`` of
that export kind) and its shape together, never by its name alone: a ``users.json`` of the user's own
elsewhere is theirs. :func:`side_file` names such a JSON file, :func:`export_rendering` such a page; the
readers skip them as a Slack export's metadata is skipped (no source, no failure).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["export_kind", "export_rendering", "side_file"]

CHATGPT = "ChatGPT"
CLAUDE = "claude.ai"
# How far into a conversations.json its kind is looked for: the key that tells it ("mapping" of ChatGPT's
# first conversation, "chat_messages" of claude.ai's) comes after a few short fields, and a 300 MB export
# is not read to find it.
_PEEK_BYTES = 1 << 20
# The first key that tells the kinds apart: quoted and followed by a colon, never a string's words (which JSON
# writes escaped, \"mapping\": a conversation's name can say it).
_KIND_KEY = re.compile(rb'"(mapping|chat_messages)"\s*:')
# ChatGPT's chat.html: its conversations as a script's data, rendered in the browser.
_RENDERING = re.compile(rb"\bjsonData\s*=\s*\[")


def _records(data: Any, *keys: str) -> bool:
    """A list of JSON objects each holding one of ``keys`` at least (an empty list too: it holds nothing)."""
    return isinstance(data, list) and all(isinstance(d, dict) and any(k in d for k in keys) for d in data)


def _claude_users(data: Any) -> bool:
    """claude.ai's account: records with a ``uuid`` and a ``full_name`` or ``email_address``."""
    return _records(data, "full_name", "email_address") and all("uuid" in d for d in data)


def _claude_memories(data: Any) -> bool:
    """claude.ai's memory of the account and of its projects, a list of them or one."""
    keys = ("conversations_memory", "project_memories")
    return _records(data, *keys) or (isinstance(data, dict) and any(k in data for k in keys))


_PROJECT_KEYS = ("docs", "prompt_template", "is_private", "is_starter_project")


def _claude_project(data: Any) -> bool:
    """One claude.ai project: its ``uuid`` and ``name`` with its documents or instructions, no messages."""
    return (
        isinstance(data, dict)
        and "uuid" in data
        and "name" in data
        and "chat_messages" not in data
        and any(k in data for k in _PROJECT_KEYS)
    )


def _claude_projects(data: Any) -> bool:
    return isinstance(data, list) and all(_claude_project(d) for d in data)


def _chatgpt_user(data: Any) -> bool:
    """ChatGPT's account: an ``id`` with an e-mail address, a phone number or the subscription."""
    account = ("email", "phone_number", "chatgpt_plus_user")
    return isinstance(data, dict) and "id" in data and any(k in data for k in account)


# Each export's side files by name, with the shape that tells them from a file of the same name that is a chat.
_SIDE_FILES: dict[str, dict[str, Callable[[Any], bool]]] = {
    CLAUDE: {"users.json": _claude_users, "memories.json": _claude_memories, "projects.json": _claude_projects},
    CHATGPT: {
        "user.json": _chatgpt_user,
        "message_feedback.json": lambda data: _records(data, "conversation_id"),  # ratings of its messages
        "shared_conversations.json": lambda data: _records(data, "conversation_id"),  # links shared
        "model_comparisons.json": lambda data: _records(data, "input", "output", "id"),  # answers compared
    },
}


@functools.lru_cache(maxsize=8)
def _kind(fspath: str, _mtime_ns: int, _size: int) -> str | None:
    """The kind of the export whose ``conversations.json`` is ``fspath`` (read once per version)."""
    try:
        with open(fspath, "rb") as fh:
            head = fh.read(_PEEK_BYTES)
    except OSError:
        return None
    found = _KIND_KEY.search(head)
    if found is None:
        return None
    return CHATGPT if found.group(1) == b"mapping" else CLAUDE


def export_kind(folder: Path) -> str | None:
    """``"ChatGPT"`` or ``"claude.ai"`` when ``folder`` holds that export's ``conversations.json``, else None."""
    conversations = folder / "conversations.json"
    try:
        st = os.stat(conversations)
    except OSError:
        return None
    return _kind(os.fspath(conversations), st.st_mtime_ns, st.st_size)


def side_file(data: Any, path: Path) -> str | None:
    """Why ``data`` (the parsed JSON of ``path``) is a chat export's side file, not a conversation; None
    when it is none (another name, another shape, or no ``conversations.json`` of that export beside it)."""
    name = path.name.lower()
    if path.parent.name.lower() == "projects" and _claude_project(data):
        # claude.ai writes each project to a file of its own in projects/, beside the conversations' folder.
        if export_kind(path.parent.parent) == CLAUDE:
            return f"{CLAUDE} export metadata (projects/{path.name}), not a conversation: skipped"
        return None
    for kind, shapes in _SIDE_FILES.items():
        shape = shapes.get(name)
        if shape is not None and shape(data) and export_kind(path.parent) == kind:
            return f"{kind} export metadata ({path.name}), not a conversation: skipped"
    return None


def export_rendering(path: Path, raw: bytes | bytearray) -> str | None:
    """Why the page ``raw`` (the bytes of ``path``) is ChatGPT's ``chat.html``, its export's conversations
    rendered for a browser, which ``conversations.json`` beside it holds: summarized there, never twice.
    None for any other page."""
    if path.name.lower() != "chat.html" or _RENDERING.search(raw) is None:
        return None
    if export_kind(path.parent) != CHATGPT:
        return None
    return f"{CHATGPT} export's rendering of conversations.json ({path.name}), read there: skipped"
