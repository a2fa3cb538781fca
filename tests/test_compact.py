"""compact(): token reduction, verbatim tail, entities, chaining, depth cap, budget rule, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from batchsum.agent_transcript import parse_markdown, read_transcript
from batchsum.compact import CompactConfig, Conversation, SummaryRecord, compact
from batchsum.compact.extractors import classify_turns, command_line, command_paths, extract_command, find_paths
from batchsum.compact.messages import as_message
from batchsum.compact.record import parse_summary_header
from batchsum.errors import ConfigError, InputError
from batchsum.tokens import get_tokenizer
from bench.bench_compact import missing, used_in

SESSIONS = Path("/work/shared/bench/agent_sessions_raw/docs")
SESSION_FILES = sorted(SESSIONS.glob("*.md")) if SESSIONS.is_dir() else []


def _agent_session(steps: int = 10) -> list[dict[str, Any]]:
    """A small SWE-agent-style session: task, then assistant command / user observation pairs."""
    msgs: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": "We need to fix the rounding bug in src/app/fields.py where TimeDelta serializes 345 ms as 344. "
            "Reproduce it first, then fix it and run the tests.",
        }
    ]
    msgs.append({"role": "assistant", "content": "Run the reproduction script.\n```\npython reproduce.py\n```"})
    msgs.append(
        {
            "role": "user",
            "content": 'Traceback (most recent call last):\n  File "reproduce.py", line 3\n'
            "NameError: name 'td' is not defined\n"
            "(Open file: /repo/reproduce.py)\n(Current directory: /repo)\nbash-$",
        }
    )
    for i in range(steps):
        msgs.append(
            {
                "role": "assistant",
                "content": f"Step {i}: let us look at the code around line {100 + i} of the fields module.\n"
                f"```\nopen src/app/fields.py {100 + i}\n```",
            }
        )
        body = "\n".join(f"{100 + i + k}:    value = int(td.total_seconds() * {k})" for k in range(40))
        msgs.append(
            {
                "role": "user",
                "content": f"[File: /repo/src/app/fields.py (1997 lines total)]\n{body}\n"
                "(Open file: /repo/src/app/fields.py)\n(Current directory: /repo)\nbash-$",
            }
        )
    return msgs


def _session_commands_and_paths(messages: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Commands (first lines of fenced blocks) and the paths they name, as a reader would list them."""
    commands: list[str] = []
    paths: list[str] = []
    for t in classify_turns([as_message(m) for m in messages]):
        if t.kind == "assistant" and t.command:
            commands.append(command_line(t.command))
            paths += command_paths(t.command)
    return commands, paths


