"""Chat app exports (Slack, Telegram, Discord, ChatGPT, claude.ai) rendered as ``Name: text`` turns.

Each export is told by its shape, not its file name: :func:`render_export` takes the parsed JSON of a
``.json`` file and returns its turns, or None when it has the shape of none of them (formats.py then
reads it as an OpenAI chat). A file that has an export's shape but not its content (a Slack message
whose ``text`` is a number) is a ValueError naming the export; a Slack export's metadata files
(``users.json``, ``channels.json``, ...) and the files beside a claude.ai or ChatGPT ``conversations.json``
(:mod:`batchsum.readers.export_side_files`) are an :class:`ExportMetadata`.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from batchsum import jsonio
from batchsum.readers.chat_marks import without_codes
from batchsum.readers.claude_export import is_claude_conversation, render_claude
from batchsum.readers.export_side_files import side_file

__all__ = ["SLACK_METADATA", "ExportMetadata", "ExportText", "render_export"]

# The files a Slack export holds beside its channel folders: who, which channels, which apps; no messages.
SLACK_METADATA = frozenset(
    {"users.json", "channels.json", "integration_logs.json", "dms.json", "groups.json", "mpims.json", "canvases.json"}
)
# Slack messages that are no one's words: joins, leaves, bots, a channel's topic or purpose changing.
_SLACK_LEFT_OUT = frozenset(
    {
        "channel_join", "channel_leave", "group_join", "group_leave", "channel_topic", "channel_purpose",
        "channel_name", "channel_archive", "channel_unarchive", "group_topic", "group_purpose", "group_name",
        "group_archive", "group_unarchive", "bot_message", "bot_add", "bot_remove", "pinned_item",
        "unpinned_item", "tombstone", "reminder_add",
    }
)  # fmt: skip
# DiscordChatExporter's system messages ("Joined the server.", "pinned a message."), not anyone's words.
_DISCORD_SYSTEM = frozenset(
    {
        "RecipientAdd", "RecipientRemove", "Call", "ChannelNameChange", "ChannelIconChange",
        "ChannelPinnedMessage", "GuildMemberJoin", "ThreadCreated", "ChannelFollowAdd",
    }
)  # fmt: skip
# Roles of a ChatGPT conversation that are not the conversation: instructions and tool output.
_CHATGPT_LEFT_OUT = frozenset({"system", "developer", "tool"})
_CHATGPT_TEXT = frozenset({"text", "multimodal_text", "code"})
_SLACK_MARKUP = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")
# Mentions a message opens with ("<@U2> we're going with ...", "<@U2>, <@U3>: ..."): whom it addresses.
_LEADING_MENTIONS = re.compile(r"\A[ \t]*((?:<@[^<>\s]+>[ \t]*[,:]?[ \t]*)+)")
USERS_JSON_LEVELS = 3  # folders above a Slack day file searched for the export's users.json


class ExportMetadata(ValueError):
    """A file of a chat export that holds no conversation (a Slack export's ``users.json``)."""


class ExportText(str):
    """An export's turns, as the text they are, with the day its first message was sent: ``first_day``
    (ISO), None when its messages carry no date. A str, so a reader that only wants the text takes it as
    one (formats.render_chat hands it on as it is)."""

    first_day: str | None = None


def _dated(text: str, days: Iterable[str | None]) -> ExportText:
    """``text`` with the first of ``days`` (the messages' days, in the export's order) that is a real day."""
    out = ExportText(text)
    out.first_day = next((d for d in map(_iso_day, days) if d), None)
    return out


def _iso_day(value: Any) -> str | None:
    """The day an export's timestamp names: an ISO string ("2024-03-12T09:14:05+01:00": the day as written,
    where the writer was) or seconds since 1970 (Slack's "1710236040.000100", a UTC day)."""
    if isinstance(value, str) and _ISO_DAY.match(value):
        try:
            return dt.date.fromisoformat(value[:10]).isoformat()
        except ValueError:
            return None
    try:
        seconds = float(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else None
    except ValueError:
        return None
    if seconds is None or not 0 < seconds < 32_503_680_000:  # before the year 3000
        return None
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).date().isoformat()


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?![\d])")


