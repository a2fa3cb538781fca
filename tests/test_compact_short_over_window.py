"""A conversation no longer than ``preserve_recent`` is left as it is, and when it is over the context window
that is said in a note (library) and on the command's line (docs/compaction.md: "a result still over the
window is always said in a note ... whatever --preserve-recent was")."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main

_LONG = [{"role": "user", "content": f"message {i}: " + "the nightly export is slow again " * 40} for i in range(5)]


def test_an_uncompacted_conversation_over_the_window_is_said_in_a_note() -> None:
    result = batchsum.compact(_LONG, context_window=256)
    assert not result.compacted and result.tokens_after > 256
    assert any("exceeds the 256-token context window" in n for n in result.notes), result.notes


def test_the_command_says_it_too(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in _LONG), encoding="utf-8")
    res = CliRunner().invoke(main, ["compact", str(path), "--context-window", "256"])
    assert res.exit_code == 0, res.output
    assert "unchanged" in res.stderr and "note: " in res.stderr and "256-token context window" in res.stderr


def test_one_within_the_window_gets_no_note() -> None:
    result = batchsum.compact(_LONG[:1], context_window=4096)
    assert not result.compacted and result.notes == []
