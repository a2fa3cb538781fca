"""``batchsum plan`` on a folder whose files sit at its top level: the top folder's digest is named as the
run titles it, and a digest whose input is under its cap is estimated at its input, as the run quotes it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

NOTE = "A short note about the harbour and a lantern we bought on the quay.\n"


def _plan(tmp_path: Path, *options: str) -> str:
    src = tmp_path / "gb3"
    src.mkdir(exist_ok=True)
    (src / "n.md").write_text(NOTE, encoding="utf-8")
    r = CliRunner().invoke(main, ["plan", str(src), "--out", str(tmp_path / "out"), *options])
    assert r.exit_code == 0, r.output
    return r.output


def test_plan_names_the_top_folder_digest_as_the_run_titles_it(tmp_path: Path) -> None:
    text = _plan(tmp_path)
    line = next(line for line in text.splitlines() if line.startswith("digests to redo"))
    assert "(top level)" in line and "folder:)" not in line, line
    periods = json.loads(_plan(tmp_path, "--json"))["periods"]
    assert periods["periods"] == ["folder:"] and periods["titles"] == ["(top level)"]


def test_plan_estimates_a_short_digest_at_its_input(tmp_path: Path) -> None:
    periods = json.loads(_plan(tmp_path, "--json"))["periods"]
    assert 0 < periods["est_output_tokens"] <= periods["input_tokens"], periods