def _turn(name: str, text: str) -> str:
    return f"{name}: {text.strip()}"


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def render_export(data: Any, path: Path) -> str | None:
    """``data`` (the parsed JSON of ``path``) as ``Name: text`` turns, one per message, when it has the
    shape of a Slack day file, a Telegram Desktop or DiscordChatExporter export or a ChatGPT or claude.ai
    ``conversations.json``; None when it has none of them. Raises :class:`ExportMetadata` for a Slack
    export's metadata files and a claude.ai or ChatGPT export's side files
    (:func:`~batchsum.readers.export_side_files.side_file`), and ValueError naming the export for one that is
    broken."""
    if (why := side_file(data, path)) is not None:
        raise ExportMetadata(why)
    if isinstance(data, list):
        if path.name.lower() in SLACK_METADATA and _is_slack_metadata(data):
            raise ExportMetadata(f"Slack export metadata ({path.name}), not a conversation: skipped")
        dicts = [d for d in data if isinstance(d, dict)]
        if dicts and len(dicts) == len(data):
            if all("mapping" in d for d in dicts):
                return _render_chatgpt(dicts)
            if all("chat_messages" in d for d in dicts):
                return render_claude(dicts)
            if all("ts" in d for d in dicts) and any(d.get("type") == "message" or "user" in d for d in dicts):
                bots = _export_users(path)[1]
                return _dated(_render_slack(dicts, path), (d["ts"] for d in dicts if not _slack_left_out(d, bots)))
        return None
    if not isinstance(data, dict):
        return None
    if path.name.lower() in SLACK_METADATA and isinstance(data.get("logs"), list):
        raise ExportMetadata(f"Slack export metadata ({path.name}), not a conversation: skipped")
    if "mapping" in data and "title" in data:
        return _render_chatgpt([data])
    if is_claude_conversation(data):
        return render_claude([data])
    chats = data.get("chats")
    if isinstance(chats, dict) and isinstance(chats.get("list"), list):  # Telegram's export of every chat
        # Its chats one after another, each from its own first day: the export begins at the earliest.
        firsts = [_dated("", _telegram_days(c["messages"])).first_day for c in chats["list"] if _has_messages(c)]
        return _dated(_render_telegram_chats(chats["list"]), sorted(d for d in firsts if d)[:1])
    messages = data.get("messages")
    if not isinstance(messages, list):
        return None
    dicts = [m for m in messages if isinstance(m, dict)]
    if any("role" in m for m in dicts):
        return None  # OpenAI chat form
    if any(isinstance(m.get("author"), dict) for m in dicts):
        return _dated(
            _render_discord(messages, _discord_channels(data)),
            (m.get("timestamp") for m in dicts if not _discord_left_out(m)),
        )
    if any("from_id" in m or m.get("type") in ("message", "service") for m in dicts):
        return _dated(_render_telegram(messages), _telegram_days(messages))
    return None


# --- Slack -------------------------------------------------------------------------------------------


def _is_slack_metadata(data: list[Any]) -> bool:
    """A list of records with ids (users, channels, DMs, canvases), as a Slack export's metadata files are."""
    return all(isinstance(d, dict) and "id" in d for d in data)