def test_reduces_keeps_tail_and_lists_entities() -> None:
    msgs = _agent_session()
    result = compact(msgs, context_window=8192)
    assert result.compacted, result.reason
    assert result.tokens_after < result.tokens_before
    assert result.messages[1:] == msgs[-6:]  # the tail is verbatim
    assert result.messages[0]["role"] == "system"
    record = result.record
    assert record is not None and record.depth == 0 and record.parent_id is None
    entities = record.context.domain_entities
    for item in ("/repo/src/app/fields.py", "python reproduce.py", "open src/app/fields.py 100"):
        assert item in entities
    assert "src/app/fields.py" not in record.context.files_touched  # the same file, named less fully
    assert any("NameError" in e for e in record.context.errors)
    assert len(record.original_message_ids) == len(msgs) - 6
    # The summary message never exceeds the budget rule's cap.
    dropped = result.tokens_before - result.tokens_after + record.token_estimate
    assert record.token_estimate <= min(500, max(128, dropped // 2)) + 4


@pytest.mark.skipif(not SESSION_FILES, reason="shared agent sessions not available")
@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.stem[:40])
def test_every_bench_session(path: Path) -> None:
    messages = read_transcript(path).messages
    result = compact(messages, context_window=8192)
    assert result.compacted, result.reason
    assert result.tokens_after < result.tokens_before
    assert result.messages[1:] == messages[-6:]
    assert result.record is not None
    entities = result.record.context.domain_entities
    commands, paths = _session_commands_and_paths(messages)
    assert not missing(set(commands), entities)
    assert not missing(set(paths), entities)  # a path by itself or by its fullest form ("/ctf/chall.py")
    assert not missing(used_in(messages), entities)  # the same, read by plain regexes instead of our extractors
    # A second compaction chains onto the first.
    again = compact(result.messages, context_window=8192, history=[result.record])
    assert again.compacted, again.reason
    assert again.record is not None
    assert again.record.depth == 1 and again.record.parent_id == result.record.id
    assert again.tokens_after < again.tokens_before
    assert not missing(set(commands), again.record.context.domain_entities)


def test_chain_without_history_reads_the_summary_message() -> None:
    first = compact(_agent_session(), context_window=8192)
    assert first.record is not None
    header = parse_summary_header(first.messages[0]["content"])
    assert header is not None and header["id"] == first.record.id and header["depth"] == 0
    more = first.messages + _agent_session(4)[1:]
    second = compact(more, context_window=8192)
    assert second.record is not None
    assert second.record.depth == 1 and second.record.parent_id == first.record.id
    assert "/repo/src/app/fields.py" in second.record.context.domain_entities


def test_depth_cap_starts_fresh_from_originals_or_summary() -> None:
    cfg = CompactConfig(max_summary_chain_depth=2, preserve_recent=4)
    original = _agent_session(12)
    r0 = compact(original, context_window=8192, config=cfg)
    assert r0.record is not None
    convo = r0.messages + _agent_session(3)[1:]
    r1 = compact(convo, context_window=8192, config=cfg, history=[r0.record])
    assert r1.record is not None and r1.record.depth == 1
    convo2 = r1.messages + _agent_session(3)[1:]
    full = original + _agent_session(3)[1:] + _agent_session(3)[1:]
    # Past the cap with the originals at hand: a fresh chain built from the original messages.
    fresh = compact(convo2, context_window=8192, config=cfg, history=[r0.record, r1.record], originals=full)
    assert fresh.record is not None
    assert fresh.record.depth == 0 and fresh.record.parent_id is None
    assert fresh.record.context.raw["restarted_from"] == r1.record.id
    assert len(fresh.record.original_message_ids) == len(full) - 4
    assert fresh.messages[1:] == convo2[-4:]
    # Without them: a fresh chain from the previous summary.
    from_summary = compact(convo2, context_window=8192, config=cfg, history=[r0.record, r1.record])
    assert from_summary.record is not None and from_summary.record.depth == 0
    assert "/repo/src/app/fields.py" in from_summary.record.context.domain_entities
    assert any("previous summary" in n for n in from_summary.notes)


def test_cannot_reduce_returns_input_unchanged() -> None:
    msgs = [{"role": "user", "content": "hi"}] + [
        {"role": "assistant" if i % 2 else "user", "content": f"ok {i}"} for i in range(6)
    ]
    result = compact(msgs, context_window=4096)
    assert not result.compacted and result.record is None
    assert result.messages == msgs
    assert result.tokens_after == result.tokens_before
    assert "cannot reduce" in result.reason
    short = compact(msgs[:5], context_window=4096)
    assert not short.compacted and "nothing to compact" in short.reason


def test_budget_rule_caps_summary_at_half_the_dropped_tokens() -> None:
    tok = get_tokenizer()
    msgs = _agent_session(30)
    cfg = CompactConfig(max_summary_tokens=400)
    result = compact(msgs, context_window=32000, config=cfg)
    assert result.record is not None
    assert result.record.token_estimate <= 400 + 4
    assert tok.count(result.messages[0]["content"]) <= 400
    small = compact(msgs[:9], context_window=32000, config=CompactConfig(preserve_recent=2))
    assert small.record is not None
    dropped = sum(tok.count(m["content"]) + 4 for m in msgs[:7])
    assert tok.count(small.messages[0]["content"]) <= min(500, max(128, dropped // 2))


def test_system_prompt_is_kept_in_front() -> None:
    msgs = [{"role": "system", "content": "You are a careful coding agent."}, *_agent_session()]
    result = compact(msgs, context_window=8192)
    assert result.messages[0] == msgs[0]
    assert result.messages[1]["content"].startswith("[Conversation summary")
    assert result.messages[2:] == msgs[-6:]


def test_openai_tool_calls_and_tool_results() -> None:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Find where parse_config is defined and fix the typo."}]
    for i in range(5):
        call_id = f"call_{i}"
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "execute_bash",
                            "arguments": json.dumps({"command": f"pytest -k case{i}"}),
                        },
                    }
                ],
            }
        )
        out = "\n".join(f"tests/test_cfg.py::case{i}_{k} PASSED" for k in range(60))
        msgs.append({"role": "tool", "tool_call_id": call_id, "content": out + "\nerror: 1 failed\nexit code: 1"})
    msgs.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "r",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "src/cfg.py"}'},
                }
            ],
        }
    )
    msgs.append({"role": "tool", "tool_call_id": "r", "content": "def parse_config(path):\n    return {}\n"})
    result = compact(msgs, context_window=8192, config=CompactConfig(preserve_recent=3))
    assert result.compacted
    # A tool result is never separated from the assistant turn that called it.
    assert result.messages[1]["role"] == "assistant" and result.messages[1]["tool_calls"]
    assert result.messages[1:] == msgs[-4:]
    ctx = result.record.context if result.record else None
    assert ctx is not None
    assert "pytest -k case0" in ctx.commands_run
    assert "src/cfg.py" in ctx.files_touched
    assert "execute_bash" in ctx.participants


