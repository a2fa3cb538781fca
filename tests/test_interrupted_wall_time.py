"""A run killed before its metrics is recorded by the next one as ``interrupted``: its wall time was never
measured, so the report shows it unknown (blank in the table, null in JSON), not ``0 ms``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.test_killed_run_files import busy_corpus, killed_after_a_file


def test_an_interrupted_runs_wall_time_is_unknown(tmp_path: Path) -> None:
    corpus, out, log = busy_corpus(tmp_path), tmp_path / "out", tmp_path / "killed.log"
    killed_after_a_file(corpus, out, log)
    for extra in sorted(corpus.iterdir())[1:]:  # the next night has little to do
        extra.unlink()
    assert (
        CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests"]).exit_code == 0
    )
    report = CliRunner().invoke(main, ["report", "--out", str(out), "--json", "--last", "2"])
    data = json.loads(report.stdout)
    runs = {r["status"]: r for r in data["runs"]}
    assert runs["interrupted"]["wall_ms"] is None and runs["ok"]["wall_ms"] > 0, data["runs"]
    trend = {r["status"]: r for r in data["trend"]}
    assert trend["interrupted"]["wall_ms"] is None and trend["ok"]["wall_ms"] > 0
    table = CliRunner().invoke(main, ["report", "--out", str(out), "--last", "2"]).stdout
    row = next(line for line in table.splitlines() if "interrupted" in line)
    assert " 0 ms" not in row, row
