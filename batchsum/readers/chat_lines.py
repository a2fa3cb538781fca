"""Chats and transcripts exported as text, rewritten as the ``Speaker: text`` turns a conversation is.

WhatsApp (``12/03/2024, 18:02 - Ana: ...``, ``[12/03/2024, 09:14:05] Ana: ...``), Otter.ai and
Microsoft Teams transcripts (``Ana Silva  0:03`` over the words), Rev.com's (``Ana Silva (00:00:03):``
over the words), Zoom's saved chat
(``09:15:10 From Ana to Everyone:`` over a tab-indented message, or ``09:15:10 From  Ana : ...``),
DiscordChatExporter's text and a Teams chat's copy (``[3/12/2024 9:01 AM] ana_s`` over the message),
IRC logs (``[09:14] <ana> ...``), WeChat's (``2024/05/03 21:15 张伟: ...``; WeChatMsg's ``2024-05-03 21:15:02 张伟``
over the words, or ``张伟 2024-05-03 21:15``; WechatExporter's ``张伟 (2024-05-03 21:15:02):...``), LINE's
(``21:15<TAB>佐藤<TAB>...`` under a ``2024/05/03(金)`` day line), ``Ana (09:14): ...`` and Markdown's
``**Ana:** ...`` all say who spoke when, each in its own way. Read as prose, their timestamps end up in
summaries and snippets and the speakers in the entities. Rewritten here, the file reads like any transcript.

A format applies to a file only when its turn lines make up most of the file (:func:`render_chat_lines`),
so prose that quotes one such line is left alone; how far apart its messages are says nothing (a family
replies hours later). The export's own notices ("Messages and calls are end-to-end encrypted",
``<Media omitted>``, "This message was deleted", ``[Sticker]``, ``[图片]``, a recalled message's notice,
WeChat's "以下为新消息" rule, Otter's header and footer, LINE's header and day lines, an IRC client's joins,
quits and mode changes) are left out: nobody said them. A format whose messages carry their day gives the first
one's (:attr:`ChatExport.first_day`), so the chat is dated by it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from batchsum.doc_dates import iso_day
from batchsum.language import cjk_chars
from batchsum.text import LIST_ITEM, parse_speaker_line

__all__ = ["ChatExport", "render_chat_lines"]

# A speaker's name: a letter, then up to 40 name characters, in any script: a non-ASCII one may be a
# combining mark (Devanagari's vowel signs) or a middle dot ("レオナルド・ダ・ヴィンチ"); :func:`_speaks` decides.
_NAME = r"[^\W\d_](?:[\w .'’-]|[^\w\x00-\x7f\s：]){0,40}?"
_DATE = r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?"
# A recording's time code: "0:03", "00:01:02", "00:01:02.5" (no time of day, no AM/PM).
_TIMECODE = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"

# Text an export writes in a person's message, not the person (U+200E, the left-to-right mark WhatsApp
# puts before it, is removed first). LINE and WeChat name a message's media in brackets, in the app's
# language ("[Sticker]", "[スタンプ]", "[图片]"), write a notice for a message taken back ("张伟撤回了一条消息",
# "你撤回了一条消息", "佐藤がメッセージの送信を取り消しました", one's own without a name), and draw a rule over the
# messages not yet read ("—— 以下为新消息 ——", "ここから未読メッセージ"): lines on no one's behalf.
_PLACEHOLDER = re.compile(
    r"^(?:<Media omitted>|<attached: [^>]*>|(?:image|video|audio|sticker|GIF|document) omitted"
    r"|This message was deleted\.?|You deleted this message\.?|Missed (?:voice|video) call"
    r"|Reacted to \".*\" with .{1,8}"
    r"|\[(?:Sticker|Stickers|Photo|Photos|Image|Video|File|Voice message|Audio|GIF|Contact|Location|Album|Emoji|Link"
    r"|Animated Sticker|スタンプ|写真|画像|動画|ファイル|ボイスメッセージ|連絡先|位置情報|アルバム|プレゼント"
    r"|图片|圖片|语音|語音|视频|視頻|表情|表情包|动画表情|文件|链接|音乐分享|位置|名片|红包|转账|贴图|貼圖|照片)\]"
    r"|.{0,40}?(?:撤回了一条消息|撤回了一條訊息|recalled a message|unsent a message|unsent a photo"
    r"|メッセージの送信を取り消しました)\.?"
    r"|[-—–─=\s]*(?:以下[为為]新消息|以下[为為]新訊息|ここから未読メッセージ)[-—–─=\s]*)$"
)
# A line with no sender is the export's own: "Messages and calls are end-to-end encrypted", "Ana added
# Ben", "You left": never a message (only the first is left out of a named line's text, see above).

_LRM = re.compile("[\u200e\u200f\u202a-\u202e]")


@dataclass(frozen=True)
class _Format:
    """One export's turn line: ``head`` matches the line that opens a turn (group ``name``; group
    ``text`` when the words are on the same line). ``two_line``: the words follow on the next lines.
    ``min_share``: the share of the file's non-blank lines that must open a turn. ``recorded``: group ``at``
    is a time code into a recording, and those rise (:func:`_rising`)."""

    name: str  # as a user knows it, for the type's reason
    head: re.Pattern[str]
    two_line: bool = False
    min_share: float = 0.5
    layout: Callable[[str], bool] | None = None  # export lines that are neither a turn nor its words
    # Export lines that are its own only where they stand (a header's "Topic: ..."): a new judge for each
    # read of a text, shown its non-blank lines in order (:func:`_layout_of`).
    blocks: Callable[[], Callable[[str], bool]] | None = None
    recorded: bool = False
    # An export's own notice as the raw line shows it, though it names a sender (WhatsApp on iOS).
    notice: re.Pattern[str] | None = None
    # A message is one line (IRC's protocol has no line breaks): a line that opens no turn is the
    # client's own ("--- Log opened ...", "-!- ben has quit", ZNC's "*** Joins: ana", "* ana waves").
    one_line: bool = False
    # The day a message was sent: group ``day`` of ``head`` (read when written year first), or the last
    # line above it that ``day_line`` matches (LINE writes a day once, over its messages).
    day_line: re.Pattern[str] | None = None
    # A message of several lines stands in double quotes (LINE's export): the export's, not the words'.
    quoted: bool = False
    # A placeholder only this export writes, and bare: LINE's newer "スタンプ", "写真", its calls "☎ ...".
    placeholder: re.Pattern[str] | None = None
    # What else tells the export from a hand-written log of the same lines, shown its head lines' matches and
    # the lines read (:func:`_pick`).
    shape: Callable[[list[re.Match[str]], list[str]], bool] | None = None
    # Every line of a message opens with the export's date and time: lines that all do are a chat whatever
    # the number of turns (three people who each said one thing), where a few turn lines in prose are none.
    stamped: bool = False
    # The export's own marks in a message's lines (first, further), rewritten as the words they stand for.
    marks: Callable[[str, list[str]], tuple[str, list[str]]] | None = None


_OTTER_LAYOUT = re.compile(
    r"^(?:SUMMARY KEYWORDS|SPEAKERS|Transcribed by https?://\S+|.{1,80} - Otter\.ai"
    r"|\w{3}, \w{3} \d{1,2}, \d{4} \d{1,2}:\d{2}\s?[AP]M\s*\W\s*\d{1,3}:\d{2}(?::\d{2})?)$"
)


def _otter_layout(line: str) -> bool:
    return bool(_OTTER_LAYOUT.match(line))


# DiscordChatExporter's own lines: its rules and footer ("Exported 40 message(s)" between rules), a
# message's "{Attachments}" and their CDN links, "{Reactions}", and what it writes for a system message
# ("Joined the server."); Teams' notices ("Priya Raman was added to the chat by Jonas Weber.", "Ben left the
# chat."). Its header's keys and the reactions' counts are its own only where they stand (_DiscordBlocks).
_DISCORD_TEAMS_LAYOUT = re.compile(
    r"^(?:={20,}|Exported \d+ messages?(?:\(s\))?"
    r"|\{(?:Attachments|Reactions|Embed|Stickers)\}|https://(?:cdn|media)\.discordapp\.(?:com|net)/\S+"
    r"|Joined the server\.|Pinned a message\.|Started a thread\."
    r"|.{1,80}? (?:(?:was|were) (?:added to|removed from) the chat(?: by .{1,80})?|(?:has )?left the chat"
    r"|added .{1,160} to the chat|removed .{1,160} from the chat|changed the group name to .{1,160})\.?)$"
)


def _discord_teams_layout(line: str) -> bool:
    return bool(_DISCORD_TEAMS_LAYOUT.match(line))


# DiscordChatExporter's text ("[3/12/2024 9:01 AM] ana_s") and a Teams chat's copy: the line over a message.
_DISCORD_TEAMS_HEAD = re.compile(rf"^\[{_DATE},? {_CLOCK}\] (?P<name>{_NAME}):?$")
_DISCORD_RULE = re.compile(r"^={20,}$")
_DISCORD_HEADER_KEY = re.compile(r"^(?:Guild|Channel|Topic|After|Before): ")
# A message's reactions, each an emoji and its count when more than one reacted: "👍 (2) 🎉".
_DISCORD_REACTIONS = re.compile(r"^\S{1,32}(?: \(\d+\))?(?:[ \t]+\S{1,32}(?: \(\d+\))?)*$")


class _DiscordBlocks:
    """DiscordChatExporter's lines that are its own only where they stand: its header's keys ("Guild: ...",
    "Topic: ...", "Before: ...") above the first message or below a rule, the reactions under a message's
    "{Reactions}". In a message they are its words: "Before: 40 minutes per build", "Great (2)"."""

    def __init__(self) -> None:
        self.header = True
        self.reactions = False

    def __call__(self, line: str) -> bool:
        """Whether ``line``, the next non-blank line of the text, is the export's own."""
        if _DISCORD_TEAMS_HEAD.match(line):
            self.header = self.reactions = False
        elif _DISCORD_RULE.match(line):
            self.header = True
        elif line == "{Reactions}":
            self.reactions = True
        else:
            key = self.header and _DISCORD_HEADER_KEY.match(line)
            return bool(key or (self.reactions and _DISCORD_REACTIONS.match(line)))
        return False