def _slack_user_name(user: dict[str, Any]) -> str | None:
    """A Slack user's name as people see it: the real name, else the display name, else the handle."""
    profile = _obj(user.get("profile"))
    for value in (user.get("real_name"), profile.get("real_name"), profile.get("display_name"), user.get("name")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


# Slack's own bot, the user id of its reminders and notices ("Reminder: submit your timesheet.").
_SLACKBOT = "USLACKBOT"


@functools.lru_cache(maxsize=8)
def _users_json(fspath: str, _mtime_ns: int, _size: int) -> tuple[dict[str, str], frozenset[str]]:
    """User id → name from an export's ``users.json`` (read once per version of the file), and the ids
    of its bots (``is_bot``); empty when it cannot be read or is not a list of users."""
    try:
        data = jsonio.loads(Path(fspath).read_bytes())
    except (OSError, ValueError):
        return {}, frozenset()
    if not isinstance(data, list):
        return {}, frozenset()
    names: dict[str, str] = {}
    bots: set[str] = set()
    for user in data:
        if isinstance(user, dict) and isinstance(user.get("id"), str):
            name = _slack_user_name(user)
            if name:
                names[user["id"]] = name
            if user.get("is_bot") is True:
                bots.add(user["id"])
    return names, frozenset(bots)


def _export_users(path: Path) -> tuple[dict[str, str], frozenset[str]]:
    """The user names and bots of the Slack export ``path`` (a day file) is in: its root's ``users.json``,
    found in one of the folders above the day file."""
    for folder in list(path.parents)[:USERS_JSON_LEVELS]:
        users = folder / "users.json"
        try:
            st = os.stat(users)
        except OSError:
            continue
        return _users_json(os.fspath(users), st.st_mtime_ns, st.st_size)
    return {}, frozenset()


@functools.lru_cache(maxsize=8)
def _channels_json(fspath: str, _mtime_ns: int, _size: int) -> dict[str, str]:
    """Channel id → name from an export's ``channels.json`` or ``groups.json`` (read once per version)."""
    try:
        data = jsonio.loads(Path(fspath).read_bytes())
    except (OSError, ValueError):
        return {}
    records = [c for c in data if isinstance(c, dict)] if isinstance(data, list) else []
    return {c["id"]: c["name"] for c in records if isinstance(c.get("id"), str) and isinstance(c.get("name"), str)}


def _export_channels(path: Path) -> dict[str, str]:
    """The channel names of the Slack export ``path`` (a day file) is in: its root's ``channels.json`` and
    ``groups.json`` (private channels), beside its ``users.json``."""
    names: dict[str, str] = {}
    for folder in list(path.parents)[:USERS_JSON_LEVELS]:
        for listing in ("groups.json", "channels.json"):
            try:
                st = os.stat(folder / listing)
            except OSError:
                continue
            names.update(_channels_json(os.fspath(folder / listing), st.st_mtime_ns, st.st_size))
        if names:
            break
    return names


def _slack_left_out(message: dict[str, Any], bots: frozenset[str]) -> bool:
    """Whether a Slack message is no one's words: a join, a topic change, a bot's (by its subtype), Slackbot's,
    an app's (``bot_id``) or one of a user the export lists as a bot."""
    user = message.get("user")
    return (
        message.get("subtype") in _SLACK_LEFT_OUT
        or bool(message.get("bot_id"))
        or (isinstance(user, str) and (user == _SLACKBOT or user in bots))
    )


def _slack_text(text: str, names: dict[str, str], channels: dict[str, str]) -> str:
    """Slack's markup as a reader sees it: ``<@U1>`` → ``@`` and the user's name (a message's opening
    mentions → "Dev Patel, ...", see :func:`_addressed`), ``<#C1|budget>`` → ``#budget`` (``<#C1>`` → ``#``
    and the name ``channels`` gives C1), ``<https://x|label>`` → ``label``, ``<https://x>`` → the URL,
    ``<!here>`` → ``@here``, emoji codes (``:tada:``) left out as :func:`batchsum.readers.chat_marks.without_codes`
    says; then the three entities Slack escapes (``&amp; &lt; &gt;``)."""

    def one(m: re.Match[str]) -> str:
        target, label = m.group(1), m.group(2)
        if target.startswith("@"):
            return "@" + (names.get(target[1:]) or label or target[1:])
        if target.startswith("#"):
            return f"#{label or channels.get(target[1:]) or target[1:]}"
        if target.startswith("!"):  # <!here>, <!subteam^S1|@design>, <!date^1392734382^{date}|Feb 18>
            if label:
                return label
            return "@" + target[1:].split("^", 1)[0]
        return label or target.removeprefix("mailto:")

    text = without_codes(_SLACK_MARKUP.sub(one, _addressed(text, names)))
    text = re.sub(r"[ \t]{2,}", " ", text).replace(" \n", "\n")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _addressed(text: str, names: dict[str, str]) -> str:
    """A message that opens with mentions as one addressing those people: "Dev Patel, we're going with ...".
    Read as "@Dev Patel we're going ...", the mention stood where the clause's subject is, and the rules
    that find a decision or a promise at a sentence's start found none."""
    m = _LEADING_MENTIONS.match(text)
    rest = text[m.end() :] if m else ""
    if m is None or not rest.strip():
        return text  # nothing but mentions: they are the message
    who = [names.get(i) or label or i for i, label in re.findall(r"<@([^<>|\s]+)(?:\|([^<>]*))?>", m.group(1))]
    return f"{', '.join(who)}, {rest}"


def _slack_words(message: dict[str, Any], text: str, names: dict[str, str]) -> str:
    """A Slack message's words in Slack's markup: its ``text``, else those of its ``blocks`` (a message
    written in the rich editor may leave ``text`` empty), then the messages it shares (``attachments``), each
    as a quote of its author."""
    words = text if text.strip() else "\n".join(_block_text(b) for b in _dicts(message.get("blocks")))
    for shared in _dicts(message.get("attachments")):
        if not (shared.get("is_share") or shared.get("is_msg_unfurl")):
            continue  # a link's preview: the page's words, not the conversation's
        said = next((v for v in (shared.get("text"), shared.get("fallback")) if isinstance(v, str) and v.strip()), "")
        if not said.strip():
            continue
        author = shared.get("author_name") or names.get(str(shared.get("author_id") or ""))
        quote = f'"{" ".join(said.split())}"'
        words = f"{words.rstrip()} {author} wrote: {quote}" if author else f"{words.rstrip()} {quote}"
    return words


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON list (none when ``value`` is no list)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _block_text(block: dict[str, Any]) -> str:
    """A Slack block (rich text, a section, a list, a quote) as the markup its ``text`` would hold: a user
    ``<@U1>``, a channel ``<#C1>``, a link ``<url|label>``, an emoji ``:rocket:``; a list an item a line."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        escaped = block["text"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return escaped
    if kind == "section" and isinstance(_obj(block.get("text")).get("text"), str):
        return str(block["text"]["text"])  # mrkdwn: already Slack's markup
    inline = {
        "user": lambda b: f"<@{b.get('user_id', '')}>",
        "channel": lambda b: f"<#{b.get('channel_id', '')}>",
        "usergroup": lambda b: f"<!subteam^{b.get('usergroup_id', '')}>",
        "broadcast": lambda b: f"<!{b.get('range', 'here')}>",
        "emoji": lambda b: f":{b.get('name', '')}:",
        "link": lambda b: f"<{b.get('url', '')}|{b['text']}>" if b.get("text") else f"<{b.get('url', '')}>",
    }
    if kind in inline:
        return inline[kind](block)
    parts = [_block_text(e) for e in _dicts(block.get("elements"))]
    if kind == "rich_text_list":
        return "\n".join(f"- {p.strip()}" for p in parts if p.strip())
    if kind == "rich_text_quote":
        return f'"{"".join(parts).strip()}"'
    joiner = "\n" if kind == "rich_text" else ""
    return joiner.join(parts)


def _render_slack(messages: list[dict[str, Any]], path: Path) -> str:
    """A Slack export's day file: each message as ``Real Name: text``; joins, leaves, bot posts and
    channel topic changes left out."""
    users, bots = _export_users(path)
    names, channels = dict(users), _export_channels(path)
    for m in messages:
        profile = m.get("user_profile")
        if isinstance(profile, dict) and isinstance(m.get("user"), str):
            name = _slack_user_name(profile)
            if name:
                names[m["user"]] = name
    turns: list[str] = []
    for i, m in enumerate(messages, 1):
        if _slack_left_out(m, bots):
            continue
        text = m.get("text")
        if not isinstance(text, str):
            raise ValueError(f"looks like a Slack export day file, but message {i} has no 'text' string")
        text = _slack_text(_slack_words(m, text, names), names, channels).strip()
        if not text:
            continue
        user = m.get("user")
        speaker = names.get(user) if isinstance(user, str) else None
        speaker = speaker or str(m.get("user_name") or m.get("username") or user or "Unknown")
        turns.append(_turn(speaker, text))
    return "\n\n".join(turns)


# --- Telegram ----------------------------------------------------------------------------------------


def _telegram_text(text: Any, i: int) -> str:
    """A Telegram message's text: a string, or a list of strings and entities (``{"type": "bold",
    "text": ...}``) joined."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, dict) else "" for p in text)
    raise ValueError(f"looks like a Telegram export, but message {i}'s 'text' is neither text nor a list of parts")


