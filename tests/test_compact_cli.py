"""``batchsum compact``, transcript reading/writing, agent-transcript detection and the batch-run digest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from batchsum.agent_transcript import (
    digest_agent_transcript,
    parse_transcript,
    read_transcript,
    render_transcript,
)
from batchsum.cli import main
from batchsum.errors import InputError
from batchsum.transcript_shape import agent_transcript_reason
from batchsum.walk import SourceRef, read_document


def _markdown_session(steps: int = 9) -> str:
    parts = ["### user\n\nThe build fails on main. Find out why and fix config/settings.toml."]
    for i in range(steps):
        parts.append(f"### assistant\n\nChecking part {i} of the build.\n```\ncat config/part_{i}.toml\n```")
        body = "\n".join(f"key_{i}_{k} = {k}" for k in range(50))
        parts.append(f"### user\n\n{body}\n(Open file: n/a)\n(Current directory: /repo)\nbash-$")
    parts.append("### assistant\n\nNow run the build.\n```\nmake build\n```")
    parts.append("### user\n\nmake: *** [build] Error 2\nerror: missing key 'name'\n(Current directory: /repo)\nbash-$")
    return "\n\n".join(parts) + "\n"


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, ["compact", *args])


def test_cli_markdown_session(tmp_path: Path) -> None:
    path = tmp_path / "session.md"
    text = _markdown_session()
    path.write_text(text)
    out = _run(str(path), "--context-window", "4096")
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("### system\n\n[Conversation summary")
    sections = out.stdout.split("\n\n### ")
    assert len(sections) == 7  # the summary + 6 verbatim messages
    original_tail = text.split("\n\n### ")[-6:]
    assert sections[1:] == original_tail
    assert "compacted" in out.stderr and "->" in out.stderr


def test_cli_json_and_history_chain(tmp_path: Path) -> None:
    path = tmp_path / "session.md"
    path.write_text(_markdown_session())
    first = _run(str(path), "--json", "--preserve-recent", "4")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["compacted"] and data["tokens_after"] < data["tokens_before"]
    assert data["summary"].startswith("[Conversation summary")
    assert "make build" in data["record"]["context"]["domain_entities"]
    assert len(data["messages"]) == 5
    (tmp_path / "r1.json").write_text(first.stdout)
    compacted = tmp_path / "compacted.jsonl"
    compacted.write_text("".join(json.dumps(m) + "\n" for m in data["messages"]))
    more = tmp_path / "more.jsonl"
    extra = [{"role": "assistant", "content": f"Another check {i}.\n```\nls dir_{i}\n```"} for i in range(3)]
    more.write_text(compacted.read_text() + "".join(json.dumps(m) + "\n" for m in extra))
    second = _run(str(more), "--json", "--preserve-recent", "2", "--history", str(tmp_path / "r1.json"))
    assert second.exit_code == 0, second.output
    rec = json.loads(second.stdout)["record"]
    assert rec["depth"] == 1 and rec["parent_id"] == data["record"]["id"]
    assert "make build" in rec["context"]["domain_entities"]


def test_cli_out_file_and_json_layout(tmp_path: Path) -> None:
    msgs = [{"role": "user" if i % 2 else "assistant", "content": f"turn {i} " + "words " * 80} for i in range(14)]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"model": "m1", "messages": msgs}))
    target = tmp_path / "out.json"
    out = _run(str(path), "--out", str(target), "-q")
    assert out.exit_code == 0, out.output
    written = json.loads(target.read_text())
    assert written["model"] == "m1"  # the object's other keys are kept
    assert written["messages"][1:] == msgs[-6:]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.md", None, "no such file"),
        ("bad.jsonl", '{"role": "user", "content": "hi"}\nnot json\n', "line 2"),
        ("norole.jsonl", '{"content": "hi"}\n', "has no 'role'"),
        ("plain.md", "just some notes\n", "no '### user'"),
    ],
)
def test_cli_bad_input_names_file_and_reason(tmp_path: Path, name: str, content: str | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    out = _run(str(path))
    assert out.exit_code == 1
    assert str(path) in out.stderr and message in out.stderr


def test_cli_model_without_base_url_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "s.md"
    path.write_text(_markdown_session())
    out = _run(str(path), "--model", "x")
    assert out.exit_code == 2 and "--base-url" in out.stderr


def test_transcript_layouts_round_trip() -> None:
    msgs = [{"role": "user", "content": "a\nb"}, {"role": "assistant", "content": "c", "name": "bot"}]
    for fmt in ("json", "jsonl"):
        text = render_transcript(msgs, fmt)  # type: ignore[arg-type]
        assert parse_transcript(text).messages == msgs
    md = render_transcript(msgs, "markdown")
    assert [m["content"] for m in parse_transcript(md).messages] == ["a\nb", "c"]


def test_agent_transcript_detection_and_walk(tmp_path: Path) -> None:
    assert agent_transcript_reason(_markdown_session()) is not None
    assert agent_transcript_reason("Maya: hello there\nJonas: hi\nMaya: how are you\nJonas: fine\n") is None
    assert agent_transcript_reason("### user\n\nhello\n\n### assistant\n\nhi\n\n### user\n\nbye\n") is None
    rendered = "User: run it\n\nAssistant: running\n\nTool: 3 passed\n"
    assert agent_transcript_reason(rendered) is not None
    (tmp_path / "s.md").write_text(_markdown_session())
    doc = read_document(SourceRef(tmp_path / "s.md", "s.md", tmp_path))
    assert doc.content_type == "conversation"
    assert doc.type_reason.startswith("agent transcript")


def test_digest_for_batch_runs() -> None:
    digest = digest_agent_transcript(_markdown_session())
    assert digest.tool_results == 10
    assert "config/part_0.toml" in digest.files_touched
    assert "make build" in digest.commands_run
    assert any("missing key" in e for e in digest.errors)
    assert "Tool: [✓ read_file: File: config/part_0.toml" in digest.text
    assert "key_0_49" not in digest.text  # tool output is reduced before the tree is built
    fm = digest.front_matter()
    assert fm["agent_session"] is True and fm["facets_source"] == "extracted"
    assert yaml.safe_load(yaml.safe_dump(fm)) == fm
    md = digest.markdown()
    assert md.startswith("## Agent session (extracted)") and "`make build`" in md


def test_a_long_command_is_shown_shortened_and_kept_whole_in_the_front_matter() -> None:
    bits = "01" * 1500
    session = _markdown_session(2).replace("make build", f"echo '{bits}' | decode")
    digest = digest_agent_transcript(session)
    whole = f"echo '{bits}' | decode"
    assert whole in digest.front_matter()["commands_run"]
    line = next(ln for ln in digest.markdown().splitlines() if ln.startswith("- `echo"))
    assert len(line) < 220 and " … " in line and line.endswith("| decode`"), line


def test_a_sessions_final_says_how_it_ended() -> None:
    """A session's summary leans on its opening (the task); the reader also wants its outcome, which the
    agent's closing words say. A closing turn of a few words takes the one before along."""
    session = (
        _markdown_session(3)
        + "\n### assistant\n\nThe build passes now: the missing name key was added to settings.toml. "
        "Let's submit the fix.\n```\nsubmit\n```\n"
    )
    digest = digest_agent_transcript(session)
    closing = "The build passes now: the missing name key was added to settings.toml. Let's submit the fix."
    assert digest.ending == closing
    assert f"**How it ended:** {digest.ending} (last command: `submit`)" in digest.markdown()
    assert digest.front_matter()["ending"] == digest.ending
    short = _markdown_session(3) + "\n### assistant\n\nSubmitting.\n```\nsubmit\n```\n"
    assert digest_agent_transcript(short).ending == "Now run the build. Submitting."


