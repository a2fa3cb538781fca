"""A chat export is dated by its first message (``date_source: first message``), as an .eml is by its Date
header: not by its mtime, the day it was copied, which had put it in no month's digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

WHATSAPP = (
    "12/03/2024, 09:14 - Ana Silva: The meeting moves to Friday.\n"
    "12/03/2024, 09:15 - Ben Okafor: Fine. I'll prepare the report by Thursday.\n"
    "13/03/2024, 08:02 - Ana Silva: Thanks, see you Friday.\n"
)
TELEGRAM = {
    "name": "Moving team",
    "type": "private_group",
    "id": 1,
    "messages": [
        {"id": 1, "type": "service", "date": "2024-01-30T10:00:00", "actor": "Jonas", "action": "create_group"},
        {"id": 2, "type": "message", "date": "2024-04-02T10:01:00", "from": "Jonas", "text": "The move is Saturday."},
        {"id": 3, "type": "message", "date": "2024-04-02T10:02:00", "from": "Mia", "text": "I'll bring the boxes."},
    ],
}
DISCORD = {
    "guild": {"id": "1", "name": "Gamers"},
    "channel": {"id": "2", "name": "raid-planning"},
    "messages": [
        {"id": "9", "type": "GuildMemberJoin", "timestamp": "2024-04-30T18:00:00+00:00", "content": "", "author": {}},
        {
            "id": "10",
            "type": "Default",
            "timestamp": "2024-05-01T19:00:00+00:00",
            "content": "Raid is moved to Sunday at 8pm.",
            "author": {"id": "a", "name": "kira", "nickname": "Kira"},
        },
        {
            "id": "11",
            "type": "Default",
            "timestamp": "2024-05-01T19:01:00+00:00",
            "content": "I'll bring the potions.",
            "author": {"id": "b", "name": "tomasz"},
        },
    ],
}


def _dated(tmp_path: Path, name: str, text: str) -> tuple[str, str, Path]:
    """(doc_date, date_source, output folder) of a run over one file."""
    src = tmp_path / "chats"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    meta = dict(ln.split(": ", 1) for ln in final.split("\n---\n", 1)[0].splitlines() if ": " in ln)
    return meta["doc_date"].strip("'\""), meta["date_source"], out


@pytest.mark.parametrize(
    ("name", "text", "day"),
    [
        ("family.txt", WHATSAPP, "2024-03-12"),  # "13/03/2024" fixes the order: day first
        ("moving.json", json.dumps(TELEGRAM), "2024-04-02"),  # the group's creation is no message
        ("raid.json", json.dumps(DISCORD), "2024-05-01"),  # nor a member joining
    ],
    ids=["whatsapp", "telegram", "discord"],
)
def test_an_export_is_dated_by_its_first_message_and_lands_in_its_month(
    tmp_path: Path, name: str, text: str, day: str
) -> None:
    doc_date, source, out = _dated(tmp_path, name, text)
    assert (doc_date, source) == (day, "first message")
    month = out / "digests" / day[:4] / f"{day[:7]}.md"
    assert name in month.read_text(encoding="utf-8")


def test_a_whatsapp_date_its_export_cannot_order_leaves_it_undated(tmp_path: Path) -> None:
    # "3/12/24" is the 3rd of December or the 12th of March: no line of the export tells which.
    text = "".join(f"3/12/24, 9:1{k} AM - {who}: message {k}\n" for k, who in enumerate(["Tom", "Sara", "Tom"]))
    assert _dated(tmp_path, "us.txt", text)[1] == "mtime"
