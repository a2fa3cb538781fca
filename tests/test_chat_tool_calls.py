"""OpenAI chats whose assistant turns call tools: a batch run reads the calls (a message with only
``tool_calls`` and no ``content`` key included) and lists their commands, as compaction does; Codex-style argv
commands (``["bash", "-lc", SCRIPT]``) are read as the command line SCRIPT, in both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node


def _call(cid: str, command: Any) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": "shell", "arguments": json.dumps({"command": command})}}


MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "tests/test_tax.py::test_vat fails with AssertionError: 19.0 != 19.00. Fix it."},
    {"role": "assistant", "tool_calls": [_call("c0", ["bash", "-lc", "pytest tests/test_tax.py -q"])]},
    {"role": "tool", "tool_call_id": "c0", "content": "F\nE   AssertionError: 19.0 != 19.00\n1 failed in 0.05s"},
    {"role": "assistant", "content": "", "tool_calls": [_call("c1", ["sed", "-n", "1,20p", "src/tax.py"])]},
    {"role": "tool", "tool_call_id": "c1", "content": "def vat(x):\n    return round(x * 0.19, 1)"},
    {"role": "assistant", "content": "Rounding to two places.", "tool_calls": [_call("c2", "git diff src/tax.py")]},
    {"role": "tool", "tool_call_id": "c2", "content": "-    return round(x * 0.19, 1)\n+    return round(x * 0.19, 2)"},
    {"role": "assistant", "content": "The VAT test passes now: rounding to two places fixed it."},
]
COMMANDS = ["pytest tests/test_tax.py -q", "sed -n 1,20p src/tax.py", "git diff src/tax.py"]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chat") / "session.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in MESSAGES) + "\n", encoding="utf-8")
    return path


def test_a_run_reads_the_tool_calls(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(session), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(node_path(out, "session.jsonl", 3, None))
    assert meta["agent_session"] and meta["tool_results"] == 3
    assert meta["commands_run"] == COMMANDS
    assert "src/tax.py" in meta["files_touched"]


def test_compaction_reads_argv_commands(session: Path) -> None:
    res = CliRunner().invoke(main, ["compact", str(session), "--json", "--preserve-recent", "1", "-q"])
    assert res.exit_code == 0, res.output
    record = json.loads(res.stdout)["record"]
    assert record["context"]["commands_run"] == COMMANDS
    assert not [p for p in record["key_points"] if "['" in p]  # no Python list shown for a command