def test_a_sessions_final_says_what_it_was_asked() -> None:
    """The task is said once, in the first turn, and the tree picks what the turns say most about: 8 of the
    22 bench sessions' summaries had no word of it. The final's section opens with it, whole sentences, the
    framework's lead-in and standing orders left out."""
    session = (
        "### user\n\nWe're currently solving the following issue within our repository. Here's the issue text:\n"
        "ISSUE:\nThe CSV export drops the last row of every table. It happens since 2.3. "
        + " ".join(f"Detail number {i} of the report follows here." for i in range(12))
        + "\n\nINSTRUCTIONS:\nEdit all the files you need to.\n(Open file: n/a)\nbash-$\n\n"
        + _markdown_session(2).split("\n\n", 2)[2]
    )
    digest = digest_agent_transcript(session)
    assert digest.task.startswith("The CSV export drops the last row of every table. It happens since 2.3.")
    assert 10 < len(digest.task.split()) <= 50 and digest.task.endswith(".")
    assert "currently solving" not in digest.task and "INSTRUCTIONS" not in digest.task
    body = digest.markdown()
    assert body.index(f"**Task:** {digest.task}") < body.index("**How it ended:**")
    assert digest.front_matter()["task"] == digest.task
    bold = "### user\n\nPixel data handler bug. **Describe the bug** The handler needs __the__ attribute.\n\n"
    assert "**" not in (task := digest_agent_transcript(bold + _markdown_session(2).split("\n\n", 2)[2]).task)
    assert "Pixel data handler bug. The handler needs the attribute." in task and "Describe" not in task, task
    # A text without stops is cut at a word, and says so.
    rambling = "### user\n\n" + " ".join(["so random"] * 200) + "\n\n" + _markdown_session(2).split("\n\n", 2)[2]
    cut = digest_agent_transcript(rambling).task
    assert cut.endswith(" …") and len(cut.split()) == 101


