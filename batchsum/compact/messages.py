"""Chat messages as compaction sees them: OpenAI-style dicts, normalized, identified and counted.

Callers hand in plain dicts (``role``, ``content``, optional ``name``, ``tool_call_id``,
``tool_calls``, ``id``); :func:`as_message` reads one without changing it, so the preserved tail
can be returned as the very dicts the caller passed in.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from batchsum import jsonio
from batchsum.errors import InputError
from batchsum.tokens import Tokenizer

ROLES = frozenset({"system", "user", "assistant", "tool", "function", "developer"})
MESSAGE_OVERHEAD = 4  # role markers and separators per chat message (OpenAI's accounting)
REPLY_PRIMING = 3  # tokens a server adds to prime the reply


@dataclass(frozen=True)
class ToolCall:
    """One function call an assistant message asked for."""

    id: str | None
    name: str
    arguments: str  # the raw JSON string, as the API sends it

    def args(self) -> dict[str, Any]:
        """The arguments parsed as a JSON object ({} when they are not one)."""
        try:
            value = jsonio.loads(self.arguments) if self.arguments else {}  # depth-safe
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Message:
    """A read-only view of one chat message."""

    role: str
    content: str
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)
    id: str | None = None


def _text_of(content: Any) -> str:
    """Text of a message's content: a string, or the text parts of multi-part content."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("text"))
    return str(content)


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


def call_command(name: str, args: Mapping[str, Any]) -> str | None:
    """The command line a tool call runs: its ``command`` (or ``cmd``) argument, an argv list (Codex's
    ``["bash", "-lc", "pytest -x"]``) joined as a shell reads it, a shell's ``-c`` wrapper unwrapped to its
    script (the wrapper says nothing of what ran). None without one, or for an editor's sub-command
    (str_replace_editor's ``"command": "view"`` is no command line)."""
    if name.lower() == "str_replace_editor":
        return None
    cmd = args.get("command") or args.get("cmd")
    if isinstance(cmd, str):
        return cmd
    if not (isinstance(cmd, list) and cmd and all(isinstance(a, str) for a in cmd)):
        return None
    shell, flags = posixpath.basename(cmd[0]), cmd[1] if len(cmd) == 3 else ""
    if shell in _SHELLS and flags.startswith("-") and flags.endswith("c"):
        return cmd[2]
    return shlex.join(cmd)


def tool_calls_of(raw: Any) -> tuple[ToolCall, ...]:
    """The function calls of a message's ``tool_calls`` (OpenAI's ``{"function": {...}}`` or flat items)."""
    calls: list[ToolCall] = []
    for item in raw or ():
        if not isinstance(item, Mapping):
            continue
        inner = item.get("function")
        fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else item
        name = str(fn.get("name") or "unknown")
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False, sort_keys=True)
        calls.append(ToolCall(str(item["id"]) if item.get("id") else None, name, args))
    return tuple(calls)


def as_message(raw: Mapping[str, Any] | Message, where: str = "message") -> Message:
    """Read one OpenAI-style message; raises InputError naming ``where`` when it is not one."""
    if isinstance(raw, Message):
        return raw
    if not isinstance(raw, Mapping):
        raise InputError(where, f"expected an object with 'role' and 'content', got {type(raw).__name__}")
    role = raw.get("role")
    if not isinstance(role, str) or not role.strip():
        raise InputError(where, "has no 'role'")
    role = role.strip().lower()
    if role not in ROLES:
        raise InputError(where, f"unknown role {role!r} (expected system, user, assistant or tool)")
    if "content" not in raw and not raw.get("tool_calls"):
        raise InputError(where, "has neither 'content' nor 'tool_calls'")
    return Message(
        role=role,
        content=_text_of(raw.get("content")),
        name=str(raw["name"]) if raw.get("name") else None,
        tool_call_id=str(raw["tool_call_id"]) if raw.get("tool_call_id") else None,
        tool_calls=tool_calls_of(raw.get("tool_calls")),
        id=str(raw["id"]) if raw.get("id") else None,
    )


def to_dict(message: Message) -> dict[str, Any]:
    """The OpenAI-style dict of ``message`` (only the keys that are set)."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name:
        out["name"] = message.name
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.id:
        out["id"] = message.id
    return out


def message_ids(messages: Sequence[Message]) -> list[str]:
    """A stable id per message: its own ``id``, else a hash of role and content.

    Hash ids survive re-compaction (the same message gets the same id wherever it sits); a repeat of
    identical content gets ``#2``, ``#3`` so ids stay unique within one list.
    """
    seen: dict[str, int] = {}
    out: list[str] = []
    for m in messages:
        if m.id:
            base = m.id
        else:
            calls = "|".join(f"{c.name}:{c.arguments}" for c in m.tool_calls)
            blob = f"{m.role}\x00{m.name or ''}\x00{m.tool_call_id or ''}\x00{m.content}\x00{calls}"
            base = "msg-" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


def message_tokens(message: Message, tokenizer: Tokenizer) -> int:
    """Tokens one message costs in a prompt: content, name, tool calls, plus per-message overhead."""
    n = tokenizer.count(message.content) if message.content else 0
    if message.name:
        n += tokenizer.count(message.name)
    for call in message.tool_calls:
        n += tokenizer.count(call.name) + tokenizer.count(call.arguments) + 3
    return n + MESSAGE_OVERHEAD


def total_tokens(messages: Iterable[Message], tokenizer: Tokenizer) -> int:
    """Prompt size of a whole message list (per-message overhead plus reply priming)."""
    return sum(message_tokens(m, tokenizer) for m in messages) + REPLY_PRIMING
