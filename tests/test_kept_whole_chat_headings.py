"""A kept-whole conversation's final keeps the source's headings between its turns: a Telegram export of
all chats reads as its chats, each under its name, not as one conversation of everyone's turns."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER
from batchsum.tree import parse_markdown

CHATS = {
    "Helpdesk": [("Sara Lind", "The VPN tickets are piling up, 14 open."), ("Jonas Weber", "I'll close them by 4 pm.")],
    "Mira Koch": [("Mira Koch", "Are we still on for the workshop on Thursday?"), ("Sara Lind", "Yes, I'll come.")],
}


def _export() -> str:
    """A Telegram "all chats" export of :data:`CHATS`."""
    chats = [
        {
            "name": name,
            "type": "private_group",
            "id": k,
            "messages": [
                {"id": i, "type": "message", "date": f"2024-03-12T10:0{i}:00", "from": who, "text": said}
                for i, (who, said) in enumerate(turns, start=1)
            ],
        }
        for k, (name, turns) in enumerate(CHATS.items(), start=1)
    ]
    return json.dumps({"about": "export", "chats": {"about": "all chats", "list": chats}})


def test_a_kept_whole_chat_export_keeps_each_chats_heading_over_its_turns(tmp_path: Path) -> None:
    src, out = tmp_path / "telegram", tmp_path / "out"
    src.mkdir()
    (src / "result.json").write_text(_export(), encoding="utf-8")
    res = CliRunner().invoke(
        main, ["run", str(src), "--out", str(out), "--no-index", "--quiet"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    meta, body = parse_markdown((out / "result.json" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8"))
    assert meta["kept_whole"] is True
    lines = [line for line in body.split(LINKS_MARKER)[0].split("\n## ")[0].splitlines() if line.strip()]
    headings = [i for i, line in enumerate(lines) if line.startswith("# ")]
    assert [lines[i][2:] for i in headings] == list(CHATS), lines
    # Each heading is followed by its own chat's turns, in order, and by no other's.
    for at, (name, turns) in zip(headings, CHATS.items(), strict=True):
        assert lines[at + 1 : at + 1 + len(turns)] == [f"{who}: {said}" for who, said in turns], (name, lines)