def test_digest_names_each_file_once_and_errors_by_their_name() -> None:
    session = (
        "### user\n\nFix the crash in chall.py.\n\n"
        "### assistant\n\nLet me open it.\n```\nopen chall.py\n```\n\n"
        "### user\n\n[File: /ctf/chall.py (3 lines total)]\n1:print(1/0)\n(Open file: /ctf/chall.py)\nbash-$\n\n"
        "### assistant\n\nRun it.\n```\npython chall.py\n```\n\n"
        '### user\n\nTraceback (most recent call last):\n  File "/ctf/chall.py", line 1\n'
        "ZeroDivisionError: division by zero\n(Open file: /ctf/chall.py)\nbash-$\n"
    )
    digest = digest_agent_transcript(session)
    assert digest.files_touched == ["/ctf/chall.py"]  # "chall.py" is the same file, named less fully
    assert digest.errors == ["ZeroDivisionError: division by zero"]


def test_digest_leaves_out_the_worked_example_and_the_standing_instructions() -> None:
    session = (
        "### user\n\nHere is a demonstration of how to use the interface.\n--- DEMONSTRATION ---\n"
        "ISSUE:\nTimeDelta rounds 345 down to 344.\n```\nsubmit\n```\n--- END OF DEMONSTRATION ---\n\n"
        "### user\n\nWe're solving this issue. ISSUE:\nThe export drops the last row of every table.\n\n"
        "INSTRUCTIONS:\nEdit all the files you need to and run any checks that you want.\n"
        "IMPORTANT TIPS:\n1. Always start by trying to replicate the bug.\n(Open file: n/a)\nbash-$\n\n"
        "### assistant\n\nLet me find the exporter first.\n```\nfind_file export.py\n```\n\n"
        "### user\n\nFound 1 matches for export.py:\n/repo/export.py\n(Open file: n/a)\nbash-$\n"
    )
    digest = digest_agent_transcript(session)
    lines = digest.text.split("\n\n")
    assert lines[0] == "User: The export drops the last row of every table."  # the framework's lead-in goes
    assert lines[1].startswith("Assistant: Let me find") and lines[2].startswith("Tool: [")
    assert digest.tool_results == 1  # the task after the example is no command's output
    for boilerplate in ("demonstration", "TimeDelta", "Edit all the files", "replicate"):
        assert boilerplate not in digest.text