def test_a_file_is_listed_once_by_its_fullest_path() -> None:
    msgs = _agent_session(6)
    for path in ("chall.py", "/ctf/chall.py"):
        call = {"id": path, "type": "function", "function": {"name": "read_file", "arguments": f'{{"path": "{path}"}}'}}
        msgs[2:2] = [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": path, "content": "print('flag')\n"},
        ]
    result = compact(msgs, context_window=4096, config=CompactConfig(preserve_recent=2))
    assert result.record is not None
    files = result.record.context.files_touched
    assert "/ctf/chall.py" in files and "chall.py" not in files, files


def test_tail_shrinks_when_result_would_overflow_window() -> None:
    msgs = _agent_session(12)
    result = compact(msgs, context_window=700, config=CompactConfig(preserve_recent=6))
    assert result.compacted
    assert result.preserved_messages < 6
    assert result.preserved_messages >= 2
    assert any("tail shortened" in n for n in result.notes)
    assert result.messages[1:] == msgs[-result.preserved_messages :]


def test_bad_messages_name_the_message() -> None:
    with pytest.raises(InputError, match="message 2"):
        compact([{"role": "user", "content": "x"}, {"content": "no role"}], context_window=4096)
    with pytest.raises(InputError, match="unknown role"):
        compact([{"role": "robot", "content": "x"}], context_window=4096)
    with pytest.raises(ConfigError):
        compact([], context_window=4096, config=CompactConfig(reset_token_ratio=0.9))


def test_deterministic_offline() -> None:
    msgs = _agent_session()
    a = compact(msgs, context_window=8192)
    b = compact(msgs, context_window=8192)
    assert a.record is not None and b.record is not None
    assert a.messages == b.messages  # the record id is derived from the input, so even the header matches
    assert a.record.id == b.record.id and a.record.context == b.record.context


def test_record_round_trips_through_json() -> None:
    result = compact(_agent_session(), context_window=8192)
    assert result.record is not None
    data = json.loads(json.dumps(result.to_dict()))
    again = SummaryRecord.from_dict(data["record"])
    assert again == result.record
    assert data["tokens_before"] > data["tokens_after"]
    assert data["summary"] == result.messages[0]["content"]


def test_conversation_compacts_as_messages_arrive() -> None:
    convo = Conversation(context_window=3000, config=CompactConfig(min_messages=8, preserve_recent=4))
    results = []
    for m in _agent_session(25):
        r = convo.append(m)
        if r is not None:
            results.append(r)
        assert len(convo.messages) < 60
    assert results and all(r.tokens_after < r.tokens_before for r in results if r.compacted)
    depths = [rec.depth for rec in convo.history]
    assert depths[:2] == [0, 1]
    assert max(depths) < 3  # depth cap
    assert len(convo.archive) == len(_agent_session(25))


