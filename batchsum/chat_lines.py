"""Chats and transcripts exported as text, rewritten as the ``Speaker: text`` turns a conversation is.

WhatsApp (``12/03/2024, 18:02 - Ana: ...``, ``[12/03/2024, 09:14:05] Ana: ...``), Otter.ai and
Microsoft Teams transcripts (``Ana Silva  0:03`` over the words), Rev.com's (``Ana Silva (00:00:03):``
over the words), Zoom's saved chat
(``09:15:10 From Ana to Everyone:`` over a tab-indented message, or ``09:15:10 From  Ana : ...``),
DiscordChatExporter's text and a Teams chat's copy (``[3/12/2024 9:01 AM] ana_s`` over the message),
IRC logs (``[09:14] <ana> ...``), ``Ana (09:14): ...`` and Markdown's ``**Ana:** ...`` all say who
spoke when, each in its own way. Read as prose, their timestamps end up in summaries and snippets and
the speakers in the entities. Rewritten here, the file reads like any transcript.

A format applies to a file only when its turn lines make up most of the file (:func:`render_chat_lines`),
so prose that quotes one such line is left alone. The export's own notices ("Messages and calls are
end-to-end encrypted", ``<Media omitted>``, "This message was deleted", Otter's header and footer,
an IRC client's joins, quits and mode changes) are left out: nobody said them.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

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
# puts before it, is removed first).
_PLACEHOLDER = re.compile(
    r"^(?:<Media omitted>|<attached: [^>]*>|(?:image|video|audio|sticker|GIF|document) omitted"
    r"|This message was deleted\.?|You deleted this message\.?|Missed (?:voice|video) call"
    r"|Reacted to \".*\" with .{1,8})$"
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
    recorded: bool = False
    # An export's own notice as the raw line shows it, though it names a sender (WhatsApp on iOS).
    notice: re.Pattern[str] | None = None
    # A message is one line (IRC's protocol has no line breaks): a line that opens no turn is the
    # client's own ("--- Log opened ...", "-!- ben has quit", ZNC's "*** Joins: ana", "* ana waves").
    one_line: bool = False


_OTTER_LAYOUT = re.compile(
    r"^(?:SUMMARY KEYWORDS|SPEAKERS|Transcribed by https?://\S+|.{1,80} - Otter\.ai"
    r"|\w{3}, \w{3} \d{1,2}, \d{4} \d{1,2}:\d{2}\s?[AP]M\s*\W\s*\d{1,3}:\d{2}(?::\d{2})?)$"
)


def _otter_layout(line: str) -> bool:
    return bool(_OTTER_LAYOUT.match(line))


# DiscordChatExporter's own lines: its header and footer ("Guild: OSS Community", "Exported 40 message(s)"
# between rules), a message's "{Attachments}" and their CDN links, "{Reactions}" and their counts ("👍 (2)"),
# and what it writes for a system message ("Joined the server."); Teams' notices ("Priya Raman was added to
# the chat by Jonas Weber.", "Ben left the chat.").
_DISCORD_TEAMS_LAYOUT = re.compile(
    r"^(?:={20,}|(?:Guild|Channel|Topic|After|Before): .*|Exported \d+ messages?(?:\(s\))?"
    r"|\{(?:Attachments|Reactions|Embed|Stickers)\}|https://(?:cdn|media)\.discordapp\.(?:com|net)/\S+"
    r"|\S{1,12} \(\d+\)|Joined the server\.|Pinned a message\.|Started a thread\."
    r"|.{1,80}? (?:(?:was|were) (?:added to|removed from) the chat(?: by .{1,80})?|(?:has )?left the chat"
    r"|added .{1,160} to the chat|removed .{1,160} from the chat|changed the group name to .{1,160})\.?)$"
)


def _discord_teams_layout(line: str) -> bool:
    return bool(_DISCORD_TEAMS_LAYOUT.match(line))


# An IRC client's own lines: "--- Log opened ...", irssi's "-!- ben [...] has quit", ZNC's "*** Joins: ana",
# an action "* ana waves". A busy channel's joins and quits are no share of its turns.
_IRC_LAYOUT = re.compile(rf"^(?:\[{_CLOCK}\]\s*|{_CLOCK}\s+)?(?:---|-!-|\*\*\*|\*)\s")


def _irc_layout(line: str) -> bool:
    return bool(_IRC_LAYOUT.match(line))


_FORMATS = (
    # WhatsApp, Android and US: "12/03/2024, 18:02 - Ana Silva: text" ("3/12/24, 9:14 AM - ...").
    _Format("WhatsApp export", re.compile(rf"^{_DATE},? {_CLOCK} - (?:(?P<name>{_NAME}): )?(?P<text>.*)$")),
    # WhatsApp, iOS: "[12/03/2024, 09:14:05] Ana Silva: text". Its notices name the chat as their sender and
    # open with a left-to-right mark ("[...] Harbor Team: \u200eAna Silva added Ben Okafor"), as its
    # placeholders do ("\u200eimage omitted"): no one's words, and the chat is no participant.
    _Format(
        "WhatsApp export (iOS)",
        re.compile(rf"^\[{_DATE},? {_CLOCK}\] (?:(?P<name>{_NAME}): )?(?P<text>.*)$"),
        notice=re.compile(r"^\u200e?\[[^\]]{1,40}\] [^:\u200e]{1,80}: \u200e"),
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
        re.compile(rf"^\[{_DATE},? {_CLOCK}\] (?P<name>{_NAME}):?$"),
        two_line=True,
        min_share=0.25,
        layout=_discord_teams_layout,
    ),
    # IRC: "[09:14] <ana> text", "09:14 <ana> text"; "* ana waves" is an action.
    _Format(
        "IRC log",
        re.compile(rf"^(?:\[{_CLOCK}\]\s*|{_CLOCK}\s+)?<[@+%~&]?(?P<name>[^\s>]{{1,32}})>\s(?P<text>.*)$"),
        layout=_irc_layout,
        one_line=True,
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


def _lines(text: str) -> list[str]:
    return [_LRM.sub("", ln).rstrip() for ln in text.split("\n")]


# Read to recognise a format: the first 400 non-blank lines, within the first 64 KB, so a long book is
# neither scanned nor split into lines (a 200 MB text would have held a second copy as lines).
_SAMPLE_LINES = 400
_SAMPLE_CHARS = 65_536


def _pick(lines: list[str]) -> _Format | None:
    """The format whose turn lines, each with a speaker, make up at least its share of the first
    non-blank lines (at least 3), from at least two speakers one of whom speaks again: a list of
    "**Role:** ...", "**Birthday:** ..." properties, a food log of "Breakfast (08:30): ..." or a
    journal of "2024-03-12 07:30 - ..." lines is no conversation."""
    filled = []
    for ln in lines:
        if ln.strip():
            filled.append(ln)
            if len(filled) == _SAMPLE_LINES:
                break
    if len(filled) < 3:
        return None
    for fmt in _FORMATS:
        lines_read = [ln.strip() for ln in filled if fmt.layout is None or not fmt.layout(ln.strip())]
        heads = [m for ln in lines_read if (m := fmt.head.match(ln)) and _speaks(m.group("name"))]
        names = [m.group("name") for m in heads]
        speakers = Counter(" ".join(n.split()).lower() for n in names)
        if (
            len(names) >= 3
            and len(names) >= fmt.min_share * len(lines_read)
            and len(speakers) >= 2
            and max(speakers.values()) >= 2
            and (not fmt.recorded or _rising([m.group("at") for m in heads]))
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
    """A chat or transcript export rewritten as turns: ``text`` and the export's ``format``."""

    text: str
    format: str


