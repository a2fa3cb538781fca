"""After an upgrade of the extractive summarizer, ``plan`` and ``run`` say why files the user did not touch are
summarized again, and a file the user edited stays told apart from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.backends import identity
from batchsum.backends.identity import EXTRACTIVE_VERSION
from batchsum.cli import main
from batchsum.engine.changes import EDITED  # imported before the test sets an older version: it keeps this one

DAYS = {
    "2026-03-02.md": "Spent the morning repotting the ferns and the afternoon fixing the garden gate hinge.",
    "2026-03-03.md": "Met Priya for lunch at the harbour cafe; we planned the spring cleanup of the allotment.",
    "2026-03-04.md": "Rain all day. Finished the library book about lighthouses and started sorting seed packets.",
}


def _cli(*args: str) -> Any:
    res = CliRunner().invoke(main, [*args, "--no-index", "--no-digests"])
    assert res.exit_code == 0, res.output
    return res


def test_an_upgrade_names_the_summarizer_change_and_keeps_edits_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    for name, text in DAYS.items():
        (src / name).write_text(f"# {name[:-3]}\n\n" + (text + " ") * 12 + "\n", encoding="utf-8")
    where = [str(src), "--out", str(out)]
    monkeypatch.setattr(identity, "EXTRACTIVE_VERSION", EXTRACTIVE_VERSION - 1)  # the release before this one
    _cli("run", *where)
    monkeypatch.undo()
    edited = src / "2026-03-03.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nLater: Priya called to move the cleanup.\n")

    plan = json.loads(_cli("plan", *where, "--json").stdout)
    assert sorted(plan["changed"]) == sorted(DAYS)
    reasons = plan["reasons"]
    assert reasons["2026-03-03.md"] == EDITED
    old, new = f"v{EXTRACTIVE_VERSION - 1}", f"v{EXTRACTIVE_VERSION}"
    assert all(old in reasons[n] and new in reasons[n] for n in ("2026-03-02.md", "2026-03-04.md"))
    assert len(plan["change_notes"]) == 1 and plan["change_notes"][0].startswith("2 files")
    text = _cli("plan", *where).stdout
    assert any("summarizer changed" in line and f"{EXTRACTIVE_VERSION}" in line for line in text.splitlines())
    edits = [line for line in text.splitlines() if "2026-03-03.md" in line]
    assert edits == ["  ~ 2026-03-03.md"], "an edit is listed as ever, without batchsum's reason"

    run = json.loads(_cli("run", *where, "--json").stdout)
    said = [w for w in run["warnings"] if "summarizer changed" in w]
    assert len(said) == 1 and said[0].startswith("2 files"), run["warnings"]
    again = json.loads(_cli("plan", *where, "--json").stdout)
    assert again["changed"] == [] and again["change_notes"] == []
