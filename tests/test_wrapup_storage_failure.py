"""A run whose state cannot be stored at wrap-up (a full disk) is still a recorded night: it logs
``run_finished`` with the cause and its metrics row, instead of ending with only an error line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.state import SNAPSHOT_NAME


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_snapshot_that_cannot_be_written_still_records_the_run(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Day\n\nWe moved the boat to the north dock. The pump works again.\n", "utf-8")
    out = tmp_path / "out"
    assert _invoke("run", str(corpus), "--out", str(out), "--no-index").exit_code == 0
    # Root writes through a read-only mode; a folder where the snapshot file belongs stops it too.
    snapshot = out / ".batchsum" / SNAPSHOT_NAME
    snapshot.unlink()
    (snapshot / "in-the-way").mkdir(parents=True)
    log = tmp_path / "night.jsonl"
    res = _invoke("run", str(corpus), "--out", str(out), "--no-index", "--json", "--log-file", str(log),
                  "--log-format", "json")  # fmt: skip
    assert res.exit_code == 1, res.output
    night = json.loads(res.stdout)
    assert night["run"]["status"] == "aborted" and SNAPSHOT_NAME in night["stopped_by"]
    finished = [e for e in _events(log) if e["event"] == "run_finished"]
    assert len(finished) == 1 and finished[0]["exit_code"] == 1 and finished[0]["status"] == "aborted"
    assert SNAPSHOT_NAME in finished[0]["stopped_by"]
    report = json.loads(_invoke("report", "--out", str(out), "--json", "--last", "5").stdout)
    recorded = {r["run_id"]: r["status"] for r in report["runs"]}
    assert recorded[night["run"]["run_id"]] == "aborted"
