"""A file name holding a newline (or another control character) is printed escaped, as index.md shows it:
no name can fake lines of the command's output (its problem list, plan, search hits)."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

FAKE = "\n  ! fake: forged.md"  # a name that would print as a problem line of its own


def test_names_with_newlines_are_printed_escaped(tmp_path: Path) -> None:
    src, out = tmp_path / "c", tmp_path / "out"
    src.mkdir()
    (src / f"notes{FAKE}.md").write_text("The harbour budget pays for the new pier this year.\n", encoding="utf-8")
    os.mkfifo(src / f"pipe{FAKE}.md")  # never opened: a problem naming it
    run = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert run.exit_code == 1, run.output
    assert "forged.md" in run.stderr and "\\n  ! fake" in run.stderr
    assert not any(line.startswith("  ! fake") for line in run.stderr.splitlines()), run.stderr
    plan = CliRunner().invoke(main, ["plan", str(src), "--out", str(out)], catch_exceptions=False)
    assert "forged.md" in plan.output
    assert not any(line.startswith("  ! fake") for line in plan.output.splitlines()), plan.output
    found = CliRunner().invoke(main, ["search", "harbour pier", "--out", str(out)], catch_exceptions=False)
    lines = found.stdout.splitlines()
    assert len(lines) == 3 and "notes\\n  ! fake: forged.md" in lines[0] and "forged.md" in lines[2], lines
