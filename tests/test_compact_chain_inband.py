"""Chaining from an in-band summary message: a command the message shows clipped is the same command as
its full form in the records (listed once, whole), and the previous narrative's speaker labels are not
labelled again ("Assistant: Assistant: ...")."""

from __future__ import annotations

import json
import re
from typing import Any

from batchsum.compact import compact

LONG = "pytest tests/test_parser.py::test_iso_week_dates_parse_with_leading_zeros -x -q --maxfail=1 --tb=long"
OUTPUT = "F\nE   ValueError: week 53\n1 failed\n" + "\n".join(f"collected item {k} of the suite" for k in range(60))
SAID = [  # turns of two sentences, one run into the next as models write them ("message.Next")
    "It appears there is no test for week 53. The first step is to run the suite to see what fails.",
    "It simply returns a static message.Next, I'll check core.py to see if its week check rejects week 53.",
    "Since the check is manual arithmetic, I will try datetime.fromisocalendar.First, I need a failing case.",
    "Maya asked for a regression test covering the years that have 53 ISO weeks.",
    "The fix passes locally; the remaining failure is a timezone offset in the fixture.",
]
_TWICE = re.compile(r"\b(?:User|Assistant): (?:User|Assistant): ")


def _first() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Fix the ISO week parsing in src/dateparse/core.py."}]
    for i in range(5):
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "shell", "arguments": json.dumps({"command": LONG})},
        }
        said = SAID[i]
        msgs.append({"role": "assistant", "content": said, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": OUTPUT})
    return msgs


def _more(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    said = " The ISO calendar allows a week 53 in long years, and the check only allowed 52 weeks."
    more = [{"role": "assistant" if i % 2 else "user", "content": f"Note {i}:{said * 3}"} for i in range(6)]
    return [*messages, *more]


def test_a_chain_from_the_message_keeps_commands_whole() -> None:
    first = compact(_first(), context_window=4096, preserve_recent=1)
    assert first.record is not None and first.record.summary.count("Assistant: ") >= 2
    assert "…`" in first.summary  # the message shows the command clipped
    for history in (None, [first.record]):
        second = compact(_more(first.messages), context_window=4096, preserve_recent=2, history=history)
        assert second.record is not None and second.record.depth == 1
        commands = second.record.context.commands_run
        assert LONG in commands and not [c for c in commands if c.endswith("…")]


# A summary message as a compaction wrote it: its narrative's turns on one line, each with its label.
NARRATIVE = (
    "Assistant: It appears there are no files related to the challenge. The first step is to interact with the web "
    "server to see if we can find any vulnerabilities or hints. Assistant: It simply returns a static message.Next, "
    'I\'ll check the "Forms" script at `/cgi-bin/forms.pl` to see if it provides any form inputs that could be '
    "potential vectors for command injection or other vulnerabilities."
)
HEADER = "[Conversation summary · id 4fba98d97451449e813d994e1c516a51 · depth 0 · 40 messages]"


def test_the_previous_narrative_is_not_labelled_again() -> None:
    table = "\n".join(f"<tr><td>row {k}</td><td>value {k * 7}</td></tr>" for k in range(80))
    summary = f"{HEADER}\nTask: Find the flag of the I Got Id challenge.\nSummary: {NARRATIVE}"
    messages = [
        {"role": "system", "content": summary},
        {"role": "assistant", "content": "Next I will upload a Perl script to see what the server does with it."},
        {"role": "user", "content": table},
        {"role": "assistant", "content": "The upload form at /cgi-bin/file.pl echoes the file back line by line."},
        {"role": "user", "content": table},
        {"role": "assistant", "content": "Passing ARGV as the file name makes the script open the query string."},
        {"role": "user", "content": "Try it."},
    ]
    for cap in (150, 180):  # budgets at which the old reading picked the second turn, labelled twice
        result = compact(messages, context_window=4096, preserve_recent=1, max_summary_tokens=cap)
        assert result.record is not None and result.record.depth == 1
        assert not _TWICE.search(result.record.summary)
