"""SIGTERM to a run's process group (a nightly job's ``timeout``) ends its workers as well as the run: the run
stops as docs/run.md says, without reporting the workers' end as a crash it worked around."""

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
from tests.test_killed_run_streams import _children_of


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc")
def test_sigterm_to_the_process_group_is_no_lost_workers_warning(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md").read_text(encoding="utf-8")
    for i in range(60):  # enough work that the run is still busy when it is stopped
        (corpus / f"log{i}.md").write_text(text.replace("buoy", f"buoy{i}"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(tmp_path / "out"), "--no-index"]
    proc = subprocess.Popen(
        [*cmd, "--processes", "2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        workers: list[int] = []
        for _ in range(600):  # bounded: the fork server and its workers appear within a minute
            workers = [w for server in _children_of(proc.pid) for w in _children_of(server)]
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert workers and proc.poll() is None, "the run ended before its workers were seen"
        os.killpg(proc.pid, signal.SIGTERM)  # as `timeout -s TERM` sends it: to the whole group
        out, err = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    said = out.decode() + err.decode()
    assert "interrupted by SIGTERM" in said, said
    assert "worker processes lost" not in said and "never retrieved" not in said, said