def _render_telegram(messages: list[Any]) -> str:
    """A Telegram Desktop chat export (``result.json``): each message as ``From: text``; service
    messages (a group created, a member added) and messages without text left out."""
    turns: list[str] = []
    for i, m in enumerate(messages, 1):
        if not isinstance(m, dict) or m.get("type") == "service":
            continue
        text = _telegram_text(m.get("text", ""), i).strip()
        if text:
            # A deleted account's messages keep their "from" key, null, and a "from_id": Telegram shows the name.
            sender = (m["from"] or "Deleted Account") if "from" in m else (m.get("from_id") or "Deleted Account")
            turns.append(_turn(str(sender), text))
    return "\n\n".join(turns)


def _telegram_days(messages: list[Any]) -> Iterator[Any]:
    """The timestamps of a Telegram chat's messages, service messages left out."""
    for m in messages:
        if isinstance(m, dict) and m.get("type") != "service":
            yield m.get("date") or m.get("date_unixtime")


def _has_messages(chat: Any) -> bool:
    return isinstance(chat, dict) and isinstance(chat.get("messages"), list)


def _render_telegram_chats(chats: list[Any]) -> str:
    """Telegram's export of every chat: each chat under its name as a heading."""
    parts: list[str] = []
    for chat in chats:
        if _has_messages(chat):
            body = _render_telegram(chat["messages"])
            if body:
                parts.append(f"# {chat.get('name') or 'Saved messages'}\n\n{body}")
    return "\n\n".join(parts)


