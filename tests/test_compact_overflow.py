"""``batchsum compact`` never hands back more than the context window unawares: a result over the window
is said whatever ``--preserve-recent`` was (at 2 the tail cannot be shortened, and nothing was said)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main

WINDOW = 2048


def _session(last: dict[str, Any]) -> list[dict[str, Any]]:
    """An agent session of small tool results, then ``last``: a call's result, or a user's answer to a question."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Find why the nightly export job is slow and fix it."}]
    for i in range(8):
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": f"cat logs/{i}.log"})},
        }
        msgs.append({"role": "assistant", "content": f"Looking at part {i} of the job.", "tool_calls": [call]})
        log = "\n".join(f"row {k} of part {i} exported in {3 * k} ms" for k in range(40))
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": log})
    call = {"id": "big", "type": "function", "function": {"name": "bash", "arguments": '{"command": "cat full.log"}'}}
    if last["role"] == "tool":
        msgs.append({"role": "assistant", "content": "Now the full log.", "tool_calls": [call]})
    else:
        msgs.append({"role": "assistant", "content": "Can you paste the full log here?"})
    return [*msgs, last]


def _compact(tmp: Path, msgs: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    path = tmp / "s.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in msgs), encoding="utf-8")
    args = ["compact", str(path), "--context-window", str(WINDOW), "--preserve-recent", "2"]
    shown = CliRunner().invoke(main, args)
    assert shown.exit_code == 0, shown.output
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), shown.stderr


_LINES = "\n".join(
    f"12:{k % 60:02d} worker {k % 7} exported batch {k} with {13 * k} rows in {7 * k} ms" for k in range(400)
)


@pytest.mark.parametrize("last", ["tool", "user"])
def test_a_result_over_the_window_is_always_said(tmp_path: Path, last: str) -> None:
    # The verbatim tail at its shortest (2 messages) is the call and its 400-line result, or a user's paste.
    message = {"role": "tool", "tool_call_id": "big"} if last == "tool" else {"role": "user"}
    data, stderr = _compact(tmp_path, _session({**message, "content": _LINES}))
    assert data["compacted"] and data["tokens_after"] > WINDOW
    assert data["messages"][-1]["content"] == _LINES  # kept verbatim, as the tail is
    said = f"exceeds the {WINDOW}-token context window"
    assert any(said in n for n in data["notes"]) and said in stderr, stderr
