"""Summaries whose paths in the output change while their sources stay the same files (the paths given name
them otherwise) are named as moved by ``plan`` and ``run``, not only listed as new and deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main

NOTES = {
    "journal/2026-03-02.md": "Repotted the ferns and fixed the garden gate hinge before the rain came in.",
    "calls/planning.txt": "Ana: We move the launch to May.\nBen: Fine, I will tell the printers today.\nAna: Thanks.",
}


def _cli(*args: str) -> Any:
    res = CliRunner().invoke(main, [*args, "--no-index", "--no-digests"])
    assert res.exit_code == 0, res.output
    return res


def test_summaries_named_otherwise_are_said_to_move(tmp_path: Path) -> None:
    notes, other, out = tmp_path / "notes", tmp_path / "other", tmp_path / "out"
    for rel, text in NOTES.items():
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text((text + "\n") * 8, encoding="utf-8")
    other.mkdir()
    (other / "list.md").write_text("Buy seed potatoes, twine and a new watering can for the allotment.\n" * 4)
    _cli("run", str(notes), "--out", str(out))  # one folder: its files named from inside it

    both = [str(notes), str(other), "--out", str(out)]  # two: each named by its folder now
    plan = json.loads(_cli("plan", *both, "--json").stdout)
    assert plan["moved"] == {f"notes/{rel}": rel for rel in NOTES}
    assert sum("moved" in line for line in plan["change_notes"]) == 1
    text = _cli("plan", *both).stdout.splitlines()
    assert "  + notes/calls/planning.txt (moved from calls/planning.txt)" in text
    assert "  + other/list.md" in text, "a file new to the folder is no move"

    run = json.loads(_cli("run", *both, "--json").stdout)
    said = [w for w in run["warnings"] if "moved" in w]
    assert len(said) == 1 and said[0].startswith("2 summaries moved"), run["warnings"]
    assert run["run"]["files_deleted"] == 2