# An IRC client's own lines: "--- Log opened ...", irssi's "-!- ben [...] has quit", ZNC's "*** Joins: ana",
# an action "* ana waves". A busy channel's joins and quits are no share of its turns.
_IRC_LAYOUT = re.compile(rf"^(?:\[{_CLOCK}\]\s*|{_CLOCK}\s+)?(?:---|-!-|\*\*\*|\*)\s")


def _irc_layout(line: str) -> bool:
    return bool(_IRC_LAYOUT.match(line))


# LINE's day over its messages: "2024/05/03(金)", "2015/12/25 Fri", "2021.1.1 金曜日", "Fri, 05/03/2024".
_LINE_DAY = re.compile(
    r"^(?:(?P<ymd>\d{4}[./-]\d{1,2}[./-]\d{1,2})[ \t]*(?:\([^()\s]{1,12}\)|[^\s\d:]{1,12})?"
    r"|(?P<weekday>[A-Z][a-z]{2}), (?P<numbers>\d{1,2}/\d{1,2}/\d{4}))$"
)
# LINE's header: "[LINE] 佐藤とのトーク履歴" ("[LINE] Chat history with Sato"), then the day it was saved.
_LINE_HEADER = re.compile(r"^(?:\[LINE\] .+|(?:保存日時|Saved on|Save date|บันทึกวันที่|儲存日期|保存日期)\s*[:：].*)$")
_LINE_PLACEHOLDER = re.compile(
    r"^(?:スタンプ|写真|画像|動画|ファイル|ボイスメッセージ|連絡先|位置情報|アルバム|Sticker|Photo|Video|File"
    r"|Voice message|☎.*)$"
)