def test_read_transcript_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder"):
        read_transcript(tmp_path)
    bad = tmp_path / "x.json"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10")  # no text: a run skips it too
    with pytest.raises(InputError, match="binary"):
        read_transcript(bad)


def test_rendered_chat_from_a_batch_run(tmp_path: Path) -> None:
    msgs = [
        {"role": "user", "content": "Fix tests/test_a.py please."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "execute_bash", "arguments": '{"command": "x"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "name": "execute_bash", "content": "E   AssertionError\nexit code: 1"},
        {"role": "assistant", "content": "The test fails; I will fix the assertion tomorrow."},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in msgs))
    doc = read_document(SourceRef(path, "chat.jsonl", tmp_path))
    assert doc.type_reason.startswith("agent transcript")
    digest = digest_agent_transcript(doc.text)
    assert digest.tool_results == 1
    assert digest.errors == ["E AssertionError"]
    assert "Tool: [✗ execute_bash:" in digest.text
    assert [a.owner for a in digest.facets.action_items] == ["Assistant"]


def test_run_extras() -> None:
    from batchsum.agent_transcript import run_extras

    agent = run_extras(
        _markdown_session(), content_type="conversation", type_reason="agent transcript (x)", offline_facets=True
    )
    assert agent is not None and agent.digest is not None and agent.text is not None
    assert agent.front_matter["agent_session"] is True and "make build" in agent.front_matter["commands_run"]
    chat = "Ana: I'll send the report by Friday.\nBen: We decided to ship on Monday.\n"
    extras = run_extras(chat, content_type="conversation", type_reason="speaker turns", offline_facets=True)
    assert extras is not None and extras.text is None
    assert extras.front_matter["facets_source"] == "extracted"
    assert extras.markdown.startswith("## Facets (extracted)")
    assert run_extras(chat, content_type="conversation", type_reason="speaker turns", offline_facets=False) is None
    assert run_extras(chat, content_type="document", type_reason="default", offline_facets=True) is None


