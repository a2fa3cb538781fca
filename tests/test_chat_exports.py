"""Chat apps' exports (Slack, Telegram, Discord, ChatGPT) are read as ``Name: text`` turns, each told by its
shape; a Slack export's metadata files are skipped and counted, not failures; any other JSON is a problem
naming what it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError, NotASource
from batchsum.walk import SourceRef, read_document

GOOD = "The committee met on Tuesday and agreed on the plan. " * 10


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def _text(path: Path) -> str:
    return read_document(SourceRef(path=path, relpath=path.name, root=path.parent)).text


def _run(corpus: Path, out: Path, *extra: str) -> tuple[int, dict]:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json", *extra])
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}


def _slack_export(root: Path) -> Path:
    _write(
        root / "users.json",
        [
            {"id": "U1", "name": "ana", "real_name": "Ana Silva", "profile": {"real_name": "Ana Silva"}},
            {"id": "U2", "name": "ben.okafor", "profile": {"real_name": "Ben Okafor", "display_name": "Ben"}},
            {"id": "U3", "name": "chloe", "real_name": "Chloe Martin"},
        ],
    )
    _write(root / "channels.json", [{"id": "C1", "name": "budget", "created": 1700000000, "members": ["U1"]}])
    _write(root / "integration_logs.json", {"logs": [{"service_id": "1", "reason": "added"}]})
    msgs = [
        {"type": "message", "subtype": "channel_join", "user": "U3", "text": "<@U3> has joined the channel", "ts": "1"},
        {
            "type": "message",
            "user": "U1",
            "ts": "2",
            "text": "Morning <@U2>! The deadline is March 22 &amp; it won't move. :rotating_light: :+1::skin-tone-2:",
            "user_profile": {"real_name": "Ana Silva", "display_name": "ana"},
        },
        # No user_profile: the name comes from the export's users.json.
        {"type": "message", "user": "U2", "ts": "3", "text": "I'll send the Northwind quote by Wednesday."},
        {"type": "message", "subtype": "bot_message", "bot_id": "B1", "ts": "4", "text": "Reminder: standup"},
        {"type": "message", "subtype": "channel_topic", "user": "U1", "ts": "5", "text": "set the topic: budget"},
        {
            "type": "message",
            "user": "U3",
            "ts": "6",
            "text": "See <https://example.org/agenda|the agenda> in <#C1|budget>, <https://example.org/x> &lt;3",
        },
        {"type": "message", "user": "U9", "ts": "7", "text": "Who pays the delivery fee?"},
    ]
    return _write(root / "budget" / "2024-03-12.json", msgs)


def test_slack_day_file_is_read_with_names_and_markup_resolved(tmp_path: Path) -> None:
    day = _slack_export(tmp_path / "export")
    assert _text(day) == (
        "Ana Silva: Morning @Ben Okafor! The deadline is March 22 & it won't move.\n\n"
        "Ben Okafor: I'll send the Northwind quote by Wednesday.\n\n"
        "Chloe Martin: See the agenda in #budget, https://example.org/x <3\n\n"
        "U9: Who pays the delivery fee?"
    )


def test_slack_day_file_without_users_json_names_by_profile_else_id(tmp_path: Path) -> None:
    msgs = [
        {"type": "message", "user": "U1", "ts": "1", "text": "Hi <@U2>", "user_profile": {"real_name": "Ana Silva"}},
        {"type": "message", "user": "U2", "ts": "2", "text": "Hello <@U1>"},
    ]
    day = _write(tmp_path / "general" / "2024-03-12.json", msgs)
    assert _text(day) == "Ana Silva: Hi @U2\n\nU2: Hello @Ana Silva"


def test_slack_export_run_skips_metadata_quietly_and_counts_it(tmp_path: Path) -> None:
    _slack_export(tmp_path / "export")
    code, data = _run(tmp_path / "export", tmp_path / "out")
    assert code == 0, data
    assert data["problems"] == []
    status = {f["relpath"]: (f["status"], f["error"]) for f in data["files"]}
    assert status["budget/2024-03-12.json"] == ("done", None)
    for name in ("users.json", "channels.json", "integration_logs.json"):
        assert status[name][0] == "skipped" and "Slack export metadata" in status[name][1]
    assert data["run"]["files_skipped"] == 3 and data["run"]["status"] == "ok"
    report = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "out"), "--json"])
    skipped = {r["relpath"]: r["error"] for r in json.loads(report.stdout)["skipped"]}
    assert set(skipped) == {"users.json", "channels.json", "integration_logs.json"}
    final = (tmp_path / "out" / "budget" / "2024-03-12.json" / "summaries" / "L3" / "final.md").read_text()
    assert "Ben Okafor: I'll send the Northwind quote by Wednesday." in final
    plan = CliRunner().invoke(main, ["plan", str(tmp_path / "export"), "--out", str(tmp_path / "fresh")])
    assert "0 unreadable, 3 skipped (not sources)" in plan.stdout


def test_metadata_is_told_by_shape_not_name_alone(tmp_path: Path) -> None:
    # A file named users.json that is a chat is read as one; one that holds the users is no source.
    chat = _write(tmp_path / "a" / "users.json", [{"role": "user", "content": "hello"}])
    assert _text(chat) == "User: hello"
    meta = _write(tmp_path / "b" / "users.json", [{"id": "U1", "name": "ana"}])
    with pytest.raises(NotASource, match="Slack export metadata"):
        _text(meta)


def test_telegram_result_json(tmp_path: Path) -> None:
    result = {
        "name": "Budget team",
        "type": "private_group",
        "id": 42,
        "messages": [
            {"id": 1, "type": "service", "date": "2024-03-12T08:00:00", "actor": "Ana Silva", "action": "create_group"},
            {"id": 2, "type": "message", "from": "Ana Silva", "from_id": "user1", "text": "Deadline is March 22."},
            {
                "id": 3,
                "type": "message",
                "from": "Ben Okafor",
                "from_id": "user2",
                "text": ["I'll send the ", {"type": "bold", "text": "Northwind quote"}, " tonight."],
            },
            {"id": 4, "type": "message", "from": "Ben Okafor", "from_id": "user2", "photo": "p.jpg", "text": ""},
        ],
    }
    path = _write(tmp_path / "telegram" / "result.json", result)
    assert _text(path) == "Ana Silva: Deadline is March 22.\n\nBen Okafor: I'll send the Northwind quote tonight."


def test_telegram_export_of_every_chat_puts_each_under_its_name(tmp_path: Path) -> None:
    messages = [{"type": "message", "from": "Ben", "text": "Hi"}]
    chat = {"name": "Ben Okafor", "type": "personal_chat", "messages": messages}
    path = _write(tmp_path / "result.json", {"about": "...", "chats": {"about": "...", "list": [chat]}})
    assert _text(path) == "# Ben Okafor\n\nBen: Hi"


def test_discord_export_names_its_speakers(tmp_path: Path) -> None:
    def msg(name: str, content: str, kind: str = "Default", nickname: str | None = None) -> dict[str, Any]:
        author = {"id": "1", "name": name, "nickname": nickname or name, "isBot": False}
        return {"id": "9", "type": kind, "timestamp": "2024-03-09T20:00:20+00:00", "content": content, "author": author}

    export = {
        "guild": {"id": "1", "name": "Critical Role"},
        "channel": {"id": "2", "type": "GuildTextChat", "name": "game-night"},
        "messages": [
            msg("matt", "Welcome to tonight's game.", nickname="Matt"),
            msg("laura", "Joined the server.", kind="GuildMemberJoin"),
            msg("laura", "No more of you doing my voice, Matt?", kind="Reply", nickname="Laura"),
            msg("liam", ""),
        ],
    }
    path = _write(tmp_path / "Critical Role - #game-night.json", export)
    assert _text(path) == "Matt: Welcome to tonight's game.\n\nLaura: No more of you doing my voice, Matt?"


def _node(nid: str, parent: str | None, role: str | None, text: str = "", **extra: Any) -> dict[str, Any]:
    message = None
    if role is not None:
        content = {"content_type": "text", "parts": [text]}
        message = {"id": nid, "author": {"role": role}, "content": content, "create_time": extra.pop("t", None)}
        message.update(extra)
    return {"id": nid, "message": message, "parent": parent, "children": []}


def test_chatgpt_conversations_follow_the_shown_branch_under_their_titles(tmp_path: Path) -> None:
    first = {
        "title": "Budget help",
        "create_time": 1710230000.0,
        "current_node": "d2",
        "mapping": {
            "root": _node("root", None, None),
            "s": _node("s", "root", "system", "You are ChatGPT."),
            "u": _node("u", "s", "user", "How do I cut 4,000 euros from the travel budget?"),
            "t": _node("t", "u", "tool", "search results ..."),
            "a1": _node("a1", "t", "assistant", "An answer the user regenerated."),
            "a2": _node("a2", "t", "assistant", "Drop one workshop and book trains."),
            "e": _node("e", "a2", "assistant", ""),
            "d2": _node("d2", "e", "user", "Thanks, dropping Madrid."),
        },
    }
    second = {  # no current_node: every message by its create_time
        "title": "Venue",
        "mapping": {
            "y": _node("y", "x", "assistant", "Ask the venue.", t=2.0),
            "x": _node("x", None, "user", "Who pays the delivery fee?", t=1.0),
        },
    }
    path = _write(tmp_path / "chatgpt" / "conversations.json", [first, second])
    assert _text(path) == (
        "# Budget help (2024-03-12)\n\n"
        "User: How do I cut 4,000 euros from the travel budget?\n\n"
        "Assistant: Drop one workshop and book trains.\n\n"
        "User: Thanks, dropping Madrid.\n\n"
        "# Venue\n\n"
        "User: Who pays the delivery fee?\n\n"
        "Assistant: Ask the venue."
    )


def test_openai_chat_form_is_unchanged(tmp_path: Path) -> None:
    data = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]}
    assert _text(_write(tmp_path / "chat.json", data)) == "User: hi"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([{"type": "message", "user": "U1", "ts": "1", "text": 5}], "looks like a Slack export day file"),
        ({"messages": [{"type": "message", "from": "Ana", "text": 5}]}, "looks like a Telegram export"),
        ({"messages": [{"author": {"name": "Matt"}, "content": None}]}, "looks like a DiscordChatExporter export"),
        ([{"title": "t", "mapping": []}], "looks like a ChatGPT export"),
        ([{"level": "info", "msg": "started"}], "(expected {'role', 'content'}, found keys: level, msg)"),
        ({"theme": "dark"}, "found an object with keys: theme"),
    ],
)
def test_other_json_names_what_it_found(tmp_path: Path, data: Any, why: str) -> None:
    path = _write(tmp_path / "data.json", data)
    with pytest.raises(InputError) as err:
        _text(path)
    assert why in err.value.reason and not isinstance(err.value, NotASource)


def test_a_chatgpt_export_with_a_cycle_of_parents_ends(tmp_path: Path) -> None:
    """A broken export whose parents form a cycle (its ids ints, or missing) had looped for ever."""
    data = [
        {
            "title": "x",
            "current_node": "a",
            "mapping": {
                "a": {"id": 1, "parent": "b", "message": {"author": {"role": "user"}, "content": {"parts": ["hi"]}}},
                "b": {"parent": "a", "message": None},
            },
        }
    ]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "User: hi" in read_document(SourceRef(path, path.name, tmp_path)).text