def _line_layout(line: str) -> bool:
    return bool(_LINE_HEADER.match(line) or _LINE_DAY.match(line))


# WeChat exporters' own lines: WechatExporter's title ("张伟 - 微信聊天记录") and system messages ("系统消息：..."),
# a quoted message WeChatMsg writes under a reply ("引用:李娜:..."): someone else's words, said before.
_WECHAT_LAYOUT = re.compile(r"^(?:.{1,80} - 微信聊天记录|系统消息[:：].*|引用[:：].*)$")
# A WeChatMsg message's stamp: "2024-05-03 21:15:02 " over its words; a line that opens with one and names
# no one is a notice ("2024-05-03 21:18:00 "张伟" 撤回了一条消息"). Its head line is the stamp to the second, as
# the app keeps it, and a name: a journal's "2024-03-12 07:30 Gym" over a day's entry is written by hand.
_WECHATMSG_HEAD = re.compile(
    rf"^(?P<day>\d{{4}}-\d{{1,2}}-\d{{1,2}}) (?P<at>\d{{1,2}}:\d{{2}}:\d{{2}}) (?P<name>{_NAME})$"
)
_WECHATMSG_STAMP = re.compile(rf"^\d{{4}}-\d{{1,2}}-\d{{1,2}} {_CLOCK}(?:\s|$)")


