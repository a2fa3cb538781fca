"""A standup's fields under each person's heading ("## Maria" / "Yesterday: ..." / "Blockers: ...") are no one
speaking: the page is a document, with no participant called "Yesterday" or "Blockers"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.speaker_labels import is_turn

PLAIN = (
    "# Standup 2024-03-06\n\n"
    "## Maria\nYesterday: Shipped the CSV export pagination.\nToday: Start on the per-provider thresholds.\n"
    "Blockers: None.\n\n"
    "## Tom\nYesterday: Merged the Latin-1 fix for the Adyen files.\n"
    "Today: Cut the 2.4.1 release and watch the nightly job.\n"
    "Blockers: The release pipeline is red because of a flaky integration test.\n"
)
BOLD = (
    PLAIN.replace("Yesterday:", "**Yesterday:**").replace("Today:", "**Today:**").replace("Blockers:", "**Blockers:**")
)
_FIELDS = {"yesterday", "today", "tomorrow", "blockers", "blocked", "done", "next steps", "progress"}


@pytest.mark.parametrize("field", sorted(_FIELDS))
def test_a_standup_field_is_no_turn(field: str) -> None:
    assert not is_turn(f"{field.capitalize()}: Shipped the CSV export.")
    assert not is_turn(f"**{field.capitalize()}:** Shipped the CSV export.")


@pytest.mark.parametrize("text", [PLAIN, BOLD], ids=["plain", "bold"])
def test_a_standup_page_is_a_document_with_no_field_for_a_participant(tmp_path: Path, text: str) -> None:
    src = tmp_path / "standups"
    src.mkdir()
    (src / "standup.md").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / "standup.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    head = final.split("\n---\n", 1)[0]
    assert "content_type: conversation" not in head, head
    named = [ln[2:].strip().lower() for ln in head.split("participants:", 1)[-1].splitlines() if ln.startswith("- ")]
    assert not _FIELDS & set(named), head
