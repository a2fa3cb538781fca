"""WeChat and LINE chats exported as text read as conversations: a speaker per message, the chat dated by its
first message, and the export's header, day lines, media placeholders and notices left out of the final."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from batchsum.cli import main

CHATS = {
    # One message a line, as copied out of WeChat; a recalled message's notice names no sender.
    "wechat": (
        "2024/05/03 21:15 张伟: 明天的会议几点开始？\n"
        "2024/05/03 21:16 李娜: 上午十点，在三楼会议室。\n"
        "2024/05/03 21:17 张伟: [图片]\n"
        '2024/05/03 21:18 "张伟" 撤回了一条消息\n'
        "2024/05/03 21:19 张伟: 好的，我会准备PPT。\n"
        "2024/05/03 21:20 李娜: [表情]\n"
    ),
    # WeChatMsg: "date time sender" over the words; a quoted message under a reply is someone's earlier words.
    "wechatmsg": (
        "2024-05-03 21:15:02 张伟\n明天的会议几点开始？\n\n"
        "2024-05-03 21:16:10 李娜\n上午十点，在三楼会议室。\n\n"
        "2024-05-03 21:17:00 张伟\n[图片]\n\n"
        '2024-05-03 21:17:30 "张伟"撤回了一条消息\n\n'
        "2024-05-03 21:18:00 张伟\n好的，我会准备PPT。\n引用:李娜:上午十点，在三楼会议室。\n\n"
    ),
    "wechat, sender first": (
        "张伟 2024-05-03 21:15\n明天的会议几点开始？\n\n"
        "李娜 2024-05-03 21:16\n上午十点，在三楼会议室。\n\n"
        "张伟 2024-05-03 21:17\n好的，我会准备PPT。\n[表情]\n"
    ),
    "wechatexporter": (
        "张伟 - 微信聊天记录\n\n"
        "张伟 (2024-05-03 21:15:02):明天的会议几点开始？\n"
        "李娜 (2024-05-03 21:16:10):上午十点，在三楼会议室。\n"
        "系统消息：李娜撤回了一条消息\n"
        "张伟 (2024-05-03 21:17:00):[图片]\n"
        "张伟 (2024-05-03 21:18:00):好的，我会准备PPT。\n"
    ),
    # LINE in Japanese: a header, the day it was saved, day lines; stickers, photos, calls and an unsent
    # message are LINE's; a message of two lines stands in quotes.
    "line": (
        "[LINE] 佐藤とのトーク履歴\n保存日時：2024/05/05 10:00\n\n"
        "2024/05/03(金)\n"
        "21:15\t佐藤\t今日はお疲れさまでした。\n"
        "21:16\t田中\tスタンプ\n"
        "21:17\t田中\t[写真]\n"
        '21:18\t田中\t"明日は八時に集合です。\n切符は私が買います。"\n'
        "21:19\t佐藤がメッセージの送信を取り消しました\n"
        "2024/05/04(土)\n"
        "07:30\t佐藤\t☎ 通話時間 0:54\n"
        "07:31\t佐藤\t駅で会いましょう。\n"
    ),
    # LINE in English: its day line's weekday tells the month-first "05/03/2024" a Friday, the 3rd of May.
    "line, english": (
        "[LINE] Chat history with Sato\nSaved on: 5/5/2024, 10:00\n\n"
        "Fri, 05/03/2024\n"
        "9:15 PM\tSato\tThanks for today.\n"
        "9:16 PM\tKen\t[Sticker]\n"
        "9:17 PM\tKen\tSee you tomorrow at the station.\n"
        "9:18 PM\tSato\t[Photo]\n"
        "9:19 PM\tKen unsent a message.\n"
        "9:20 PM\tSato\tSure, I will bring the tickets.\n"
    ),
}
# Who spoke each message a reader keeps, in order (the chats are short enough to be kept whole).
SPEAKERS = {
    "wechat": ["张伟", "李娜", "张伟"],
    "wechatmsg": ["张伟", "李娜", "张伟"],
    "wechat, sender first": ["张伟", "李娜", "张伟"],
    "wechatexporter": ["张伟", "李娜", "张伟"],
    "line": ["佐藤", "田中", "佐藤"],
    "line, english": ["Sato", "Ken", "Sato"],
}
# What only the export wrote: its header and save date, day lines, placeholders, notices, a quote, clocks.
_EXPORTS_OWN = re.compile(
    r"\[LINE\]|保存日時|Saved on|微信聊天记录|系统消息|引用|撤回|取り消し|unsent|通話|スタンプ|Sticker"
    r"|\[[^\]]*\]|\d{1,2}:\d{2}|2024|Fri,|\(金\)|\""
)


def _final(tmp_path: Path, name: str, text: str) -> tuple[dict[str, Any], str]:
    """The front matter and the summary (facets and links left out) of the final of a run over one file."""
    src = tmp_path / "src"  # a neutral name: the text alone types the file
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    _, front, body = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), re.split(r"<!-- batchsum:links -->|^## Facets", body, flags=re.M)[0].strip()


@pytest.mark.parametrize("chat", list(CHATS))
def test_a_wechat_or_line_export_reads_as_a_chat_dated_by_its_first_message(tmp_path: Path, chat: str) -> None:
    front, body = _final(tmp_path, "chat.txt", CHATS[chat])
    assert front["content_type"] == "conversation"
    assert (front["doc_date"], front["date_source"]) == ("2024-05-03", "first message")
    assert front.get("kept_whole") is True, front
    # Every message its speaker's turn: none glued to another, none the export's own line.
    turns = [ln for ln in body.splitlines() if ln.strip()]
    assert [ln.split(": ", 1)[0] for ln in turns] == SPEAKERS[chat], body
    assert not _EXPORTS_OWN.search(body), body


def test_a_line_message_of_two_lines_keeps_both_without_its_quotes(tmp_path: Path) -> None:
    _, body = _final(tmp_path, "line_sato.txt", CHATS["line"])
    said = [ln.split(": ", 1)[1] for ln in body.splitlines() if ln.startswith("田中: ")]
    assert len(said) == 1 and "明日は八時に集合です。" in said[0] and "切符は私が買います。" in said[0], body
    assert '"' not in body


def test_a_month_first_or_day_first_line_day_is_told_by_its_weekday(tmp_path: Path) -> None:
    # "Sat, 04/05/2024" is the 4th of May (a Saturday), not the 5th of April (a Friday).
    text = CHATS["line, english"].replace("Fri, 05/03/2024", "Sat, 04/05/2024")
    front, _ = _final(tmp_path, "chat.txt", text)
    assert (front["doc_date"], front["date_source"]) == ("2024-05-04", "first message")


@pytest.mark.parametrize(
    "log",
    [
        # Written as WeChat writes a message, but hours apart: a day's log, its labels no one speaking.
        "2024-03-12 07:30 Gym: ran 5k, felt good.\n"
        "2024-03-12 12:30 Lunch: salad with Ana at the corner place.\n"
        "2024-03-13 07:30 Gym: swam a kilometre.\n"
        "2024-03-13 19:00 Reading: finished the second part of Dune.\n",
        # Rows as LINE's, with no day line over them: a table of hours.
        "09:00\tEmail\tanswered the supplier about the invoice.\n"
        "10:00\tMeeting\tplanned the spring release with the team.\n"
        "11:00\tEmail\tsent the contract back to the lawyer.\n"
        "12:00\tLunch\tsoup at the corner place.\n",
    ],
    ids=["dated log", "table of hours"],
)
def test_a_log_of_timed_labelled_lines_is_no_chat(tmp_path: Path, log: str) -> None:
    front, _ = _final(tmp_path, "log.txt", log)
    assert front["content_type"] != "conversation", front