def _wechat_layout(line: str) -> bool:
    return bool(_WECHAT_LAYOUT.match(line))


_SECONDS = re.compile(r"\d{1,2}:\d{2}:\d{2}")


def _wechat_shape(heads: list[re.Match[str]], lines: list[str]) -> bool:
    """Whether "张伟 2024-05-03 21:15" head lines are a WeChat export's, not a journal's "Gym 2024-03-12 07:30"
    headings over its entries: the stamps are to the second, as only an app keeps them, or most of the letters
    are Chinese or Japanese, the script of WeChat's chats (a journal's hand-written minutes are neither)."""
    if all(_SECONDS.fullmatch(m.group("at")) for m in heads):
        return True
    letters = sum(c.isalpha() for ln in lines for c in ln)
    return cjk_chars("".join(lines)) * 2 >= letters


def _wechatmsg_layout(line: str) -> bool:
    return _wechat_layout(line) or (bool(_WECHATMSG_STAMP.match(line)) and not _WECHATMSG_HEAD.match(line))


# WhatsApp's own words in a message: a media file's line ("IMG-20240312-WA0003.jpg (file attached)", as
# "<Media omitted>" is when media is left out) and a view-once message, which the export writes as "null".
_WHATSAPP_PLACEHOLDER = re.compile(r"^(?:null|\S[^\n]{0,200}?\.[A-Za-z0-9]{2,5} \(file attached\))$")  # a file's name
# The mark an edited message ends with; and a poll: "POLL:" over its question, then "OPTION: Pizza (2 votes)".
_WHATSAPP_EDITED = re.compile(r"\s*<This message was edited>$")
_WHATSAPP_OPTION = re.compile(r"^OPTION: (?=\S)")


def _whatsapp_marks(first: str, more: list[str]) -> tuple[str, list[str]]:
    """A WhatsApp message without its edit mark, and a poll as its question, then its options ("Refund or
    credit? The poll's options: Refund (1 vote), Credit (2 votes)."): the export's "POLL" and "OPTION"
    labels are no one's words (as text they became entities)."""
    first = _WHATSAPP_EDITED.sub("", first)
    more = [_WHATSAPP_EDITED.sub("", ln) for ln in more]
    options = [_WHATSAPP_OPTION.sub("", ln) for ln in more[1:] if _WHATSAPP_OPTION.match(ln)]
    if first == "POLL:" and more and options:
        return f"{more[0]} The poll's options: {', '.join(options)}.", []
    return first, more


