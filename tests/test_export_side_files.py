"""The files a claude.ai or ChatGPT export holds beside its ``conversations.json`` (the account, memories,
projects, ratings, shared links, ChatGPT's ``chat.html`` rendering) are skipped as a Slack export's metadata
is: no failure, not summarized; told by their place beside that export's conversations and their shape,
never by their name alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError, NotASource
from batchsum.walk import SourceRef, read_document

CLAUDE_SIDE = ["users.json", "memories.json", "projects.json", "projects/p-garden.json"]
CHATGPT_SIDE = [
    "user.json",
    "message_feedback.json",
    "model_comparisons.json",
    "shared_conversations.json",
    "chat.html",
]


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def _read(path: Path) -> str:
    return read_document(SourceRef(path=path, relpath=path.name, root=path.parent)).text


def _run(corpus: Path, out: Path) -> tuple[int, dict[str, Any]]:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}


def _claude_users() -> list[dict[str, Any]]:
    user = {"uuid": "u-1", "full_name": "Ana Silva", "email_address": "ana@example.org"}
    return [{**user, "verified_phone_number": None}]


def _claude_project() -> dict[str, Any]:
    docs = [{"uuid": "d-1", "filename": "beds.md", "content": "Raised beds need 30 cm of soil.", "created_at": "x"}]
    return {"uuid": "p-garden", "name": "Garden", "description": "", "is_private": True, "docs": docs}


def _claude_export(root: Path) -> None:
    said = "How deep should the raised beds be for carrots and parsnips this spring?"
    answer = "Thirty centimetres of loose soil is enough for carrots; parsnips want forty."
    messages = [
        {"uuid": "m1", "sender": "human", "text": said, "content": [{"type": "text", "text": said}],
         "created_at": "2024-03-12T09:01:00Z"},
        {"uuid": "m2", "sender": "assistant", "text": answer, "content": [{"type": "text", "text": answer}],
         "created_at": "2024-03-12T09:02:00Z", "parent_message_uuid": "m1"},
    ]  # fmt: skip
    conv = {"uuid": "c-1", "name": "Raised beds", "created_at": "2024-03-12T09:00:00Z", "chat_messages": messages}
    _write(root / "conversations.json", [conv])
    _write(root / "users.json", _claude_users())
    memory = {"conversations_memory": "Ana grows vegetables.", "project_memories": {"p-garden": "Raised beds."}}
    _write(root / "memories.json", [{**memory, "account_uuid": "u-1"}])
    _write(root / "projects.json", [_claude_project()])
    _write(root / "projects" / "p-garden.json", _claude_project())


def _node(nid: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    message = {"id": nid, "author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}
    return {"id": nid, "message": message, "parent": parent, "children": []}


def _chatgpt_export(root: Path) -> None:
    conv = {
        "title": "Ferry times",
        "create_time": 1710230000.0,
        "current_node": "a",
        "mapping": {
            "u": _node("u", None, "user", "When does the last ferry to the island leave on Sundays in March?"),
            "a": _node("a", "u", "assistant", "The last ferry leaves at 18:40 on Sundays until the end of March."),
        },
        "id": "conv-1",
    }
    _write(root / "conversations.json", [conv])
    _write(root / "user.json", {"id": "user-abc", "email": "ana@example.org", "chatgpt_plus_user": False})
    feedback = {"id": "f-1", "conversation_id": "conv-1", "user_id": "user-abc", "rating": "thumbsUp", "content": "{}"}
    _write(root / "message_feedback.json", [feedback])
    _write(root / "model_comparisons.json", [{"id": "mc-1", "input": {}, "output": {}, "metadata": {}}])
    _write(root / "shared_conversations.json", [{"id": "s-1", "conversation_id": "conv-1", "title": "Ferry times"}])
    # The export's rendering, as ChatGPT writes it: the conversations as a script's data, shown by the script.
    script = json.dumps([conv]).replace("'", "&#x27;")
    page = (
        "<html>\n<head>\n    <title>ChatGPT Data Export</title>\n    <script>\nvar jsonData = "
        f"{script}\n\nfunction getConversationMessages(conversation) {{ return []; }}\n    </script>\n</head>\n"
        '<body>\n<div id="root">\n</div>\n</body>\n</html>'
    )
    _write(root / "chat.html", page)


def test_a_claude_and_a_chatgpt_export_s_side_files_are_skipped_not_failures(tmp_path: Path) -> None:
    """Each had been 'JSON is not a conversation' (a problem, every night), chat.html read as a web page."""
    _claude_export(tmp_path / "exports" / "claude")
    _chatgpt_export(tmp_path / "exports" / "chatgpt")
    code, data = _run(tmp_path / "exports", tmp_path / "out")
    assert code == 0, data
    assert data["problems"] == [] and data["run"]["status"] == "ok"
    status = {f["relpath"]: (f["status"], f["error"]) for f in data["files"]}
    assert status["claude/conversations.json"] == ("done", None)
    assert status["chatgpt/conversations.json"] == ("done", None)
    for name in CLAUDE_SIDE:
        assert status[f"claude/{name}"][0] == "skipped"
        assert status[f"claude/{name}"][1] == f"claude.ai export metadata ({name}), not a conversation: skipped"
    for name in CHATGPT_SIDE[:-1]:
        reason = f"ChatGPT export metadata ({name}), not a conversation: skipped"
        assert status[f"chatgpt/{name}"] == ("skipped", reason)
    assert status["chatgpt/chat.html"] == (
        "skipped",
        "ChatGPT export's rendering of conversations.json (chat.html), read there: skipped",
    )
    assert data["run"]["files_skipped"] == len(CLAUDE_SIDE) + len(CHATGPT_SIDE)
    # Said once, in the skipped files: no warning in the closing summary for a skip every night by design.
    assert not any("chat.html" in json.dumps(w) or "users.json" in json.dumps(w) for w in data.get("warnings", []))
    assert not (tmp_path / "out" / "chatgpt" / "chat.html").exists()
    assert not (tmp_path / "out" / "claude" / "users.json").exists()
    final = (tmp_path / "out" / "claude" / "conversations.json" / "summaries" / "L3" / "final.md").read_text()
    assert "carrots" in final
    report = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "out"), "--json"])
    skipped = {r["relpath"] for r in json.loads(report.stdout)["skipped"]}
    assert skipped == {f"claude/{n}" for n in CLAUDE_SIDE} | {f"chatgpt/{n}" for n in CHATGPT_SIDE}


def test_a_side_file_s_name_alone_is_no_reason_to_skip_it(tmp_path: Path) -> None:
    # Alone, a users.json of the user's own is reported as before: it is no conversation and no export's.
    lone = _write(tmp_path / "lone" / "users.json", _claude_users())
    with pytest.raises(InputError, match="JSON is not a conversation") as exc:
        _read(lone)
    assert not isinstance(exc.value, NotASource)
    # Beside another export's conversations: claude.ai's account beside ChatGPT's conversations is no side file.
    _chatgpt_export(tmp_path / "chatgpt")
    with pytest.raises(InputError, match="JSON is not a conversation") as exc:
        _read(_write(tmp_path / "chatgpt" / "users.json", _claude_users()))
    assert not isinstance(exc.value, NotASource)
    # Beside the export, a file of a side file's name that is a chat is read as one.
    chat = _write(tmp_path / "chatgpt" / "user.json", [{"role": "user", "content": "hello"}])
    assert _read(chat) == "User: hello"
    # A page named chat.html that is no rendering of the export, or not beside one, is read as a page.
    page = _write(tmp_path / "chatgpt" / "chat.html", "<html><body><p>Ferry notes from the harbour.</p></body></html>")
    assert _read(page) == "Ferry notes from the harbour."
    _chatgpt_export(tmp_path / "moved")
    alone = _write(tmp_path / "elsewhere" / "chat.html", (tmp_path / "moved" / "chat.html").read_text())
    assert _read(alone) == ""  # a page of scripts: what a run says of a file with no text, as before


def test_a_side_file_beside_a_claude_export_is_no_source(tmp_path: Path) -> None:
    _claude_export(tmp_path / "claude")
    for name in CLAUDE_SIDE:
        with pytest.raises(NotASource, match=r"claude\.ai export metadata"):
            _read(tmp_path / "claude" / name)
    # A project folder of the user's own (no claude.ai conversations above it) is theirs.
    mine = _write(tmp_path / "notes" / "projects" / "garden.json", _claude_project())
    with pytest.raises(InputError, match="JSON is not a conversation") as exc:
        _read(mine)
    assert not isinstance(exc.value, NotASource)


def test_an_empty_side_file_of_a_chatgpt_export_is_no_source(tmp_path: Path) -> None:
    # ChatGPT writes its ratings and comparisons as [] when there are none: no chat with no text, said every night.
    _chatgpt_export(tmp_path / "chatgpt")
    for name in ("message_feedback.json", "model_comparisons.json", "shared_conversations.json"):
        with pytest.raises(NotASource, match=r"ChatGPT export metadata"):
            _read(_write(tmp_path / "chatgpt" / name, []))


def test_an_export_s_kind_is_read_from_its_keys_not_its_words(tmp_path: Path) -> None:
    # A claude.ai conversation named after a ChatGPT key, before its own: the words are no key.
    _claude_export(tmp_path / "claude")
    conversations = tmp_path / "claude" / "conversations.json"
    convs = json.loads(conversations.read_text())
    rest = {k: v for k, v in convs[0].items() if k != "name"}
    _write(conversations, [{"name": 'Why "mapping": {} in ChatGPT exports', **rest}])
    with pytest.raises(NotASource, match=r"claude\.ai export metadata \(users\.json\)"):
        _read(tmp_path / "claude" / "users.json")