def test_batch_run_writes_agent_facets_and_offline_conversation_facets(tmp_path: Path) -> None:
    """`batchsum run` digests agent sessions and writes extracted facets, offline."""
    from click.testing import CliRunner

    from batchsum.cli import main
    from batchsum.tree import read_node
    from tests.conftest import SAMPLE_CORPUS

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "session.md").write_text(_markdown_session(12), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(
        main, ["run", str(corpus), str(SAMPLE_CORPUS / "meetings"), "--out", str(out), "--no-index", "-q"]
    )
    assert res.exit_code == 0, res.output
    meta, body = read_node(out / "corpus" / "session.md" / "summaries" / "L3" / "final.md")
    assert meta["agent_session"] is True and meta["content_type"] == "conversation"
    assert meta["files_touched"] and meta["commands_run"]
    assert "## Agent session (extracted)" in body
    planning = out / "meetings" / "2026-10-06-planning-meeting.txt" / "summaries" / "L3" / "final.md"
    meta, body = read_node(planning)
    assert meta["facets_source"] == "extracted" and meta.get("action_items")
    assert "(extracted)" in body


def test_batch_run_writes_agent_facets(tmp_path: Path) -> None:
    from batchsum.tree import node_path, read_node

    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "session.md").write_text(_markdown_session())
    (corpus / "standup.txt").write_text(
        "Ana: I'll send the calibration report by Friday, then we can close the ticket.\n"
        "Ben: We decided to ship the new firmware on Monday after the field test.\n"
        "Cleo: Should we also update the dashboard colours before the release?\n"
        "Ana: The open question is still whether the old buoys can take the update.\n"
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, body = read_node(node_path(out, "session.md", 3, None))
    assert meta["content_type_reason"].startswith("agent transcript")
    assert meta["agent_session"] is True and meta["tool_results"] == 10
    assert "make build" in meta["commands_run"] and "config/part_0.toml" in meta["files_touched"]
    assert any("missing key" in e for e in meta["errors"])
    assert "## Agent session (extracted)" in body
    # A tool's record is the program's output, listed in that section: no summary line (it had been one).
    assert "[✓" not in body.split("## Agent session")[0] and "Tool:" not in body.split("## Agent session")[0]
    assert meta["source_tokens"] < 1000  # the tree was built from the reduced session, not 500 lines of config
    meta, body = read_node(node_path(out, "standup.txt", 3, None))
    assert meta["facets_source"] == "extracted"
    assert any(a.get("owner") == "Ana" and a.get("due") == "Friday" for a in meta["action_items"])
    assert "## Facets (extracted)" in body
    # --no-facets turns the offline rules off as well: the final is the summary alone.
    out2 = tmp_path / "out2"
    args = ["run", str(corpus), "--out", str(out2), "--no-index", "--no-metrics", "-q", "--no-facets"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    meta, body = read_node(node_path(out2, "standup.txt", 3, None))
    assert "facets_source" not in meta and "action_items" not in meta
    assert "## Facets" not in body


def test_devices_fifos_huge_and_deeply_nested_inputs_are_clear_errors(tmp_path: Path) -> None:
    import os

    from batchsum.agent_transcript import MAX_TRANSCRIPT_BYTES

    fifo = tmp_path / "session.fifo"
    os.mkfifo(fifo)  # nobody writes to it: reading would wait forever
    huge = tmp_path / "huge.md"
    with open(huge, "wb") as fh:
        fh.truncate(MAX_TRANSCRIPT_BYTES + 1)  # sparse: refused from its size, never read
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    deep_line = tmp_path / "deep.jsonl"
    deep_line.write_text('{"role": "user", "content": ' + "[" * 5000 + "]" * 5000 + "}\n")
    cases = {
        "/dev/zero": "not a regular file",
        str(fifo): "not a regular file",
        str(huge): f"compact reads sessions up to {MAX_TRANSCRIPT_BYTES >> 20} MiB",
        str(deep): "nested deeper than 1024 levels",
        str(deep_line): "nested deeper than 1024 levels",
    }
    for path, reason in cases.items():
        result = _run(path, "--context-window", "1000")
        assert result.exit_code == 1, (path, result.output)
        assert "Traceback" not in result.output
        assert f"{path}: " in result.output and reason in result.output, (path, result.output)


def test_a_garbage_llm_cache_entry_is_a_miss_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from batchsum.backends.cache import ResponseCache, cache_key

    cache = ResponseCache(tmp_path)
    key = cache_key("m", [{"role": "user", "content": "x"}], {})
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    for garbage in (b"[" * 100_000 + b"]" * 100_000, b"\x00\xff garbage", b'["not", "an", "object"]'):
        path.write_bytes(garbage)
        assert cache.get(key) is None
    path.unlink()
    path.symlink_to("/etc/hostname")
    assert cache.get(key) is None
    assert caplog.text.count("ignoring unreadable LLM cache entry") == 4


def test_an_agent_session_told_it_is_a_conversation_is_still_read_as_one(tmp_path: Path) -> None:
    """`--type conversation`, which the docs suggest for transcripts, had read an agent session as a
    plain transcript: its prompts and code listings filled the final and nothing was extracted."""
    from click.testing import CliRunner

    from batchsum.cli import main
    from batchsum.tree import read_node

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "session.md").write_text(_markdown_session(12), encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", str(corpus), "--out", str(out), "--type", "conversation", "--no-index", "-q"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    meta, body = read_node(out / "session.md" / "summaries" / "L3" / "final.md")
    assert meta["agent_session"] is True and meta["commands_run"]
    assert "## Agent session (extracted)" in body
