"""What chat exports write around and in place of people's words (an emoji code ending a message, Discord's
channel, role and time markup, WhatsApp's placeholders and polls, Slack's rich-text blocks and shared
messages, Telegram's deleted accounts) reads as those words, through a real run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main


def _run(corpus: Path, out: Path, *extra: str) -> None:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json", *extra])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] >= 1, r.output


def _final(out: Path, relpath: str) -> str:
    return (out / relpath / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")


def _body(final: str) -> str:
    return final.split("\n---\n", 1)[1].split("<!--", 1)[0]


def _front(final: str) -> str:
    return final.split("\n---\n", 1)[0]


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")


def _discord(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"guild": {"id": "1", "name": "Acme"}, "channel": {"id": "555", "name": "support"}, "messages": messages}


def _dmsg(i: int, who: str, content: str, **author: Any) -> dict[str, Any]:
    return {
        "id": str(i),
        "type": "Default",
        "timestamp": f"2024-03-12T09:0{i}:00+00:00",
        "content": content,
        "author": {"id": str(100 + len(who)), "name": who.lower(), "nickname": who, "isBot": False, **author},
        "mentions": [],
    }


def test_a_message_ended_by_an_emoji_code_keeps_its_stop_and_its_action_item(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    _write(corpus / "users.json", [{"id": "U100", "real_name": "Ana Silva"}, {"id": "U200", "real_name": "Ben Okafor"}])
    said = [
        ("U100", "The refund queue is at 140 tickets."),
        ("U200", "<@U100> I'll triage the Acme refunds by Thursday:rocket:"),
        ("U100", "We decided to pause the macro rollout."),
    ]
    day = [{"type": "message", "user": u, "ts": f"171023604{i}.0001", "text": t} for i, (u, t) in enumerate(said)]
    _write(corpus / "general" / "2024-03-12.json", day)
    content = [
        _dmsg(1, "Ana", "The refund queue is at 140 tickets."),
        _dmsg(2, "Ben", "I'll triage the Globex refunds by Thursday :thumbsup:"),
        _dmsg(3, "Priya", "We decided to pause the macro rollout."),
    ]
    _write(corpus / "dc.json", _discord(content))
    _run(corpus, tmp_path / "out")
    for rel, item in (("general/2024-03-12.json", "Acme refunds"), ("dc.json", "Globex refunds")):
        front = _front(_final(tmp_path / "out", rel))
        actions = front.split("action_items:", 1)[-1] if "action_items:" in front else ""
        assert item in actions and "due: Thursday" in actions, front
        assert "rocket" not in front and "thumbsup" not in front


def test_discords_channel_role_and_time_markup_read_as_words(tmp_path: Path) -> None:
    roles = [{"id": "777", "name": "Moderators"}]
    content = [
        _dmsg(1, "Kira", "Customers on <#555> report the app crashes on login. <@&777> heads up.", roles=roles),
        _dmsg(2, "Dmitri", "I'll file the bug by <t:1710334800:F> and ping <#999> and <@&888>."),
        _dmsg(3, "Kira", "Thanks, the review is at <t:1710334800:t> on <t:1710334800:d>."),
    ]
    _write(tmp_path / "in" / "dc.json", _discord(content))
    _run(tmp_path / "in", tmp_path / "out")
    body = _body(_final(tmp_path / "out", "dc.json"))
    assert "<#" not in body and "<@&" not in body and "<t:" not in body, body
    assert "support" in body and "@Moderators" in body and "@role" in body and "channel" in body, body
    assert "13 March 2024" in body and "13:00" in body and "2024-03-13" in body, body


WHATSAPP_ANDROID = """\
3/12/24, 9:14\u202fAM - Ana Silva: Customer Wayne Enterprises reported double billing on invoice 8812.
3/12/24, 9:15\u202fAM - Ben Okafor: I will issue the credit note by Friday <This message was edited>
3/12/24, 9:16\u202fAM - Ben Okafor: IMG-20240312-WA0003.jpg (file attached)
3/12/24, 9:17\u202fAM - Ana Silva: POLL:
Refund or credit?
OPTION: Refund (1 vote)
OPTION: Credit (2 votes)
3/12/24, 9:19\u202fAM - Ben Okafor: null
3/12/24, 9:20\u202fAM - Ana Silva: Decision: credit note, not refund.
"""
WHATSAPP_IOS = """\
[12.03.24, 09:15:02] Ana Silva: Customer Wayne Enterprises reported double billing on invoice 8812.
[12.03.24, 09:16:02] Ben Okafor: I will issue the credit note by Friday <This message was edited>
[12.03.24, 09:17:02] Ben Okafor: IMG-20240312-WA0003.jpg (file attached)
[12.03.24, 09:18:02] Ana Silva: POLL:
Refund or credit?
OPTION: Refund (1 vote)
OPTION: Credit (2 votes)
[12.03.24, 09:19:02] Ben Okafor: null
"""


def test_whatsapps_placeholders_are_left_out_and_a_poll_reads_as_its_question(tmp_path: Path) -> None:
    _write(tmp_path / "in" / "android.txt", WHATSAPP_ANDROID)
    _write(tmp_path / "in" / "ios.txt", WHATSAPP_IOS)
    _run(tmp_path / "in", tmp_path / "out")
    for name in ("android.txt", "ios.txt"):
        final = _final(tmp_path / "out", name)
        body = _body(final)
        assert "content_type: conversation" in final, final
        for leak in ("edited", "file attached", "WA0003", "null", "POLL", "OPTION"):
            assert leak not in body, (leak, body)
        assert "POLL" not in final and "OPTION" not in final, final
        assert "credit note by Friday" in body and "Refund or credit?" in body, body
        assert "Refund (1 vote)" in body and "Credit (2 votes)" in body, body


def test_a_whatsapp_export_where_nobody_speaks_twice_is_a_chat(tmp_path: Path) -> None:
    text = (
        "12/03/2024, 09:15 - Ana Silva: The Initech report is due on Friday.\n"
        "12/03/2024, 09:16 - Ben Okafor: I'll draft the Initech report by Thursday.\n"
        "12/03/2024, 09:17 - Priya Raman: Root cause was the expired certificate.\n"
    )
    _write(tmp_path / "in" / "wa.txt", text)
    _run(tmp_path / "in", tmp_path / "out", "--type", "conversation")
    final = _final(tmp_path / "out", "wa.txt")
    body = _body(final)
    # Read as the export, each line a turn: its prefixes gone, the chat dated by its first message.
    assert "Ben Okafor: I'll draft" in body and "09:16" not in body and "12/03/2024" not in body, body
    assert 'doc_date: "2024-03-12"' in final, final


def test_slack_words_only_in_blocks_or_a_shared_message_are_read(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    _write(corpus / "users.json", [{"id": "U1", "real_name": "Ana Silva"}, {"id": "U2", "real_name": "Ben Okafor"}])
    _write(corpus / "channels.json", [{"id": "C1", "name": "pricing"}])
    section = [
        {"type": "user", "user_id": "U2"},
        {"type": "text", "text": " I'll send the Acme & Co quote by Friday"},
        {"type": "emoji", "name": "rocket"},
    ]
    channel = [{"type": "text", "text": "prices from "}, {"type": "channel", "channel_id": "C1"}]
    link = [{"type": "link", "url": "https://x.example", "text": "the terms"}]
    items = [{"type": "rich_text_section", "elements": channel}, {"type": "rich_text_section", "elements": link}]
    blocks = [
        {
            "type": "rich_text",
            "elements": [
                {"type": "rich_text_section", "elements": section},
                {"type": "rich_text_list", "style": "bullet", "elements": items},
            ],
        }
    ]
    shared = {"is_share": True, "author_id": "U1", "text": "", "fallback": "The Zephyr budget is final."}
    day = [
        {"type": "message", "user": "U1", "ts": "1710236040.0001", "text": "", "blocks": blocks},
        {"type": "message", "user": "U2", "ts": "1710236050.0001", "text": "", "attachments": [shared]},
        {"type": "message", "user": "U1", "ts": "1710236060.0001", "text": "Thanks, see you then."},
    ]
    _write(corpus / "general" / "2024-03-12.json", day)
    _run(corpus, tmp_path / "out")
    body = _body(_final(tmp_path / "out", "general/2024-03-12.json"))
    assert "Acme & Co quote by Friday" in body and "prices from" in body and "pricing" in body, body
    assert "the terms" in body.lower() and "https://x.example" not in body, body
    assert "Ana Silva wrote" in body and "Zephyr budget is final" in body, body


def test_a_telegram_message_from_a_deleted_account_is_the_deleted_accounts(tmp_path: Path) -> None:
    messages = [
        {"id": 1, "type": "message", "date": "2024-03-12T09:00:00", "from": "Sara Lind", "from_id": "user1",
         "text": "Jonas, please check the VPN tickets."},
        {"id": 2, "type": "message", "date": "2024-03-12T09:01:00", "from": None, "from_id": "user12",
         "text": "The old gateway is still up."},
        {"id": 3, "type": "message", "date": "2024-03-12T09:02:00", "from": "Jonas Weber", "from_id": "user2",
         "text": "On it."},
    ]  # fmt: skip
    _write(tmp_path / "in" / "result.json", {"name": "Ops", "type": "private_group", "id": 1, "messages": messages})
    _run(tmp_path / "in", tmp_path / "out")
    final = _final(tmp_path / "out", "result.json")
    assert "Deleted Account: The old gateway" in _body(final) and "user12" not in final, final
