"""Marks a note app never shows stay out of what batchsum writes (Obsidian's block ids and inline footnotes);
Logseq's SCHEDULED date reads as a scheduled one (⏳), never a due one; a chat's "#general" names a channel
and keeps its mark where a note's "#homelab" tag reads as its word."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

MARKED = (
    "# 2024-03-18\n\nThe rig stopped after a failed calibration. ^abc123\n\n"
    "Ana^[She is the data engineer who runs the pipeline.] approved the rerun. The buffer holds 2^10 "
    "samples and the fit is x^2 over the range.\n"
)
SCHEDULED = (
    "- Planning the garden for the spring.\n"
    "- TODO Order the seed potatoes\n  SCHEDULED: <2024-03-18 Mon>\n"
    "- TODO Pay the allotment fee\n  DEADLINE: <2024-03-20 Wed>\n"
)
CHAT = (
    "Ana: Raid in #general again tonight, the same three accounts.\n"
    "Ben: I banned them and posted the rules in #announcements.\n"
    "Ana: Thanks. I will reset the #homelab router later, it keeps dropping.\n"
    "Ben: Sounds good, ping me in #mods if they come back.\n"
)


def _run(folder: Path, out: Path) -> dict:
    res = CliRunner().invoke(main, ["run", str(folder), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _written(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.md")) if p.is_file())


def _search(out: Path, query: str) -> str:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return res.output


def test_block_ids_and_inline_footnotes_are_never_shown(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "2024-03-18.md").write_text(MARKED, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "notes", out)
    written = _written(out)
    for shown in (written, _search(out, "calibration rerun")):
        assert "^abc123" not in shown and "data engineer" not in shown and "^[" not in shown, shown
    assert "failed calibration." in written and "Ana approved the rerun" in written
    assert "2^10" in written and "x^2" in written  # an exponent is no mark


def test_scheduled_is_no_due_date(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "Garden.md").write_text(SCHEDULED, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "pages", out)
    written = _written(out)
    assert "⏳ 2024-03-18" in written and "📅 2024-03-18" not in written, written
    assert "📅 2024-03-20" in written  # a DEADLINE is the due date
    final = next(out.rglob("final.md")).read_text(encoding="utf-8")
    assert "2024-03-18" not in final.split("action_items:")[1].split("\n---")[0], final


def test_a_chat_keeps_its_channel_marks(tmp_path: Path) -> None:
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "mods-2024-03-18.txt").write_text(CHAT * 3, encoding="utf-8")
    out = tmp_path / "out"
    data = _run(tmp_path / "chat", out)
    assert data["files"][0]["content_type"] == "conversation", data["files"][0]
    found = _search(out, "raid general").split("\n")
    hit = found[found.index(next(line for line in found if "final" in line)) + 1]
    assert "Raid in #general again" in hit, found
    assert "in general again" not in _written(out)
