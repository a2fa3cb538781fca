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