_FORMATS = (
    # WhatsApp, Android and US: "12/03/2024, 18:02 - Ana Silva: text" ("3/12/24, 9:14 AM - ...").
    _Format(
        "WhatsApp export",
        re.compile(rf"^{_DATE},? {_CLOCK} - (?:(?P<name>{_NAME}): )?(?P<text>.*)$"),
        placeholder=_WHATSAPP_PLACEHOLDER,
        stamped=True,
        marks=_whatsapp_marks,
    ),
    # WhatsApp, iOS: "[12/03/2024, 09:14:05] Ana Silva: text". Its notices name the chat as their sender and
    # open with a left-to-right mark ("[...] Harbor Team: \u200eAna Silva added Ben Okafor"), as its
    # placeholders do ("\u200eimage omitted"): no one's words, and the chat is no participant.
    _Format(
        "WhatsApp export (iOS)",
        re.compile(rf"^\[{_DATE},? {_CLOCK}\] (?:(?P<name>{_NAME}): )?(?P<text>.*)$"),
        notice=re.compile(r"^\u200e?\[[^\]]{1,40}\] [^:\u200e]{1,80}: \u200e"),
        placeholder=_WHATSAPP_PLACEHOLDER,
        stamped=True,
        marks=_whatsapp_marks,
    ),
    # Zoom's saved chat, older: "09:15:10\t From  Ben Okafor : text" (also "to Everyone").
    _Format(
        "Zoom chat",
        re.compile(rf"^{_CLOCK}\s+From\s+(?P<name>{_NAME})(?:\s+to\s+[^:]{{1,60}}?)?\s*:\s(?P<text>.*)$"),
    ),
    # Zoom's saved chat: "09:15:10 From Ben Okafor to Everyone:" over a tab-indented message.
    _Format(
        "Zoom chat",
        re.compile(rf"^{_CLOCK}\s+From\s+(?P<name>{_NAME})\s+to\s+.{{1,60}}:$"),
        two_line=True,
        min_share=0.3,
    ),
    # Otter.ai and Teams (as text): "Ana Silva  0:03" (or "Speaker 1  12:41") over the words.
    _Format(
        "Otter.ai or Teams transcript",
        re.compile(rf"^(?P<name>{_NAME})[ \t]{{2,}}(?P<at>\d{{1,2}}:\d{{2}}(?::\d{{2}})?)$"),
        two_line=True,
        min_share=0.25,
        layout=_otter_layout,
        recorded=True,
    ),
    # Rev.com: "Speaker 1 (00:00:02):" (or "Jo Park [01:02]:") alone over the words, a blank line between
    # turns: the label the inline "Ana (09:14): text" line opens with, on a line of its own.
    _Format(
        "Rev transcript",
        re.compile(rf"^(?P<name>{_NAME})[ \t]+[(\[](?P<at>{_TIMECODE})[)\]]:?$"),
        two_line=True,
        min_share=0.25,
        recorded=True,
    ),
    # DiscordChatExporter's plain text ("[3/12/2024 9:01 AM] ana_s") and a Teams chat copied out of the app
    # ("[12/03/2024 09:01] Priya Raman", or "Priya Raman:"), over the message.
    _Format(
        "Discord or Teams chat",
        _DISCORD_TEAMS_HEAD,
        two_line=True,
        min_share=0.25,
        layout=_discord_teams_layout,
        blocks=_DiscordBlocks,
    ),
    # IRC: "[09:14] <ana> text", "09:14 <ana> text"; "* ana waves" is an action.
    _Format(
        "IRC log",
        re.compile(rf"^(?:\[{_CLOCK}\]\s*|{_CLOCK}\s+)?<[@+%~&]?(?P<name>[^\s>]{{1,32}})>\s(?P<text>.*)$"),
        layout=_irc_layout,
        one_line=True,
    ),
    # WeChat, a message a line: "2024/05/03 21:15 张伟: text" (or "张伟：text"); a line that names no sender
    # is WeChat's notice ("2024/05/03 21:18 "张伟" 撤回了一条消息"). The day as WeChat writes it, year first
    # between slashes, is what tells its line from a log's ISO "2024-03-12 07:30 Gym: ran 5k": nothing else
    # in the line does, and how far apart the messages are does not either (a family replies hours later).
    _Format(
        "WeChat chat",
        re.compile(
            rf"^(?P<day>\d{{4}}/\d{{1,2}}/\d{{1,2}}) (?P<at>{_CLOCK}) (?:(?P<name>{_NAME})[:：] ?)?(?P<text>.*)$"
        ),
        layout=_wechat_layout,
    ),
    # WeChatMsg's text export: "2024-05-03 21:15:02 张伟" over the words.
    _Format(
        "WeChat export (WeChatMsg)",
        _WECHATMSG_HEAD,
        two_line=True,
        min_share=0.25,
        layout=_wechatmsg_layout,
    ),
    # WeChat exports that name the sender first: "张伟 2024-05-03 21:15" over the words.
    _Format(
        "WeChat export",
        re.compile(rf"^(?P<name>{_NAME}) (?P<day>\d{{4}}[-/]\d{{1,2}}[-/]\d{{1,2}}) (?P<at>{_CLOCK})$"),
        two_line=True,
        min_share=0.25,
        layout=_wechat_layout,
        shape=_wechat_shape,
    ),
    # WechatExporter's text: "张伟 (2024-05-03 21:15:02):text", the stamp to the second as it writes it; a log's
    # "Gym (2024-03-12 07:30):ran 5k" is written by hand, to the minute.
    _Format(
        "WeChat export (WechatExporter)",
        re.compile(rf"^(?P<name>{_NAME}) \((?P<day>{_DATE}) (?P<at>\d{{1,2}}:\d{{2}}:\d{{2}})\):(?P<text>.*)$"),
        layout=_wechat_layout,
    ),
    # LINE: "21:15\t佐藤\ttext" ("午後9:15", "9:15 PM") under its day's line; a line with no sender is LINE's
    # notice ("21:20\t佐藤がメッセージの送信を取り消しました", "Ana joined the group").
    _Format(
        "LINE chat",
        re.compile(rf"^(?:午前|午後)?{_CLOCK}\t(?:(?P<name>[^\t]{{1,60}})\t)?(?P<text>.*)$"),
        layout=_line_layout,
        day_line=_LINE_DAY,
        quoted=True,
        placeholder=_LINE_PLACEHOLDER,
    ),
    # "Ana (09:14): text".
    _Format("timed speaker lines", re.compile(rf"^(?P<name>{_NAME}) \({_CLOCK}\): (?P<text>.*)$")),
    # Markdown notes: "**Ana:** text" or "**Ana**: text".
    _Format("bold speaker names", re.compile(rf"^\*\*(?P<name>{_NAME})(?::\*\*|\*\*:) (?P<text>.*)$"), min_share=0.25),
)