def test_markdown_round_trip_keeps_tail_text() -> None:
    text = "# A session\n\n### user\n\nDo it.\n\n### assistant\n\nDone.\n```\nls\n```\n\n### user\n\nfile.txt\n"
    transcript = parse_markdown(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user"]
    assert transcript.preamble == "# A session"
    turns = classify_turns([as_message(m) for m in transcript.messages])
    assert [t.kind for t in turns] == ["task", "assistant", "tool_result"]
    assert turns[2].command == "ls"


def test_command_and_path_helpers() -> None:
    assert extract_command("Let's see.\n<command>\nopen src/x.py 10\n</command>") == "open src/x.py 10"
    assert extract_command("text ```\nedit 1:2\nfoo\nend_of_edit\n```") == "edit 1:2\nfoo\nend_of_edit"
    assert command_paths("python reproduce.py --flag") == ["reproduce.py"]
    assert command_paths("ls -F src/") == ["src/"] and command_paths("cd /testbed") == ["/testbed"]
    long_cmd = 'curl -F "file=@a.pl"  http://host:8000/x.pl?' + "q" * 300
    assert command_line(long_cmd + "\nsecond line") == long_cmd  # verbatim: spacing and length kept
    assert "marshmallow.fields" not in find_paths("from marshmallow.fields import TimeDelta in src/fields.py")
    assert "src/fields.py" in find_paths("from marshmallow.fields import TimeDelta in src/fields.py")


def test_summary_in_the_tail_window_is_still_folded() -> None:
    first = compact(_agent_session(), context_window=8192)
    assert first.record is not None
    short = first.messages[:6]  # the summary + 5 messages: fewer than preserve_recent non-summary messages
    again = compact(short, context_window=8192, history=first.record)  # a single record is accepted too
    assert again.compacted and again.record is not None
    assert again.record.depth == 1 and again.record.parent_id == first.record.id
    assert again.messages[1:] == short[1:]
    assert again.tokens_after < again.tokens_before


def test_extremely_long_single_message() -> None:
    tok = get_tokenizer()
    huge = " ".join(f"The sensor {i} reported value {i * 7} at noon." for i in range(3000))
    msgs = [{"role": "user", "content": huge}, *_agent_session(6)]
    result = compact(msgs, context_window=8192)
    assert result.compacted and result.record is not None
    assert tok.count(result.messages[0]["content"]) <= 500
    assert result.tokens_after < result.tokens_before // 10


def test_task_line_is_carried_along_the_chain() -> None:
    first = compact(_agent_session(), context_window=8192)
    assert first.record is not None and first.record.task.startswith("We need to fix the rounding bug")
    assert "\nTask: We need to fix the rounding bug" in first.messages[0]["content"]
    for history in ([first.record], None):  # from the record, or read back from the message
        second = compact(first.messages + _agent_session(4)[1:], context_window=8192, history=history)
        assert second.record is not None and second.record.task == first.record.task


def test_a_demonstration_turn_is_not_the_task() -> None:
    demo = (
        "Here is a demonstration of how to correctly accomplish this task.\n"
        "--- DEMONSTRATION ---\n"
        "We're currently solving the following issue: TimeDelta serializes 345 ms as 344.\n"
        "--- END OF DEMONSTRATION ---\n"
    )
    session = _agent_session()
    real = dict(session[0], content=session[0]["content"] + "\n\nINSTRUCTIONS:\nYou cannot use vim in this shell.")
    result = compact([{"role": "user", "content": demo}, real, *session[1:]], context_window=8192)
    assert result.record is not None and result.record.task.startswith("We need to fix the rounding bug")
    summary = result.messages[0]["content"]
    assert "demonstration" not in summary.lower() and "vim" not in summary, summary


@pytest.mark.skipif(not SESSION_FILES, reason="shared agent sessions not available")
def test_a_tool_record_is_no_summary_line_of_a_session(tmp_path: Path) -> None:
    """A tool's record is the program's output ("Tool: [✗ shell: Command: python reproduce_bug.py | ...]"),
    listed in the session's own section; it had been a line of the pydicom session's summary."""
    from click.testing import CliRunner

    from batchsum.cli import main
    from batchsum.tree import node_path, read_node

    corpus = tmp_path / "in"
    corpus.mkdir()
    for path in SESSION_FILES:
        (corpus / path.name).write_bytes(path.read_bytes())
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    for path in SESSION_FILES:
        _meta, body = read_node(node_path(out, path.name, 3, None))
        summary = body.split("## Agent session")[0]
        assert "Tool: [" not in summary, (path.name, summary)
