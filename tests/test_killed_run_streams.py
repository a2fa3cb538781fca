"""A run killed with SIGKILL: a caller that reads its output to EOF before reaping it (cron,
``communicate()``) is not held up by the run's worker processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_CORPUS


def _children_of(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux)."""
    out: list[int] = []
    with contextlib.suppress(OSError):  # a process that ended meanwhile
        for task in (Path("/proc") / str(pid) / "task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc")
def test_killed_runs_output_reaches_eof_while_it_is_unreaped(tmp_path: Path) -> None:
    """The workers and their fork server hold neither the run's stdout nor its stderr, and see their run
    gone while it is a zombie (its caller reaps it only after EOF)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md").read_text(encoding="utf-8")
    for i in range(40):  # enough work that the run is still busy when it is killed
        (corpus / f"log{i}.md").write_text(text.replace("buoy", f"buoy{i}"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(tmp_path / "out"), "--no-index"]
    proc = subprocess.Popen(
        [*cmd, "--processes", "2", "--quiet", "--log-file", str(tmp_path / "run.log")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    workers: list[int] = []
    servers: list[int] = []
    try:
        for _ in range(600):  # bounded: the fork server and its workers appear within a minute
            servers = _children_of(proc.pid)
            workers = [w for server in servers for w in _children_of(server)]
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert workers and proc.poll() is None, "the run ended before its workers were seen"
        proc.send_signal(signal.SIGKILL)  # not reaped: communicate() reads to EOF first
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("the killed run's stdout/stderr stayed open (held by its worker processes)")
        assert proc.returncode == -signal.SIGKILL
    finally:
        for pid in [*workers, *servers]:  # whatever a failure left behind
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