def _speaks(name: str | None) -> bool:
    """Whether a label names someone speaking, as every conversation reader decides it
    (:func:`batchsum.text.parse_speaker_line`): "Attendees", "Note" or "Agenda" label the page."""
    return bool(name) and parse_speaker_line(f"{name}: -")[0] is not None


def _layout_of(fmt: _Format) -> Callable[[str], bool]:
    """Whether a line is ``fmt``'s layout, for one read of a text whose non-blank lines it is shown in order."""
    blocks = fmt.blocks() if fmt.blocks is not None else None

    def layout(line: str) -> bool:
        in_block = blocks is not None and blocks(line)  # shown every line: it follows where it stands
        return in_block or (fmt.layout is not None and fmt.layout(line))

    return layout


def _lines(text: str) -> list[str]:
    return [_LRM.sub("", ln).rstrip() for ln in text.split("\n")]


# Read to recognise a format: the first 400 non-blank lines, within the first 64 KB, so a long book is
# neither scanned nor split into lines (a 200 MB text would have held a second copy as lines).
_SAMPLE_LINES = 400
_SAMPLE_CHARS = 65_536


def _pick(lines: list[str]) -> _Format | None:
    """The format whose turn lines, each with a speaker, make up at least its share of the first
    non-blank lines (at least 3), from at least two speakers one of whom speaks again (or, in an export that
    stamps every line, all lines so stamped): a list of
    "**Role:** ...", "**Birthday:** ..." properties, a food log of "Breakfast (08:30): ..." or a
    journal of "2024-03-12 07:30 - ..." lines is no conversation. LINE's messages stand under its day lines.
    How far apart the messages are says nothing: a family's chat over a day has replies hours apart."""
    filled = []
    for ln in lines:
        if ln.strip():
            filled.append(ln)
            if len(filled) == _SAMPLE_LINES:
                break
    if len(filled) < 3:
        return None
    for fmt in _FORMATS:
        layout = _layout_of(fmt)
        lines_read = [ln.strip() for ln in filled if not layout(ln.strip())]
        heads = [m for ln in lines_read if (m := fmt.head.match(ln)) and _speaks(m.group("name"))]
        names = [m.group("name") for m in heads]
        speakers = Counter(" ".join(n.split()).lower() for n in names)
        if (
            len(names) >= 3
            and len(names) >= fmt.min_share * len(lines_read)
            and len(speakers) >= 2
            and (max(speakers.values()) >= 2 or (fmt.stamped and all(fmt.head.match(ln) for ln in lines_read)))
            and (not fmt.recorded or _rising([m.group("at") for m in heads]))
            and (fmt.shape is None or fmt.shape(heads, lines_read))
            # LINE writes each day over its messages: a table of "09:00<TAB>Email<TAB>..." rows has no such line
            and (fmt.day_line is None or any(fmt.day_line.match(ln.strip()) for ln in filled))
        ):
            return fmt
    return None


