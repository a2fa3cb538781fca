"""Agent and chat transcripts: read and write them as OpenAI-style message lists.

Three layouts are read:

* **Markdown** with one ``### user`` / ``### assistant`` / ``### tool`` / ``### system`` section
  per message (the layout agent-session exports use; tool observations may also be user turns);
* **JSON**: a list of messages or ``{"messages": [...]}``;
* **JSONL**: one message per line (or lines holding ``{"messages": [...]}``).

Messages come back as the dicts found in the file, so a compaction's verbatim tail can be written
back unchanged. :func:`agent_transcript_reason` tells a batch run that a text is an agent/tool
transcript rather than a plain conversation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from batchsum.compact.messages import as_message
from batchsum.errors import InputError

TranscriptFormat = Literal["markdown", "json", "jsonl"]

_SECTION = re.compile(r"^#{2,3}[ \t]+(user|assistant|tool|system|function|developer)[ \t]*$", re.M | re.I)
_FENCE = re.compile(r"^```")
_RENDERED_ROLE = re.compile(r"^(User|Assistant|Tool|System|Function): ", re.M)
_OBSERVATION_MARKS = ("(Open file:", "(Current directory:", "bash-$", "[File: ", "exit code", "Traceback (most recent")


@dataclass
class Transcript:
    """Messages of one transcript plus what is needed to write it back in its own layout."""

    messages: list[dict[str, Any]]
    format: TranscriptFormat
    preamble: str = ""  # Markdown text before the first section (a title), kept for writing back
    extra: dict[str, Any] = field(default_factory=dict)  # other keys of a {"messages": [...]} JSON object


def parse_markdown(text: str, where: str = "transcript") -> Transcript:
    """Messages of a Markdown transcript with ``### <role>`` sections."""
    heads = list(_SECTION.finditer(text))
    if not heads:
        raise InputError(where, "no '### user' / '### assistant' sections found")
    messages: list[dict[str, Any]] = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end].strip("\n")
        messages.append({"role": head.group(1).lower(), "content": body})
    return Transcript(messages, "markdown", preamble=text[: heads[0].start()].strip("\n"))


def _check(messages: list[Any], where: str, lines: list[int] | None = None) -> list[dict[str, Any]]:
    for i, m in enumerate(messages):
        loc = f"{where}: line {lines[i]}" if lines else f"{where}: message {i + 1}"
        as_message(m, loc)  # raises InputError naming the line/message and the reason
    return messages


def parse_json(text: str, where: str = "transcript") -> Transcript:
    """Messages of a JSON chat: a list, or an object with a ``messages`` list."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(where, f"invalid JSON: {exc.msg} (line {exc.lineno})") from None
    extra: dict[str, Any] = {}
    if isinstance(data, dict):
        if not isinstance(data.get("messages"), list):
            raise InputError(where, "JSON object has no 'messages' list")
        extra = {k: v for k, v in data.items() if k != "messages"}
        data = data["messages"]
    if not isinstance(data, list):
        raise InputError(where, "JSON is not a chat: expected a list of messages or {'messages': [...]}")
    return Transcript(_check(data, where), "json", extra=extra)


def parse_jsonl(text: str, where: str = "transcript") -> Transcript:
    """Messages of a JSONL chat: one message (or one ``{"messages": [...]}``) per line."""
    messages: list[Any] = []
    lines: list[int] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(where, f"invalid JSON on line {lineno}: {exc.msg}") from None
        if isinstance(item, dict) and isinstance(item.get("messages"), list):
            messages.extend(item["messages"])
            lines.extend([lineno] * len(item["messages"]))
        else:
            messages.append(item)
            lines.append(lineno)
    return Transcript(_check(messages, where, lines), "jsonl")


def parse_transcript(text: str, fmt: TranscriptFormat | None = None, where: str = "transcript") -> Transcript:
    """Parse ``text`` in ``fmt``, or guess the layout from its first character and its sections."""
    if fmt is None:
        head = text.lstrip()[:1]
        if head == "[":
            fmt = "json"
        elif head == "{":
            first = text.lstrip().split("\n", 1)[0]
            try:
                json.loads(first)
                fmt = "jsonl"
            except json.JSONDecodeError:
                fmt = "json"
        else:
            fmt = "markdown"
    if fmt == "markdown":
        return parse_markdown(text, where)
    if fmt == "json":
        return parse_json(text, where)
    return parse_jsonl(text, where)


def read_transcript(path: Path) -> Transcript:
    """Read a transcript file; the extension decides the layout (.json, .jsonl, else Markdown)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a transcript file") from None
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), f"not UTF-8 text (byte {exc.start})") from None
    text = text.replace("\r\n", "\n")
    ext = path.suffix.lower()
    fmt: TranscriptFormat | None = {".json": "json", ".jsonl": "jsonl", ".md": "markdown"}.get(ext)  # type: ignore[assignment]
    return parse_transcript(text, fmt, str(path))


def render_markdown(messages: list[dict[str, Any]], preamble: str = "") -> str:
    """Messages as ``### <role>`` sections (the layout :func:`parse_markdown` reads back)."""
    parts = [preamble] if preamble else []
    for m in messages:
        msg = as_message(m)
        body = msg.content
        if msg.tool_calls and not body:
            body = "\n".join(f"[tool call {c.name}: {c.arguments}]" for c in msg.tool_calls)
        parts.append(f"### {msg.role}\n\n{body}")
    return "\n\n".join(parts) + "\n"


def render_transcript(messages: list[dict[str, Any]], fmt: TranscriptFormat, *, preamble: str = "") -> str:
    """Messages written in ``fmt``."""
    if fmt == "markdown":
        return render_markdown(messages, preamble)
    if fmt == "json":
        return json.dumps(messages, ensure_ascii=False, indent=2) + "\n"
    return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)


def agent_transcript_reason(text: str) -> str | None:
    """Why ``text`` is an agent/tool transcript (for ``--type auto``), or None when it is not.

    Markdown: at least three role sections with both user and assistant, and tool activity
    (``### tool`` sections, fenced commands in assistant turns, or shell/file-viewer observations).
    Chats already rendered as ``Role: text`` lines count when they contain ``Tool:`` turns.
    """
    sample = text[:200_000]
    roles = [m.group(1).lower() for m in _SECTION.finditer(sample)]
    if len(roles) >= 3 and "user" in roles and "assistant" in roles:
        tools = roles.count("tool")
        fenced = 0
        observed = sum(sample.count(mark) for mark in _OBSERVATION_MARKS)
        if not tools:
            fenced = sum(1 for line in sample.splitlines() if _FENCE.match(line)) // 2
        if tools or fenced >= 2 or observed >= 2:
            signal = f"{tools} tool sections" if tools else f"{fenced} fenced commands"
            return f"agent transcript ({len(roles)} turns, {signal})"
        return None
    rendered = _RENDERED_ROLE.findall(sample)
    if rendered.count("Tool") >= 1 and rendered.count("Assistant") >= 1:
        return f"agent transcript ({len(rendered)} turns, {rendered.count('Tool')} tool results)"
    return None
