"""LLM spend is never lost: a run killed with -9 has its calls recorded by the next run."""

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
from tests.conftest import REPO, SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


def _journal_lines(out: Path) -> int:
    """Node lines in the journals: not the line of the run's start, its requests' nor its finished files' (a
    file summarized without the LLM is journaled with no node line)."""
    lines = [x for p in (out / ".batchsum" / "usage").glob("*.jsonl") for x in p.read_bytes().splitlines()]
    return sum(1 for x in lines if not x.startswith((b'{"run":', b'{"file":', b'{"paid":')))


def test_a_killed_runs_llm_calls_reach_the_metrics(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, latency=0.3)
        args = ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--base-url", server.base_url,
                "--model", "m", "--concurrency", "1", "--rpm", "0", "--tpm", "0", "--no-index"]  # fmt: skip
        proc = subprocess.Popen([sys.executable, "-m", "batchsum", *args], cwd=REPO)
        try:
            for _ in range(600):  # bounded: at most ~60 s for a few nodes to finish
                if _journal_lines(out) >= 3 or proc.poll() is not None:
                    break
                time.sleep(0.1)
            assert proc.poll() is None, "the run ended before it could be killed"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        journaled = _journal_lines(out)
        assert journaled >= 3
        killed_run = next((out / ".batchsum" / "usage").glob("*.jsonl")).stem
        # The next run (resuming) folds the killed run's usage into the metrics.
        res = CliRunner().invoke(main, [*args, "--json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["run"]["status"] == "ok"
    assert not list((out / ".batchsum" / "usage").glob("*.jsonl"))
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    try:
        status, calls, prompt = con.execute(
            "SELECT status, llm_calls, prompt_tokens FROM runs WHERE run_id = ?", [killed_run]
        ).fetchone()
        nodes = con.execute("SELECT count(*) FROM nodes WHERE run_id = ?", [killed_run]).fetchone()[0]
    finally:
        con.close()
    assert status == "interrupted" and calls >= journaled and prompt > 0 and nodes == journaled
    report = CliRunner().invoke(main, ["report", "--out", str(out), "--last", "2", "--json"])
    assert report.exit_code == 0
    assert killed_run in report.stdout
