"""`--executor ray` in a real ``batchsum run`` process with its own local Ray: a SIGTERM stops it as it stops
a local run, and an LLM run's stderr holds none of Ray's notices (``--quiet``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import FakeLLMServer

pytest.importorskip("ray")
pytestmark = pytest.mark.ray

REPO = Path(__file__).resolve().parent.parent


def _corpus(root: Path, files: int) -> Path:
    corpus = root / "corpus"
    corpus.mkdir()
    for i in range(files):
        turns = "\n".join(f"Ana: We counted boat {i}-{k} at the harbour and logged it." for k in range(40))
        (corpus / f"call{i}.txt").write_text(turns + "\n", encoding="utf-8")
    return corpus


def _start(corpus: Path, out: Path, server: FakeLLMServer, *extra: str) -> subprocess.Popen[str]:
    args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "--executor", "ray",
            "--ray-workers", "1", "--base-url", server.base_url, "--model", "m", "--concurrency", "1",
            "--rpm", "0", *extra]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-m", "batchsum", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def _events(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_sigterm_stops_a_ray_run_that_keeps_and_records_what_finished(tmp_path: Path) -> None:
    """Ray's own SIGTERM handler had aborted the process (exit 134, a C++ stack dump): no closing line,
    no ``run_finished``, no run recorded. The run's handler is kept, so it stops as a local run does."""
    corpus, out, log = _corpus(tmp_path, 6), tmp_path / "out", tmp_path / "events.jsonl"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, latency=1.0)  # a file a second, one at a time
        proc = _start(corpus, out, server, "--log-file", str(log), "--log-format", "json")
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and proc.poll() is None:
                if any(e["event"] == "file_done" for e in _events(log)):
                    break
                time.sleep(0.1)  # until a file is done; each of the rest waits a second for its answer
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert "SIGTERM received" not in stderr, stderr
    assert proc.returncode == 1, stderr
    assert "ABORTED: interrupted by SIGTERM; finished work was kept" in stdout, stdout
    events = _events(log)
    finished = [e for e in events if e["event"] == "run_finished"]
    assert len(finished) == 1 and finished[0]["status"] == "aborted", finished
    assert 1 <= sum(e["event"] == "file_done" for e in events) < 6


def test_an_llm_ray_run_shows_no_ray_notice_with_quiet(tmp_path: Path) -> None:
    """The limiter's handle among the workers' constructor arguments made Ray warn on every LLM run that a
    restart could fail; the workers find the limiter by name."""
    corpus, out = _corpus(tmp_path, 2), tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        proc = _start(corpus, out, server, "--quiet")
        try:
            _, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, stderr
    assert "object store" not in stderr and "max_restarts" not in stderr, stderr
