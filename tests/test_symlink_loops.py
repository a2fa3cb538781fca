"""Symlink loops are named as loops and counted as skipped files, as docs/run.md says: two file links
pointing at each other, and a folder link back to a folder being walked."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

TEXT = "Walked to Abbotsford in the rain. The new roof of the library is finished at last.\n" * 8


def test_symlink_loops_are_named_and_counted_as_skipped(tmp_path: Path) -> None:
    src, out = tmp_path / "odd", tmp_path / "out"
    (src / "sub").mkdir(parents=True)
    (src / "scott_1825-11-21.md").write_text(TEXT, encoding="utf-8")
    (src / "loopa.md").symlink_to("loopb.md")
    (src / "loopb.md").symlink_to("loopa.md")
    (src / "sub" / "back").symlink_to("..")  # a folder loop below the top level
    (src / "broken.md").symlink_to("nowhere.md")

    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--json"], catch_exceptions=False)
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    reasons = {p["relpath"]: p["reason"] for p in data["problems"]}
    assert reasons["loopa.md"] == reasons["loopb.md"] == "symlink loop, skipped"
    assert reasons["broken.md"] == "broken symlink, skipped"  # a link to nothing is still broken
    assert reasons["sub/back"].startswith("symlink loop")
    skipped = sorted(f["relpath"] for f in data["files"] if f["status"] == "skipped")
    assert skipped == ["broken.md", "loopa.md", "loopb.md", "sub/back"]
    assert data["run"]["files_skipped"] == 4

    report = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"], catch_exceptions=False)
    listed = {s["relpath"]: s["error"] for s in json.loads(report.stdout)["skipped"]}
    assert listed.keys() == {"broken.md", "loopa.md", "loopb.md", "sub/back"}
    assert listed["loopa.md"] == "symlink loop, skipped"
