"""Whether a text is an agent/tool transcript, from its shape alone: what a run asks of every file it
reads (``--type auto``). A few patterns and the tool names the extractors know; parsing and digesting
a session is :mod:`batchsum.agent_transcript`'s, summarizing its tool results
:mod:`batchsum.compact.extractors`'."""

from __future__ import annotations

import re
from typing import Literal

ToolKind = Literal["read_file", "shell", "search", "create_file", "edit_file", "other"]

# Tool names as agents call them -> what the tool does.
TOOL_NAMES: dict[str, ToolKind] = {
    "read_file": "read_file",
    "read": "read_file",
    "view_file": "read_file",
    "open_file": "read_file",
    "cat": "read_file",
    "execute_bash": "shell",
    "bash": "shell",
    "shell": "shell",
    "run_command": "shell",
    "terminal": "shell",
    "exec": "shell",
    "search_files": "search",
    "grep": "search",
    "search": "search",
    "find_file": "search",
    "search_dir": "search",
    "search_file": "search",
    "glob": "search",
    "create_file": "create_file",
    "write_file": "create_file",
    "write": "create_file",
    "edit_file": "edit_file",
    "edit": "edit_file",
    "str_replace": "edit_file",
    "apply_patch": "edit_file",
}

# A Markdown role heading (``### user``) and a rendered ``Role: text`` turn.
SECTION = re.compile(r"^#{2,3}[ \t]+(user|assistant|tool|system|function|developer)[ \t]*$", re.M | re.I)
RENDERED_TURN = re.compile(r"(?:\A|\n\n)([A-Z][\w-]{0,40}): ")
_FENCE = re.compile(r"^```")
_OBSERVATION_MARKS = ("(Open file:", "(Current directory:", "bash-$", "[File: ", "exit code", "Traceback (most recent")


def known_tool_name(name: str) -> bool:
    """True when ``name`` is a tool name the extractors know (``read_file``, ``execute_bash``, ...)."""
    return name.lower() in TOOL_NAMES or name.lower() == "str_replace_editor"


def agent_transcript_reason(text: str) -> str | None:
    """Why ``text`` is an agent/tool transcript (for ``--type auto``), or None when it is not.

    Markdown: at least three role sections with both user and assistant, and tool activity
    (``### tool`` sections, fenced commands in assistant turns, or shell/file-viewer observations).
    Chats already rendered as ``Role: text`` turns count when they contain tool turns (``Tool:`` or
    a known tool's name, as a batch run renders .json/.jsonl chats).
    """
    sample = text[:200_000]
    roles = [m.group(1).lower() for m in SECTION.finditer(sample)]
    if len(roles) >= 3 and "user" in roles and "assistant" in roles:
        return _tool_activity(sample, len(roles), roles.count("tool"), "tool sections")
    if "Assistant: " not in sample:
        return None

    labels = [m.group(1) for m in RENDERED_TURN.finditer(sample)]
    tools = sum(1 for label in labels if label == "Tool" or known_tool_name(label))
    if tools and "Assistant" in labels:
        return f"agent transcript ({len(labels)} turns, {tools} tool results)"
    if len(labels) >= 3 and "User" in labels and "Assistant" in labels:
        # The same session as .json/.jsonl, observations as user turns: the Markdown signals apply.
        return _tool_activity(sample, len(labels), 0, "tool results")
    return None


def _tool_activity(sample: str, turns: int, tools: int, what: str) -> str | None:
    """The agent-transcript reason of a session of ``turns`` turns with ``tools`` tool turns, fenced
    commands or shell/file-viewer observations; None without any."""
    fenced = 0
    observed = sum(sample.count(mark) for mark in _OBSERVATION_MARKS)
    if not tools:
        fenced = sum(1 for line in sample.splitlines() if _FENCE.match(line)) // 2
    if tools or fenced >= 2 or observed >= 2:
        signal = f"{tools} {what}" if tools else f"{fenced} fenced commands"
        return f"agent transcript ({turns} turns, {signal})"
    return None
