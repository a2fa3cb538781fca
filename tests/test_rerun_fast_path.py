"""The unchanged nightly re-run: one manifest file, no event loop, no DuckDB, nothing lost.

A re-run that finds nothing to do defers its metrics as JSON (reports include them, the next
run that records folds them into the database) and reads the manifest from one snapshot file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.store import MAX_PENDING_RUNS, pending_dir, pending_runs
from batchsum.state import SNAPSHOT_NAME, StateStore

PARAGRAPH = (
    "We walked to the harbour before breakfast and counted the boats that had come in overnight. "
    "The fishermen argued about the price of ice, and the harbour master promised a new crane by spring. "
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    c = tmp_path / "corpus"
    c.mkdir()
    for i in range(6):
        (c / f"2024-03-0{i + 1}.md").write_text(f"# Day {i}\n\n" + PARAGRAPH * (3 + 8 * i))
    return c


def run(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def db_runs(out: Path) -> dict[str, int]:
    """run_id -> number of file rows, read from the DuckDB file itself."""
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    try:
        ids = [r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()]
        return {i: con.execute("SELECT count(*) FROM files WHERE run_id = ?", [i]).fetchone()[0] for i in ids}
    finally:
        con.close()


def report_run_ids(out: Path, last: int) -> list[str]:
    r = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json", "--last", str(last)])
    assert r.exit_code == 0, r.output
    return [row["run_id"] for row in json.loads(r.stdout)["runs"]]


def test_unchanged_rerun_defers_metrics_until_a_run_records(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run(corpus, out)["run"]["run_id"]
    second = run(corpus, out)
    assert second["run"]["nodes_computed"] == 0
    quiet_id = second["run"]["run_id"]
    parquet = out / ".batchsum" / "parquet"
    assert [p.name for p in pending_runs(parquet)] == [quiet_id]
    assert set(db_runs(out)) == {first}  # the quiet run did not open the database

    # Reports include the deferred run, with its per-file rows.
    assert set(report_run_ids(out, 2)) == {first, quiet_id}
    r = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"])
    latest = json.loads(r.stdout)
    assert latest["runs"][0]["run_id"] == quiet_id
    assert latest["runs"][0]["files_unchanged"] == 6

    # A run that changes something folds the deferred run into the database and its snapshots.
    (corpus / "2024-03-02.md").write_text("# Day 1\n\n" + PARAGRAPH * 20)
    third = run(corpus, out)["run"]["run_id"]
    assert pending_runs(parquet) == []
    rows = db_runs(out)
    assert set(rows) == {first, quiet_id, third}
    assert rows[quiet_id] == 6
    assert (parquet / "runs" / f"run_id={quiet_id}" / "part-0.parquet").is_file()
    assert set(report_run_ids(out, 3)) == {first, quiet_id, third}


def test_deferred_runs_are_capped(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    for _ in range(MAX_PENDING_RUNS):
        run(corpus, out)
    parquet = out / ".batchsum" / "parquet"
    assert len(pending_runs(parquet)) == MAX_PENDING_RUNS
    run(corpus, out)  # one more quiet run records normally and folds the backlog
    assert pending_runs(parquet) == []
    assert len(db_runs(out)) == MAX_PENDING_RUNS + 2


def test_incomplete_deferred_run_is_ignored(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    parquet = out / ".batchsum" / "parquet"
    # A run killed while deferring leaves files rows but no runs row: it never happened.
    half = pending_dir(parquet) / "20990101T000000Z-dead00"
    half.mkdir(parents=True)
    (half / "files.json").write_text("[{}]")
    assert pending_runs(parquet) == []
    r = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json", "--last", "5"])
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["runs"]) == 1


def test_deferred_run_torn_by_a_power_cut_is_skipped_then_dropped(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    first = run(corpus, out)["run"]["run_id"]
    torn = run(corpus, out)["run"]["run_id"]
    kept = run(corpus, out)["run"]["run_id"]
    parquet = out / ".batchsum" / "parquet"
    # Pending files are not fsynced: after a power cut a renamed file can be empty or cut short.
    (pending_dir(parquet) / torn / "files.json").write_bytes(b"")
    assert set(report_run_ids(out, 5)) == {first, kept}
    (corpus / "2024-03-02.md").write_text("# Day 1\n\n" + PARAGRAPH * 20)
    third = run(corpus, out)["run"]["run_id"]
    assert pending_runs(parquet) == []
    assert set(db_runs(out)) == {first, kept, third}
    assert any(torn in r.getMessage() and "torn" in r.getMessage() for r in caplog.records)


def test_unchanged_rerun_loads_no_heavy_module(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    # The modules loaded, read at exit (-X importtime leaves out those batchsum.lazy.load imports by name).
    code = (
        "import atexit, json, sys; atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr));"
        "from batchsum.cli import entry; sys.argv[0] = 'batchsum'; entry()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "run", str(corpus), "--out", str(out), "--no-index"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert "batchsum.engine.orchestrator" in imported  # what was read is the run's modules
    backends = ("batchsum.backends.registry", "batchsum.backends.extractive", "batchsum.backends.llm")
    work = ("batchsum.engine.execute", "batchsum.digests", "batchsum.index.store")  # the orchestrator's _WORK
    for heavy in ("duckdb", "asyncio", "yaml", "tiktoken", "numpy", "batchsum.planning", *backends, *work):
        assert heavy not in imported, f"{heavy} imported by an unchanged re-run"
    assert "unchanged" in proc.stdout


def test_manifest_snapshot_tracks_every_write(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    state = out / ".batchsum"
    snap = json.loads((state / SNAPSHOT_NAME).read_text())
    assert len(snap["rows"]) == 6

    store = StateStore(state)
    entries = store.load_manifest()
    entry = entries["2024-03-01.md"]
    entry.depth = 7
    store.save_entry(entry)
    # The first per-source write removes the snapshot: a crash from here on cannot leave it stale.
    assert not (state / SNAPSHOT_NAME).exists()
    assert StateStore(state).load_manifest()["2024-03-01.md"].depth == 7  # read from the per-source files
    store.write_snapshot()
    assert StateStore(state).load_manifest()["2024-03-01.md"].depth == 7  # and from the snapshot


def test_corrupt_snapshot_falls_back_to_per_source_files(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    snap = out / ".batchsum" / SNAPSHOT_NAME
    snap.write_text('{"version": 1, "columns": ["relpath"], "rows": [["a.md"')
    again = run(corpus, out)
    assert again["run"]["files_unchanged"] == 6
    assert again["run"]["nodes_computed"] == 0
    assert len(json.loads(snap.read_text())["rows"]) == 6  # rewritten whole


def test_edit_after_snapshot_is_detected(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    (corpus / "2024-03-04.md").write_text("# Day 3\n\n" + PARAGRAPH * 30 + "A new closing line about the crane.\n")
    (corpus / "2024-03-01.md").unlink()
    d = run(corpus, out)
    status = {f["relpath"]: f["status"] for f in d["files"]}
    assert status["2024-03-04.md"] == "done"
    assert status["2024-03-01.md"] == "deleted"
    doc = json.loads((out / ".batchsum" / SNAPSHOT_NAME).read_text())
    snap = {row[0]: dict(zip(doc["columns"], row, strict=True)) for row in doc["rows"]}
    assert "2024-03-01.md" not in snap
    assert snap["2024-03-04.md"]["size"] == (corpus / "2024-03-04.md").stat().st_size
    assert run(corpus, out)["run"]["nodes_computed"] == 0


def test_snapshot_from_another_version_is_read_by_column_name(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    snap = out / ".batchsum" / SNAPSHOT_NAME
    doc = json.loads(snap.read_text())
    drop = doc["columns"].index("final_tokens")
    doc["columns"] = [c for i, c in enumerate(doc["columns"]) if i != drop] + ["field_from_the_future"]
    doc["rows"] = [[v for i, v in enumerate(r) if i != drop] + ["x"] for r in doc["rows"]]
    snap.write_text(json.dumps(doc))
    entries = StateStore(out / ".batchsum").load_manifest()
    assert len(entries) == 6
    assert all(e.final_tokens == 0 and e.sha256 for e in entries.values())
    assert run(corpus, out)["run"]["nodes_computed"] == 0