# --- Discord -----------------------------------------------------------------------------------------


def _discord_left_out(message: dict[str, Any]) -> bool:
    """A system message ("Joined the server.") or a bot's post (MEE6's "GG @benji, you just advanced to
    level 5!"): no one's words."""
    return message.get("type") in _DISCORD_SYSTEM or _obj(message.get("author")).get("isBot") is True


# A custom emoji as Discord writes it ("<:partyparrot:123456>", animated "<a:dance:42>") and a raw mention
# of a user ("<@111>", "<@!111>"), as the export leaves them when it did not resolve them.
_DISCORD_EMOJI = re.compile(r"<a?:(\w{1,32}):\d+>")
_DISCORD_MENTION = re.compile(r"<@!?(\d+)>")
# A channel ("<#555>"), a role ("<@&777>") and a timestamp ("<t:1710334800:F>", its style one of t T d D f F R)
# as Discord writes them in a message's content.
_DISCORD_CHANNEL = re.compile(r"<#(\d+)>")
_DISCORD_ROLE = re.compile(r"<@&(\d+)>")
_DISCORD_TIME = re.compile(r"<t:(-?\d{1,12})(?::([tTdDfFR]))?>")
# How each style reads, in UTC (the export does not say where its reader was). "R" ("in 2 days") is relative
# to when it is read, which a summary is not: it reads as "f", the default.
_DISCORD_TIME_STYLES = {
    "t": "%H:%M UTC",
    "T": "%H:%M:%S UTC",
    "d": "%Y-%m-%d",
    "D": "%-d %B %Y",
    "f": "%-d %B %Y %H:%M UTC",
    "F": "%A, %-d %B %Y %H:%M UTC",
}


