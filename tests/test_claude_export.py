"""A claude.ai data export (``conversations.json``) is read as a ChatGPT export is: one document, each
conversation under its name, ``User:``/``Assistant:`` turns along the branch it shows; a broken one is a
problem naming the file and the conversation, never a stop to the batch."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError, NotASource
from tests.test_chat_exports import _text, _write

PLACEHOLDER = "```\nThis block is not supported on your current device yet.\n```"


def _at(minute: int) -> str:
    return f"2024-03-12T09:{minute:02d}:05.123456Z"


def _msg(uid: str, sender: str, minute: int, *blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    said = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    message = {"uuid": uid, "sender": sender, "text": said, "content": list(blocks), "created_at": _at(minute)}
    message.update({"attachments": [], "files": [], **extra})
    return message


def _said(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _conv(name: str, messages: list[Any], **extra: Any) -> dict[str, Any]:
    conv = {"uuid": f"c-{name}", "name": name, "created_at": _at(0), "updated_at": _at(9), "chat_messages": messages}
    return {**conv, **extra}


def _budget() -> dict[str, Any]:
    """A conversation whose messages the export lists out of order, with a pasted file, thinking and tools."""
    pasted = {"file_name": "budget.csv", "file_type": "text/csv", "extracted_content": "PASTED-CSV-ROWS 4000,EUR"}
    return _conv(
        "Travel budget",
        [
            _msg(
                "a1",
                "assistant",
                2,
                {"type": "thinking", "thinking": "THINKING-ABOUT-IT"},
                {"type": "tool_use", "name": "web_search", "input": {"query": "TOOL-QUERY"}},
                {"type": "tool_result", "name": "web_search", "content": [_said("TOOL-RESULT")]},
                _said("Drop one workshop and book trains."),
                text="Drop one workshop and book trains." + PLACEHOLDER,
            ),
            _msg("h1", "human", 1, _said("How do I cut 4,000 euros from the travel budget?"), attachments=[pasted]),
            _msg("h2", "human", 3, _said("Thanks, dropping Madrid.")),
        ],
    )


def test_a_claude_export_reads_each_conversation_under_its_name_in_time_order(tmp_path: Path) -> None:
    """Refused as 'JSON is not a conversation' before: a claude.ai export's conversations hold no 'content'."""
    legacy = _conv(  # an older export: no blocks, the words in ``text`` with claude.ai's placeholder in it
        "",
        [
            _msg("l1", "human", 1, text="Which venue pays the delivery fee?"),
            _msg("l2", "assistant", 2, text=f"Let me check.\n\n{PLACEHOLDER}\n\nAsk the venue."),
        ],
    )
    text = _text(_write(tmp_path / "claude" / "conversations.json", [_budget(), legacy]))
    lines = [ln for ln in text.split("\n\n") if ln]
    assert [ln for ln in lines if ln.startswith("# ")] == [
        "# Travel budget (2024-03-12)",
        "# Untitled conversation (2024-03-12)",
    ]
    speakers = re.findall(r"^(\w+): ", text, re.M)
    assert speakers == ["User", "Assistant", "User", "User", "Assistant"]
    # In the order they were sent, not the export's.
    assert text.index("How do I cut") < text.index("Drop one workshop") < text.index("dropping Madrid")
    assert "Ask the venue." in text and "Let me check." in text
    # Thinking, tools, the pasted file and the placeholder are not the conversation.
    for absent in ("THINKING", "TOOL-", "PASTED-CSV", "not supported on your current device"):
        assert absent not in text


def test_a_claude_export_follows_the_branch_the_conversation_shows(tmp_path: Path) -> None:
    """An edited question and its answer are a branch of their own: only the one shown is read."""
    messages = [
        _msg("q1", "human", 1, _said("Plan the offsite."), parent_message_uuid="root"),
        _msg("a1", "assistant", 2, _said("Lisbon in May."), parent_message_uuid="q1"),
        _msg("q2", "human", 3, _said("OLD-QUESTION what about June?"), parent_message_uuid="a1"),
        _msg("a2", "assistant", 4, _said("OLD-ANSWER June is busy."), parent_message_uuid="q2"),
        _msg("q2b", "human", 5, _said("What about Porto instead?"), parent_message_uuid="a1"),
        _msg("a2b", "assistant", 6, _said("Porto is cheaper."), parent_message_uuid="q2b"),
    ]
    latest = _text(_write(tmp_path / "a" / "conversations.json", [_conv("Offsite", messages)]))
    assert "Porto is cheaper." in latest and "Lisbon in May." in latest and "OLD-" not in latest
    shown = _conv("Offsite", messages, current_leaf_message_uuid="a2")
    chosen = _text(_write(tmp_path / "b" / "conversations.json", [shown]))
    assert "OLD-ANSWER" in chosen and "Porto" not in chosen and "Lisbon in May." in chosen


def test_one_claude_conversation_saved_alone_is_read(tmp_path: Path) -> None:
    """Browser exporters save one conversation as the object claude.ai serves, not in a list."""
    text = _text(_write(tmp_path / "claude_conversation.json", _budget()))
    assert text.startswith("# Travel budget") and "Assistant: Drop one workshop" in text


def test_a_claude_export_leaves_out_empty_messages_and_conversations(tmp_path: Path) -> None:
    conversations = [
        _conv("Nothing said", []),
        _conv(
            "Half said",
            [
                {"uuid": "x", "sender": "human", "created_at": _at(1)},  # neither text nor content
                _msg("y", "assistant", 2, {"type": "tool_use", "name": "x", "input": {}}),
                "not a message",
                _msg("z", "human", 3, _said("Still here.")),
            ],
        ),
    ]
    text = _text(_write(tmp_path / "conversations.json", conversations))
    assert "Nothing said" not in text and text.count("# ") == 1
    assert [ln for ln in text.split("\n\n") if not ln.startswith("# ")] == ["User: Still here."]


@pytest.mark.parametrize("messages", [{"uuid": "m"}, "hello", None])
def test_a_claude_export_whose_messages_are_no_list_names_the_conversation(tmp_path: Path, messages: Any) -> None:
    path = _write(tmp_path / "conversations.json", [_budget(), _conv("Broken", messages)])
    with pytest.raises(InputError) as err:
        _text(path)
    assert not isinstance(err.value, NotASource)
    assert "claude.ai export" in err.value.reason and "conversation 2" in err.value.reason
    assert "conversations.json" in str(err.value)


def test_a_run_reads_a_claude_export_and_a_broken_one_does_not_stop_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _write(corpus / "claude" / "conversations.json", [_budget()])
    _write(corpus / "broken" / "conversations.json", [_conv("Broken", {"uuid": "m"})])
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    data = json.loads(r.stdout)
    status = {f["relpath"]: (f["status"], f["error"]) for f in data["files"]}
    assert status["claude/conversations.json"] == ("done", None)
    assert status["broken/conversations.json"][0] != "done"
    assert "claude.ai export" in status["broken/conversations.json"][1]
    final = tmp_path / "out" / "claude" / "conversations.json" / "summaries" / "L3" / "final.md"
    assert "PASTED-CSV" not in final.read_text()
