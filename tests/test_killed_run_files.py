"""A run killed with SIGKILL is recorded with the files it finished (from its journal): the next run finds
them unchanged, as made by the killed run, and their tokens are that run's, not lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.store import default_db_path
from tests.conftest import SAMPLE_CORPUS


def killed_after_a_file(corpus: Path, out: Path, log: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), "--no-index", "--no-digests"]
    proc = subprocess.Popen([*cmd, "--processes", "1", "-q", "--log-file", str(log), "--log-format", "json"], env=env)
    try:
        for _ in range(1200):  # bounded: a first file is done within two minutes
            if (log.is_file() and "file_done" in log.read_text(encoding="utf-8")) or proc.poll() is not None:
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it was killed"


def busy_corpus(tmp_path: Path) -> Path:
    """Ten copies of the sample logbook: enough work that a run is still busy when it is killed after its first."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md").read_text(encoding="utf-8")
    for i in range(10):
        (corpus / f"log{i}.md").write_text(text.replace("buoy", f"buoy{i}"), encoding="utf-8")
    return corpus


def test_a_killed_runs_finished_files_are_its_own(tmp_path: Path) -> None:
    corpus, out, log = busy_corpus(tmp_path), tmp_path / "out", tmp_path / "killed.log"
    killed_after_a_file(corpus, out, log)
    events = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    killed = next(e["run_id"] for e in events if e.get("event") == "run_started")
    # Every file it logged done was journaled first (the kill may have come after a few more).
    logged = {e["relpath"] for e in events if e.get("event") == "file_done"}
    assert logged
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "-q"])
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(default_db_path(out)), read_only=True)
    try:
        run = con.execute("SELECT status, files_done, input_tokens FROM runs WHERE run_id = ?", [killed]).fetchone()
        rows = con.execute("SELECT relpath, status, input_tokens FROM files WHERE run_id = ?", [killed]).fetchall()
        later = dict(con.execute("SELECT relpath, status FROM files WHERE run_id <> ?", [killed]).fetchall())
    finally:
        con.close()
    done = {relpath for relpath, status, _ in rows if status == "done"}
    assert run is not None and run[0] == "interrupted"
    assert logged <= done and run[1] == len(done)
    assert run[2] == sum(tokens for _, _, tokens in rows) > 0
    assert all(later[relpath] == "unchanged" for relpath in done)
