"""A chat export reads as a chat by its shape, however far apart its messages are: a family's replies come
hours later, a group's days later. And the lines a chat app writes on no one's behalf (a recalled message's
notice, the rule over unread messages, a photo's placeholder) reach neither the summary nor the facets."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from batchsum.cli import main

Message = tuple[dt.datetime, str, str]  # when, who, what
START = dt.datetime(2024, 5, 3, 8, 10, 5)
# Replies 1 to 6 hours after the message before, and days after it.
GAPS = {"hours": [0, 65, 65 + 190, 65 + 190 + 360, 65 + 190 + 360 + 75], "days": [0, 1500, 4400, 7300, 10_150]}
SCRIPTS = {
    "zh": [
        ("妈妈", "今天中午回家吃饭吗？"),
        ("小明", "不回了，公司下午有会。"),
        ("爸爸", "那晚上回来吧，我们包饺子。"),
        ("小明", "好的，我六点下班就回去。"),
        ("妈妈", "路上小心，记得买点水果。"),
    ],
    "ja": [
        ("母", "今日のお昼は家で食べる？"),
        ("健太", "いいえ、午後に会議があります。"),
        ("父", "じゃあ夜は帰っておいで。餃子を作るよ。"),
        ("健太", "わかった、六時に帰ります。"),
        ("母", "気をつけてね。果物を買ってきて。"),
    ],
    "en": [
        ("Ana Silva", "Are you coming home for lunch today?"),
        ("Ben Okafor", "No, there is a meeting this afternoon."),
        ("Dev Patel", "Then come for dinner, we are making dumplings."),
        ("Ben Okafor", "Sure, I will leave the office at six."),
        ("Ana Silva", "Drive safely and bring some fruit."),
    ],
}


def _messages(lang: str, gap: str) -> list[Message]:
    return [
        (START + dt.timedelta(minutes=m), who, said) for m, (who, said) in zip(GAPS[gap], SCRIPTS[lang], strict=True)
    ]


def _line(messages: list[Message]) -> str:
    out, day = ["[LINE] 家族とのトーク履歴", "保存日時：2024/06/01 10:00", ""], None
    for at, who, said in messages:
        if at.date() != day:
            day = at.date()
            out.append(f"{at:%Y/%m/%d}({'月火水木金土日'[at.weekday()]})")
        out.append(f"{at:%H:%M}\t{who}\t{said}")
    return "\n".join(out) + "\n"


def _telegram(messages: list[Message]) -> str:
    return json.dumps(
        {
            "name": "Family",
            "type": "private_group",
            "messages": [
                {
                    "id": i,
                    "type": "message",
                    "date": f"{at:%Y-%m-%dT%H:%M:%S}",
                    "from": who,
                    "from_id": f"user{len(who)}",
                    "text": said,
                }
                for i, (at, who, said) in enumerate(messages, 1)
            ],
        }
    )


def _discord(messages: list[Message]) -> str:
    people = {who: str(100 + i) for i, who in enumerate(dict.fromkeys(w for _, w, _ in messages))}
    return json.dumps(
        {
            "guild": {"id": "1", "name": "Family"},
            "channel": {"id": "2", "name": "general"},
            "messages": [
                {
                    "id": str(i),
                    "type": "Default",
                    "timestamp": f"{at:%Y-%m-%dT%H:%M:%S}+00:00",
                    "content": said,
                    "author": {"id": people[who], "name": who, "nickname": who, "isBot": False},
                }
                for i, (at, who, said) in enumerate(messages, 1)
            ],
        }
    )


def _slack(messages: list[Message]) -> str:
    return json.dumps(
        [
            {
                "type": "message",
                "user": f"U{len(who)}{who[0]}",
                "text": said,
                "ts": f"{at.replace(tzinfo=dt.UTC).timestamp():.0f}.000100",
                "user_profile": {"real_name": who},
            }
            for at, who, said in messages
        ]
    )


def _lines(shape: Callable[[Message], str]) -> Callable[[list[Message]], str]:
    return lambda messages: "\n".join(map(shape, messages)) + "\n"


# Each export shape the docs list: its file's name, the language of its chat, how it writes the messages.
EXPORTS: dict[str, tuple[str, str, Callable[[list[Message]], str]]] = {
    "WeChat": ("chat.txt", "zh", _lines(lambda m: f"{m[0]:%Y/%m/%d %H:%M} {m[1]}: {m[2]}")),
    "WeChatMsg": ("chat.txt", "zh", _lines(lambda m: f"{m[0]:%Y-%m-%d %H:%M:%S} {m[1]}\n{m[2]}\n")),
    "WeChat, sender first": ("chat.txt", "zh", _lines(lambda m: f"{m[1]} {m[0]:%Y-%m-%d %H:%M}\n{m[2]}\n")),
    "WechatExporter": ("chat.txt", "zh", _lines(lambda m: f"{m[1]} ({m[0]:%Y-%m-%d %H:%M:%S}):{m[2]}")),
    "LINE": ("chat.txt", "ja", _line),
    "WhatsApp": ("chat.txt", "en", _lines(lambda m: f"{m[0]:%d/%m/%Y, %H:%M} - {m[1]}: {m[2]}")),
    "WhatsApp iOS": ("chat.txt", "en", _lines(lambda m: f"[{m[0]:%d/%m/%Y, %H:%M:%S}] {m[1]}: {m[2]}")),
    "Discord text": ("chat.txt", "en", _lines(lambda m: f"[{m[0]:%m/%d/%Y %I:%M %p}] {m[1]}\n{m[2]}\n")),
    "Teams copy": ("chat.txt", "en", _lines(lambda m: f"[{m[0]:%d/%m/%Y %H:%M}] {m[1]}\n{m[2]}\n")),
    "Telegram": ("result.json", "en", _telegram),
    "Discord": ("family.json", "en", _discord),
    "Slack": ("general/2024-05-03.json", "en", _slack),
}


def _final(tmp_path: Path, relpath: str, text: str) -> tuple[dict[str, Any], str, str]:
    """The front matter, the summary (facets and links left out) and the whole final of a run over one file."""
    src = tmp_path / "src"  # a neutral name: the text alone types the file
    (src / relpath).parent.mkdir(parents=True)
    (src / relpath).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / relpath / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    _, front, body = final.split("---\n", 2)
    return yaml.safe_load(front), re.split(r"<!-- batchsum:links -->|^## Facets", body, flags=re.M)[0].strip(), final


@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("export", list(EXPORTS))
def test_an_export_with_replies_hours_or_days_apart_reads_as_a_chat(tmp_path: Path, export: str, gap: str) -> None:
    relpath, lang, write = EXPORTS[export]
    front, body, _ = _final(tmp_path, relpath, write(_messages(lang, gap)))
    assert front["content_type"] == "conversation", front
    # Its final is turns, each its speaker's; kept whole, every message's.
    turns = [ln.split(": ", 1)[0] for ln in body.splitlines() if ln.strip()]
    speakers = [who for who, _ in SCRIPTS[lang]]
    assert turns and set(turns) <= set(speakers), body
    assert not front.get("kept_whole") or turns == speakers, body


@pytest.mark.parametrize(
    "log",
    [
        # Hand-written, an hour and a day's entry under a heading of its time and what it was: no chat.
        "2024-03-12 07:30 Gym\nran 5k, felt good.\n\n2024-03-12 12:30 Lunch\nsalad with Ana at the corner place.\n\n"
        "2024-03-13 07:30 Gym\nswam a kilometre.\n\n2024-03-13 19:00 Reading\nfinished the second part of Dune.\n",
    ],
)
def test_a_journal_of_timed_entry_headings_is_no_chat(tmp_path: Path, log: str) -> None:
    front, _, _ = _final(tmp_path, "log.txt", log)
    assert front["content_type"] != "conversation", front


# What WeChat and LINE write on no one's behalf, in the chat's language.
SYSTEM_LINES = ["你撤回了一条消息", "以下为新消息", "メッセージの送信を取り消しました", "ここから未読メッセージ"]
PLACEHOLDERS = ["[图片]", "[语音]", "[スタンプ]", "[写真]"]
NOISY = {
    "WeChat": (
        "2024/05/03 08:10 妈妈: 今天中午回家吃饭吗？\n"
        "2024/05/03 08:11 小明: [图片]\n"
        "2024/05/03 08:12 你撤回了一条消息\n"
        "—— 以下为新消息 ——\n"
        "2024/05/03 08:13 小明: 你撤回了一条消息\n"
        "2024/05/03 08:14 爸爸: [语音]\n"
        "2024/05/03 08:15 小明: 不回了，公司下午有会。\n"
        "2024/05/03 08:16 妈妈: 路上小心。\n"
    ),
    "LINE": (
        "[LINE] 家族とのトーク履歴\n保存日時：2024/06/01 10:00\n\n2024/05/03(金)\n"
        "08:10\t母\t今日のお昼は家で食べる？\n"
        "09:40\t健太\t[スタンプ]\n"
        "09:41\t健太\tメッセージの送信を取り消しました\n"
        "ここから未読メッセージ\n"
        "11:30\t父\t[写真]\n"
        "15:20\t健太\tいいえ、午後に会議があります。\n"
        "18:40\t母\t気をつけてね。\n"
    ),
}


@pytest.mark.parametrize("chat", list(NOISY))
def test_a_chats_system_lines_reach_neither_its_summary_nor_its_facets(tmp_path: Path, chat: str) -> None:
    front, body, final = _final(tmp_path, "chat.txt", NOISY[chat])
    assert front["content_type"] == "conversation", front
    assert body.count(": ") == 3, body  # the three messages someone wrote, and only they
    leaked = [s for s in SYSTEM_LINES + PLACEHOLDERS if s in final]
    assert not leaked, final
