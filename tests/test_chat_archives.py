"""Archived chats read as what people wrote: emoji and mentions around a sentence, the export's own lines
left out, bots and system notices left out, and each chat's page named by its channel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from batchsum.cli import main

OPENING = "12/03/2024, 09:00 - Ana Silva: The release is almost ready, only the notes are missing.\n"
CLOSING = "12/03/2024, 09:02 - Ana Silva: Thanks, that works for me.\n12/03/2024, 09:03 - Ben Okafor: Great.\n"


def _run(corpus: Path, out: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["run"]["files_done"] >= 1, r.output


def _final(out: Path, source: str) -> tuple[dict[str, Any], str]:
    """The front matter and body of ``source``'s final."""
    text = (out / source / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


@pytest.mark.parametrize(
    "said",
    [
        "I'll update the release notes by Thursday 🚀",
        "I'll update the release notes by Thursday :rocket:",
        "@Ana I'll update the release notes by Thursday.",
        "🎉 @ana.s, @dev: I'll update the release notes by Thursday 👍🏽",
    ],
)
def test_emoji_and_an_opening_mention_hide_no_action_item(tmp_path: Path, said: str) -> None:
    corpus = tmp_path / "chats"
    corpus.mkdir()
    chat = f"{OPENING}12/03/2024, 09:01 - Ben Okafor: {said}\n{CLOSING}"
    (corpus / "team.txt").write_text(chat, encoding="utf-8")
    _run(corpus, tmp_path / "out")
    front, _ = _final(tmp_path / "out", "team.txt")
    items = front.get("action_items") or []
    assert [(a["owner"], a["due"]) for a in items] == [("Ben Okafor", "Thursday")], front
    assert "update the release notes" in items[0]["task"] and items[0]["task"].endswith(".")
    assert "@" not in items[0]["task"] and ":" not in items[0]["task"]


IRC = """--- Log opened Tue Mar 12 09:00:00 2024
[09:00] -!- ana [~ana@host] has joined #oss-dev
[09:00] *** Joins: ben (~ben@host)
[09:00] *** ChanServ sets mode: +o ana
[09:00] -!- dev [~dev@host] has joined #oss-dev
[09:01] <@ana> The nightly build failed again on the arm runner.
[09:02] <+ben> It looks like the cache key changed after the upgrade.
[09:03] * ana sighs
[09:04] <@ana> Then we should pin the toolchain version for now.
[09:05] -!- dev [~dev@host] has quit [Quit: Leaving]
[09:05] *** Quits: dev (~dev@host) (Ping timeout: 240 seconds)
[09:06] <+ben> ana: I'll review the CI patch by tomorrow.
--- Log closed Tue Mar 12 10:00:00 2024
"""


# The same log with few of the client's lines: those had been glued onto the turn above them.
IRC_QUIET = "\n".join(ln for ln in IRC.splitlines() if "<" in ln or "Quits" in ln or "sighs" in ln) + "\n"


@pytest.mark.parametrize("log", [IRC, IRC_QUIET], ids=["busy", "quiet"])
def test_an_irc_clients_own_lines_are_no_ones_words(tmp_path: Path, log: str) -> None:
    corpus = tmp_path / "irc"
    corpus.mkdir()
    (corpus / "oss-dev.log.txt").write_text(log, encoding="utf-8")
    _run(corpus, tmp_path / "out")
    front, body = _final(tmp_path / "out", "oss-dev.log.txt")
    said = body.split("## Facets", 1)[0]
    assert front["content_type_reason"] == "IRC log"
    for notice in ("Log opened", "Log closed", "joined", "Joins", "quit", "Quits", "mode", "sighs", "~"):
        assert notice not in said, said
    turns = [ln for ln in said.splitlines() if ln.strip()]
    # Kept whole, the text is cleaned as the summarizer reads it: a sentence opens with a capital.
    assert turns[-1].casefold() == "ben: ana, i'll review the ci patch by tomorrow.", said
    assert all(t.split(": ", 1)[0] in ("ana", "ben") for t in turns), said
    assert [(a["owner"], a["due"]) for a in front["action_items"]] == [("ben", "tomorrow")], front


LRM, NNBSP = "\u200e", "\u202f"
IOS_GROUP = "".join(
    f"[3/12/24, {at}{NNBSP}AM] {line}\n"
    for at, line in [
        (
            "8:59:00",
            f"Harbor Team: {LRM}Messages and calls are end-to-end encrypted.",
        ),
        ("8:59:01", f"Harbor Team: {LRM}Ana Silva created this group"),
        ("8:59:02", f"Harbor Team: {LRM}Ana Silva added Ben Okafor"),
        ("9:00:00", "Ana Silva: The harbor permit came back with two corrections."),
        ("9:01:00", "Ben Okafor: Which sections need to change before we resubmit?"),
        ("9:02:00", f"Ana Silva: {LRM}image omitted"),
        ("9:03:00", "Ana Silva: The mooring plan and the insurance page."),
        ("9:04:00", "Ben Okafor: I'll redo the mooring plan by Friday."),
    ]
)


def test_whatsapp_ios_notices_under_the_chats_name_are_left_out(tmp_path: Path) -> None:
    corpus = tmp_path / "whatsapp"
    corpus.mkdir()
    (corpus / "_chat.txt").write_text(IOS_GROUP, encoding="utf-8")
    _run(corpus, tmp_path / "out")
    front, body = _final(tmp_path / "out", "_chat.txt")
    assert front["content_type_reason"] == "WhatsApp export (iOS)"
    assert front["participants"] == ["Ana Silva", "Ben Okafor"], front
    said = body.split("## Facets", 1)[0]
    for notice in ("Harbor Team", "encrypted", "created this group", "added", "omitted", LRM):
        assert notice not in said, said
    assert said.count("Ana Silva: ") == 2 and said.count("Ben Okafor: ") == 2, said


SLACK_USERS = [
    {"id": "U1", "name": "ana", "real_name": "Ana Silva"},
    {"id": "U2", "name": "ben", "real_name": "Ben Okafor"},
    {"id": "U7", "name": "deploybot", "is_bot": True, "profile": {"real_name": "Deploy Bot"}},
]


def _slack_message(user: str, text: str, n: int, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": user, "text": text, "ts": f"1710234{n:03d}.000001", **extra}


def _discord_message(n: int, author: dict[str, Any], content: str, **extra: Any) -> dict[str, Any]:
    stamp = f"2024-03-12T09:{n:02d}:00+00:00"
    return {"id": str(n), "type": "Default", "timestamp": stamp, "content": content, "author": author, **extra}


ANA = {"id": "111", "name": "ana_s", "nickname": "Ana", "isBot": False}
BEN = {"id": "222", "name": "benji", "nickname": "Ben O", "isBot": False}
MEE6 = {"id": "333", "name": "MEE6", "nickname": "MEE6", "isBot": True}


def _speakers(said: str) -> set[str]:
    return {ln.split(": ", 1)[0] for ln in said.splitlines() if ": " in ln}


def test_bots_posts_are_left_out_of_slack_and_discord(tmp_path: Path) -> None:
    corpus = tmp_path / "exports"
    (corpus / "slack" / "dev").mkdir(parents=True)
    (corpus / "slack" / "users.json").write_text(json.dumps(SLACK_USERS), encoding="utf-8")
    slack = [
        _slack_message("U1", "The signing key expires on Friday, so the release waits for it.", 100),
        _slack_message("USLACKBOT", "Reminder: submit your timesheet.", 160),
        _slack_message("U7", "Deployed build 42 to staging.", 220),
        _slack_message("U9", "Build 43 passed all checks.", 250, bot_id="B9", bot_profile={"name": "CI"}),
        _slack_message("U2", "Then I'll renew the signing key tomorrow morning.", 280),
    ]
    (corpus / "slack" / "dev" / "2024-03-12.json").write_text(json.dumps(slack), encoding="utf-8")
    discord = {
        "guild": {"id": "9", "name": "OSS Community"},
        "channel": {"id": "8", "name": "dev-chat"},
        "messages": [
            _discord_message(1, ANA, "The signing key expires on Friday, so the release waits for it."),
            _discord_message(2, MEE6, "GG @benji, you just advanced to level 5!"),
            _discord_message(3, BEN, "Then I'll renew the signing key tomorrow morning."),
            _discord_message(4, ANA, "Thanks, that works."),
        ],
    }
    (corpus / "dev-chat.json").write_text(json.dumps(discord), encoding="utf-8")
    _run(corpus, tmp_path / "out")
    for source, people in [
        ("slack/dev/2024-03-12.json", {"Ana Silva", "Ben Okafor"}),
        ("dev-chat.json", {"Ana", "Ben O"}),
    ]:
        front, body = _final(tmp_path / "out", source)
        said = body.split("## Facets", 1)[0]
        assert _speakers(said) == people and set(front["participants"]) == people, said
        for bot_words in ("timesheet", "staging", "Build 43", "level 5"):
            assert bot_words not in said, said


DEV = {"id": "444", "name": "devp", "nickname": "Dev P", "isBot": False}


def test_discord_mentions_and_emoji_read_as_slacks_do(tmp_path: Path) -> None:
    corpus = tmp_path / "discord"
    corpus.mkdir()
    export = {
        "guild": {"id": "9", "name": "OSS Community"},
        "channel": {"id": "8", "name": "dev-chat"},
        "messages": [
            _discord_message(1, ANA, "The notes are the last thing missing <:partyparrot:123456> :thumbsup:"),
            _discord_message(2, BEN, "<@111> I'll update the release notes by Thursday:rocket:", mentions=[ANA]),
            _discord_message(3, ANA, "Great, and <@!444> checks the changelog.", mentions=[DEV]),
            _discord_message(4, BEN, "Sounds good <a:dance:42>"),
        ],
    }
    (corpus / "dev-chat.json").write_text(json.dumps(export), encoding="utf-8")
    _run(corpus, tmp_path / "out")
    front, body = _final(tmp_path / "out", "dev-chat.json")
    said = body.split("## Facets", 1)[0].split("<!--", 1)[0]
    for markup in ("<", ">", "partyparrot", "thumbsup", "rocket", "dance", "111", "444"):
        assert markup not in said, said
    assert "Ben O: Ana, I'll update the release notes by Thursday" in said, said
    assert "@Dev P checks the changelog" in said, said
    assert [(a["owner"], a["due"]) for a in front["action_items"]] == [("Ben O", "Thursday")], front


def test_a_slack_channels_day_is_titled_with_its_channel(tmp_path: Path) -> None:
    corpus = tmp_path / "slack"
    corpus.mkdir()
    (corpus / "users.json").write_text(json.dumps(SLACK_USERS), encoding="utf-8")
    for channel, said in [
        ("general", "The venue is booked for the meetup."),
        ("random", "The coffee machine works again."),
    ]:
        (corpus / channel).mkdir()
        day = [_slack_message("U1", said, 100), _slack_message("U2", "Good to hear, thanks for checking.", 160)]
        (corpus / channel / "2024-03-12.json").write_text(json.dumps(day), encoding="utf-8")
    _run(corpus, tmp_path / "out")
    index = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    for channel in ("general", "random"):
        front, _ = _final(tmp_path / "out", f"{channel}/2024-03-12.json")
        assert front["title"] == f"{channel} 2024-03-12"
        assert f"[{channel} 2024-03-12](<{channel}/2024-03-12.json/summaries/L3/final.md>)" in index, index
    # The month's page lists each channel's day by its title, not two links both named "2024-03-12".
    month = (tmp_path / "out" / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8")
    assert "[general 2024-03-12]" in month and "[random 2024-03-12]" in month, month


RULE = "=" * 62
DCE_TEXT = f"""{RULE}
Guild: OSS Community
Channel: Text / general (9)
{RULE}

[3/12/2024 9:01 AM] ana_s
The release branch is cut, only the notes are missing.

[3/12/2024 9:02 AM] benji
I'll update the release notes by Thursday.

[3/12/2024 9:03 AM] ana_s
{{Attachments}}
https://cdn.discordapp.com/attachments/1/2/screenshot.png

{{Reactions}}
👍 (2)

[3/12/2024 9:04 AM] benji
Joined the server.

[3/12/2024 9:05 AM] ana_s
Great, then we tag it on Friday.

{RULE}
Exported 5 message(s)
{RULE}
"""
TEAMS_COPY = """[12/03/2024 09:01] Priya Raman
Welcome to the team, the laptop is on your desk.

[12/03/2024 09:02] Jonas Weber
Thanks! Where do I find the onboarding checklist?

[12/03/2024 09:03] Priya Raman
It is in the wiki, under New starters.

[12/03/2024 10:00] Jonas Weber
I'll draft the onboarding checklist by Thursday.

Priya Raman was added to the chat by Jonas Weber.
"""


@pytest.mark.parametrize(
    ("text", "people"),
    [(DCE_TEXT, ["ana_s", "benji"]), (TEAMS_COPY, ["Priya Raman", "Jonas Weber"])],
    ids=["dce", "teams"],
)
def test_discord_text_export_and_teams_copy_read_as_chats(tmp_path: Path, text: str, people: list[str]) -> None:
    corpus = tmp_path / "chats"
    corpus.mkdir()
    (corpus / "chat.txt").write_text(text, encoding="utf-8")
    _run(corpus, tmp_path / "out")
    front, body = _final(tmp_path / "out", "chat.txt")
    assert front["content_type"] == "conversation" and front["content_type_reason"] == "Discord or Teams chat"
    assert front["participants"] == people, front
    said = body.split("## Facets", 1)[0].split("<!--", 1)[0]
    turns = [ln for ln in said.splitlines() if ln.strip()]
    assert all(ln.split(": ", 1)[0] in people for ln in turns), said
    for layout in ("Guild", "Exported", "{", "cdn.", "(2)", "Joined", "added to the chat", "[", "AM"):
        assert layout not in said, said
    assert [a["owner"] for a in front["action_items"]] == [people[1]], front


def test_a_slack_channel_link_without_its_label_names_the_channel(tmp_path: Path) -> None:
    corpus = tmp_path / "slack"
    (corpus / "dev").mkdir(parents=True)
    (corpus / "users.json").write_text(json.dumps(SLACK_USERS), encoding="utf-8")
    (corpus / "channels.json").write_text(json.dumps([{"id": "C01", "name": "general"}]), encoding="utf-8")
    (corpus / "groups.json").write_text(json.dumps([{"id": "G02", "name": "core-team"}]), encoding="utf-8")
    day = [
        _slack_message("U1", "Please review the plan in <#C01> before the call.", 100),
        _slack_message("U2", "Done, and I moved the budget talk to <#G02>.", 160),
        _slack_message("U1", "Thanks, see you in <#C09|ops> later.", 220),
    ]
    (corpus / "dev" / "2024-03-12.json").write_text(json.dumps(day), encoding="utf-8")
    _run(corpus, tmp_path / "out")
    _, body = _final(tmp_path / "out", "dev/2024-03-12.json")
    # Kept whole, a channel keeps its "#" in a speaker's turn, as the summarizer reads it: it names a channel.
    assert "in #general before" in body and "to #core-team." in body and "in #ops later" in body, body
    assert "C01" not in body and "G02" not in body
