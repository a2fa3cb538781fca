"""A file that run after run skips (or fails) is one file in its section's heading, as the Overview counts it,
with a row per run."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def test_a_file_every_run_skips_is_one_file_in_the_heading(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "notes.md").write_text("We met at the harbour and agreed to repaint the pier before winter. " * 12)
    (src / "photo.md").write_bytes(b"\x00\x01\x02\x03" * 100)
    for _night in range(3):
        ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
        assert ran.exit_code == 1, ran.output
    report = ["report", "--out", str(out), "--last", "3"]
    data = json.loads(CliRunner().invoke(main, [*report, "--json"]).stdout)
    assert [f["relpath"] for f in data["skipped"]] == ["photo.md"] * 3  # a row per run
    assert data["totals"]["skipped"] == 1
    table = CliRunner().invoke(main, report).stdout
    assert "1 skipped" in table.split("Compression by level")[0]  # the Overview
    assert "Skipped files (1 file, in 3 runs)" in table, table
    markdown = CliRunner().invoke(main, [*report, "--format", "md"]).stdout
    assert "Skipped files (1 file, in 3 runs)" in markdown
    one = CliRunner().invoke(main, ["report", "--out", str(out)]).stdout
    assert "Skipped files (1)\n" in one