def _discord_channels(data: dict[str, Any]) -> dict[str, str]:
    """Channel id → name of the channel the export holds (the only one it names)."""
    channel = _obj(data.get("channel"))
    name, cid = channel.get("name"), channel.get("id")
    return {str(cid): name} if isinstance(name, str) and name.strip() and isinstance(cid, str | int) else {}


def _discord_roles(messages: list[Any]) -> dict[str, str]:
    """Role id → name of the roles the export's authors and mentioned users hold (DiscordChatExporter's
    ``roles`` of a user)."""
    roles: dict[str, str] = {}
    for m in messages:
        if not isinstance(m, dict):
            continue
        mentioned = m.get("mentions")
        for user in [m.get("author"), *(mentioned if isinstance(mentioned, list) else [])]:
            held = _obj(user).get("roles")
            for role in held if isinstance(held, list) else []:
                name, rid = _obj(role).get("name"), _obj(role).get("id")
                if isinstance(name, str) and name.strip() and isinstance(rid, str | int):
                    roles.setdefault(str(rid), name.strip())
    return roles


def _discord_time(m: re.Match[str]) -> str:
    """A Discord timestamp as a reader sees it in its style, in UTC; left as it was when out of range."""
    try:
        when = dt.datetime.fromtimestamp(int(m.group(1)), tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return m.group(0)
    return when.strftime(_DISCORD_TIME_STYLES.get(m.group(2) or "f", _DISCORD_TIME_STYLES["f"]))


def _discord_people(messages: list[Any]) -> dict[str, str]:
    """User id → the name people see (nickname, else name) of the export's authors and mentioned users."""
    people: dict[str, str] = {}
    for m in messages:
        if isinstance(m, dict):
            mentioned = m.get("mentions")
            for value in [m.get("author"), *(mentioned if isinstance(mentioned, list) else [])]:
                user = _obj(value)
                name = user.get("nickname") or user.get("name")
                if isinstance(name, str) and name.strip() and isinstance(user.get("id"), str | int):
                    people.setdefault(str(user["id"]), " ".join(name.split()))
    return people


def _discord_text(content: str, people: dict[str, str], named: tuple[dict[str, str], dict[str, str]]) -> str:
    """A Discord message as a reader sees it, as a Slack one is (:func:`_slack_text`): ``<@111>`` → ``@``
    and the user's name, the names a message opens with address those people ("@Ana I'll ..." → "Ana,
    I'll ..."), ``<#555>`` → ``#`` and the channel's name (``#channel`` when the export names none),
    ``<@&777>`` → ``@`` and the role's name (else ``@role``), ``<t:1710334800:F>`` the date and time it
    names (UTC), custom emoji (``<:partyparrot:123456>``) and emoji codes (``:thumbsup:``) left out.
    ``named``: the export's channel and role names by id."""
    channels, roles = named
    text = _DISCORD_EMOJI.sub(lambda m: f" :{m.group(1).lower()}: ", content)
    text = _DISCORD_MENTION.sub(lambda m: "@" + people.get(m.group(1), m.group(1)), text)
    text = _DISCORD_CHANNEL.sub(lambda m: "#" + channels.get(m.group(1), "channel"), text)
    text = _DISCORD_ROLE.sub(lambda m: "@" + roles.get(m.group(1), "role"), text)
    text = _DISCORD_TIME.sub(_discord_time, text)
    text = without_codes(_name_addressed(text.strip(), sorted(set(people.values()), key=len, reverse=True)))
    return re.sub(r"[ \t]{2,}", " ", text).replace(" \n", "\n").strip()


def _name_addressed(text: str, names: list[str]) -> str:
    """``text`` whose opening ``@Name`` mentions (names among ``names``, longest first: "@Ben O") address
    those people: "Ben O, I'll ..."."""
    who: list[str] = []
    rest = text
    while rest.startswith("@"):
        name = next((n for n in names if rest[1:].startswith(n) and not rest[1 + len(n) : 2 + len(n)].isalnum()), None)
        if name is None:
            break
        who.append(name)
        rest = rest[1 + len(name) :].lstrip(" \t,:")
    return f"{', '.join(who)}, {rest}" if who and rest.strip() else text


def _render_discord(messages: list[Any], channels: dict[str, str]) -> str:
    """A DiscordChatExporter JSON export: each message as ``Nickname: content`` (the author's server
    nickname, else their name); system messages (joins, pins, calls), bots' posts and empty ones left out.
    ``channels``: the names of the channels the export names, by id."""
    people, named = _discord_people(messages), (channels, _discord_roles(messages))
    turns: list[str] = []
    for i, m in enumerate(messages, 1):
        if not isinstance(m, dict) or _discord_left_out(m):
            continue
        content = m.get("content")
        if not isinstance(content, str):
            raise ValueError(f"looks like a DiscordChatExporter export, but message {i} has no 'content' string")
        author = _obj(m.get("author"))
        name = author.get("nickname") or author.get("name") or "Unknown"
        content = _discord_text(content, people, named)
        if content:
            turns.append(_turn(str(name), content))
    return "\n\n".join(turns)


# --- ChatGPT -----------------------------------------------------------------------------------------


def _chatgpt_path(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The messages of the branch a conversation shows: from its ``current_node`` up the parent chain;
    without one, every message by ``create_time``."""
    if isinstance(current, str) and current in mapping:
        chain: list[dict[str, Any]] = []
        key: Any = current
        seen: set[str] = set()
        # Walked by the mapping's keys: a node's own "id" may be missing or an int, and a cycle of
        # parents in a broken export must end.
        while isinstance(key, str) and key in mapping and key not in seen:
            seen.add(key)
            node = mapping[key]
            if not isinstance(node, dict):
                break
            if isinstance(node.get("message"), dict):
                chain.append(node["message"])
            key = node.get("parent")
        return chain[::-1]
    found = [n["message"] for n in mapping.values() if isinstance(n, dict) and isinstance(n.get("message"), dict)]
    return sorted(found, key=lambda msg: msg.get("create_time") or 0)


def _chatgpt_text(message: dict[str, Any]) -> str:
    """A ChatGPT message's text: its string parts (images and files left out), or a code block's text."""
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type", "text") not in _CHATGPT_TEXT:
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    text = content.get("text")
    return text if isinstance(text, str) else ""


def _render_chatgpt(conversations: list[dict[str, Any]]) -> str:
    """A ChatGPT data export's ``conversations.json``: each conversation under its title (and the day it
    was started) as a heading, then ``User:``/``Assistant:`` turns; system and tool messages, hidden
    ones and empty ones left out."""
    parts: list[str] = []
    for n, conv in enumerate(conversations, 1):
        mapping = conv.get("mapping")
        if not isinstance(mapping, dict):
            raise ValueError(f"looks like a ChatGPT export, but conversation {n}'s 'mapping' is not an object")
        turns: list[str] = []
        for message in _chatgpt_path(mapping, conv.get("current_node")):
            author = _obj(message.get("author"))
            role = str(author.get("role") or "unknown")
            metadata = _obj(message.get("metadata"))
            if role in _CHATGPT_LEFT_OUT or metadata.get("is_visually_hidden_from_conversation"):
                continue
            text = _chatgpt_text(message)
            if text.strip():
                turns.append(_turn(role[:1].upper() + role[1:], text))
        if turns:
            parts.append(f"# {_chatgpt_heading(conv)}\n\n" + "\n\n".join(turns))
    return "\n\n".join(parts)


def _chatgpt_heading(conv: dict[str, Any]) -> str:
    title = " ".join(str(conv.get("title") or "Untitled conversation").split())
    created = conv.get("create_time")
    if isinstance(created, int | float) and created > 0:
        try:
            return f"{title} ({dt.datetime.fromtimestamp(created, tz=dt.UTC).date().isoformat()})"
        except (OverflowError, OSError, ValueError):
            pass
    return title