def _seconds(code: str) -> float:
    """A time code's seconds into the recording: "1:02" is 62, "1:02:03" 3723."""
    seconds = 0.0
    for part in code.replace(",", ".").split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def _rising(codes: list[str]) -> bool:
    """Whether time codes run forward, as a recording's do: at most one step in ten goes back (a transcript
    of two recordings starts again at zero once). A log of "Breakfast (08:30):" over days goes back daily."""
    times = [_seconds(c) for c in codes]
    back = sum(1 for a, b in itertools.pairwise(times) if b < a)
    return back * 10 <= len(times) - 1


@dataclass(frozen=True)
class ChatExport:
    """A chat or transcript export rewritten as turns: ``text``, the export's ``format`` and the ISO day its
    first message was sent (``first_day``), when the format says it (WhatsApp's is read by
    :func:`batchsum.doc_dates.whatsapp_day`, which settles its day-month order)."""

    text: str
    format: str
    first_day: str | None = None


def render_chat_lines(text: str) -> ChatExport | None:
    """``text`` as ``Speaker: text`` turns, one per message, when it is a chat or transcript export
    of a known format; None when it is not (then it is read as it is).

    A message's further lines go on with it; a Markdown heading stands on its own. Text before the
    first turn stays, unattributed, except in the formats whose header is the export's own (Otter's
    keywords and speaker list, Zoom's and Teams' titles and times). An export's notices and layout
    lines are left out, and so is a bold line such as ``**Attendees:** ...`` that opens a Markdown
    page's notes: it names who came, it is not a turn.
    """
    sample = _lines(text[:_SAMPLE_CHARS])
    fmt = _pick(sample)
    if fmt is None:
        return None
    turns: list[list[str]] = []  # [speaker, first line, further lines...]; speaker "" for unattributed text
    layout = _layout_of(fmt)
    for raw in text.split("\n"):
        line = _LRM.sub("", raw).strip()
        if not line or layout(line):
            continue
        m = fmt.head.match(line)
        if m is None and fmt.one_line:
            continue
        if m is None:
            if not turns:
                if not fmt.two_line:  # an export's own header (Otter's keywords, Teams' title) goes
                    turns.append(["", line])
            elif _STANDS_ALONE.match(line):
                turns.append(["", line])  # a heading, or a bold label over a list: not the speaker's words
            else:
                turns[-1].append(line)
            continue
        name = " ".join(m.group("name").split()) if m.group("name") else ""
        said = (m.groupdict().get("text") or "").strip()
        if not name or (fmt.notice is not None and fmt.notice.match(raw)):
            continue  # the export's notice ("Messages and calls are end-to-end encrypted")
        if not _speaks(name):
            turns.append(["", line])  # "**Attendees:** ...", "**Note:** ...": kept, as nobody's turn
            continue
        turns.append([name, said])
    if fmt.one_line:
        _address_nicks(turns)
    out: list[str] = []
    for name, first, *more in turns:
        if fmt.quoted:
            first, more = _unquoted(first, more)
        if fmt.marks is not None:
            first, more = fmt.marks(first, more)
        body = _message(first, more, fmt.placeholder)
        if body:
            out.append(f"{name}: {body}" if name else body)
    return ChatExport("\n\n".join(out), fmt.name, _first_day(fmt, sample))


