"""A --metrics-db shared by two output folders: each folder's snapshots and report hold its own runs only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.parquet import snapshotted_keys
from batchsum.metrics.store import default_parquet_dir
from tests.conftest import SAMPLE_CORPUS


def _run(corpus: Path, out: Path, db: Path) -> str:
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--metrics-db", str(db)])
    assert res.exit_code == 0, res.output
    runs = snapshotted_keys(default_parquet_dir(out), "runs")
    return max(runs)


def _report_runs(out: Path, db: Path) -> set[str]:
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--metrics-db", str(db), "--format", "json"])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return {r["run_id"] for r in data["trend"]}


def test_a_shared_metrics_database_keeps_each_folders_runs_apart(tmp_path: Path) -> None:
    db = tmp_path / "shared.duckdb"
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(SAMPLE_CORPUS / "logbook", first)
    shutil.copytree(SAMPLE_CORPUS / "meetings", second)
    run_a = _run(first, tmp_path / "out_a", db)
    run_b = _run(second, tmp_path / "out_b", db)
    # The second folder's snapshots were repaired from the database: they hold its run and not the first's.
    assert snapshotted_keys(default_parquet_dir(tmp_path / "out_b"), "runs") == {run_b}
    assert _report_runs(tmp_path / "out_b", db) == {run_b}
    assert _report_runs(tmp_path / "out_a", db) == {run_a}
    # Without snapshots the report reads the shared database itself: still this folder's runs only.
    shutil.rmtree(default_parquet_dir(tmp_path / "out_b"))
    assert _report_runs(tmp_path / "out_b", db) == {run_b}


def test_runs_with_a_relative_out_stay_in_the_folders_history_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "shared.duckdb"
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    shutil.copytree(SAMPLE_CORPUS / "logbook", work / "src")
    elsewhere.mkdir()
    monkeypatch.chdir(work)
    run = _run(Path("src"), Path("out"), db)  # --out typed relative, as a user would
    monkeypatch.chdir(elsewhere)
    shutil.rmtree(default_parquet_dir(work / "out"))  # the report reads the shared database itself
    assert _report_runs(work / "out", db) == {run}
    with duckdb.connect(str(db), read_only=True) as con:
        assert all(Path(d).is_absolute() for (d,) in con.execute("SELECT out_dir FROM runs").fetchall())