def render_chat_lines(text: str) -> ChatExport | None:
    """``text`` as ``Speaker: text`` turns, one per message, when it is a chat or transcript export
    of a known format; None when it is not (then it is read as it is).

    A message's further lines go on with it; a Markdown heading stands on its own. Text before the
    first turn stays, unattributed, except in the formats whose header is the export's own (Otter's
    keywords and speaker list, Zoom's and Teams' titles and times). An export's notices and layout
    lines are left out, and so is a bold line such as ``**Attendees:** ...`` that opens a Markdown
    page's notes: it names who came, it is not a turn.
    """
    fmt = _pick(_lines(text[:_SAMPLE_CHARS]))
    if fmt is None:
        return None
    turns: list[list[str]] = []  # [speaker, first line, further lines...]; speaker "" for unattributed text
    for raw in text.split("\n"):
        line = _LRM.sub("", raw).strip()
        if not line or (fmt.layout is not None and fmt.layout(line)):
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
        turns.append([name, "" if _PLACEHOLDER.match(said) else said])
    if fmt.one_line:
        _address_nicks(turns)
    out: list[str] = []
    for name, first, *more in turns:
        body = _message(first, more)
        if body:
            out.append(f"{name}: {body}" if name else body)
    return ChatExport("\n\n".join(out), fmt.name)


# A line that is no part of the message above it: a heading, a list item, a bold label alone ("**Decisions:**").
_STANDS_ALONE = re.compile(r"^(?:#{1,6}\s|\*\*[^*]+\*\*:?$|[^*\w\s]*\*\*[^*]+:\*\*$)")


def _message(first: str, more: list[str]) -> str:
    """A message's lines: prose runs on, a list keeps an item a line (its own line in the turn)."""
    parts = [first] if first else []
    for line in more:
        if LIST_ITEM.match(line):
            parts.append("\n" + line)
        elif not _PLACEHOLDER.match(line):
            parts.append((" " if parts else "") + line)
    return "".join(parts).strip()


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