# A line that is no part of the message above it: a heading, a list item, a bold label alone ("**Decisions:**").
_STANDS_ALONE = re.compile(r"^(?:#{1,6}\s|\*\*[^*]+\*\*:?$|[^*\w\s]*\*\*[^*]+:\*\*$)")


def _message(first: str, more: list[str], placeholder: re.Pattern[str] | None = None) -> str:
    """A message's lines: prose runs on, a list keeps an item a line (its own line in the turn); a line that
    is a placeholder (:data:`_PLACEHOLDER`, or the export's own ``placeholder``) is nobody's words."""

    def said(line: str) -> bool:
        return not _PLACEHOLDER.match(line) and (placeholder is None or not placeholder.match(line))

    parts = [first] if first and said(first) else []
    for line in more:
        if LIST_ITEM.match(line):
            parts.append("\n" + line)
        elif said(line):
            parts.append((" " if parts else "") + line)
    return "".join(parts).strip()


def _unquoted(first: str, more: list[str]) -> tuple[str, list[str]]:
    """A message of several lines without the double quotes LINE's export puts around it."""
    last = more[-1] if more else first
    if not more or not first.startswith('"') or not last.endswith('"'):
        return first, more
    return first[1:], [*more[:-1], last[:-1]]


def _first_day(fmt: _Format, lines: list[str]) -> str | None:
    """The ISO day of the first message of an export in ``fmt``: its turn line's ``day``, else the day of the
    last ``day_line`` above it; None when the format writes no day (or not year first, "03/05/2024")."""
    day: str | None = None
    for raw in lines:
        line = raw.strip()
        if fmt.day_line is not None and (d := fmt.day_line.match(line)):
            day = _line_day(d)
            continue
        m = fmt.head.match(line)
        if m is not None and _speaks(m.group("name")):
            written = m.groupdict().get("day")
            return _year_first(written) if written else day
    return None


_YEAR_FIRST = re.compile(r"(\d{4})[./-](\d{1,2})[./-](\d{1,2})")


def _year_first(date: str) -> str | None:
    """ "2024/05/03", "2024-05-03", "2024.5.3" as an ISO day; None for another order."""
    m = _YEAR_FIRST.fullmatch(date)
    return iso_day(*map(int, m.groups())) if m else None


def _line_day(m: re.Match[str]) -> str | None:
    """The ISO day of a LINE day line: written year first, or with its weekday ("Fri, 05/03/2024"), which
    tells a month-first date from a day-first one (the phone's locale writes either)."""
    if m.group("ymd"):
        return _year_first(m.group("ymd"))
    a, b, year = map(int, m.group("numbers").split("/"))
    fits = {d for d in (iso_day(year, a, b), iso_day(year, b, a)) if d and _weekday(d) == m.group("weekday")}
    return fits.pop() if len(fits) == 1 else None


def _weekday(iso: str) -> str:
    return ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[dt.date.fromisoformat(iso).weekday()]


# The nicks an IRC message opens with, each followed by a colon or comma ("ana: I'll ...", "ana, ben: ...").
_NICKS_ADDRESSED = re.compile(r"^((?:[^\s:,]{1,32}[:,][ \t]*)+)(?=\S)")


def _address_nicks(turns: list[list[str]]) -> None:
    """IRC messages that open with the nicks of the channel's speakers ("ana: I'll review ...") as ones
    addressing them, "ana, I'll review ...", as a Slack message's opening mentions read: the nick and its
    colon had read as a speaker's label inside the turn, and the sentence lost its subject."""
    nicks = {name.casefold() for name, *_ in turns if name}
    for turn in turns:
        m = _NICKS_ADDRESSED.match(turn[1]) if turn[0] else None
        who = re.split(r"[:,][ \t]*", m.group(1))[:-1] if m else []
        if m and who and all(w.casefold() in nicks for w in who):
            turn[1] = f"{', '.join(who)}, {turn[1][m.end() :]}"
