"""`kill -9` of a `--executor ray` driver while its workers' nodes wait for their next LLM request: the
requests already answered reach the driver's usage journal through the limiter as they arrive, and the
next run records each of them once in the killed run's ``interrupted`` row."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.fakeserver import FakeLLMServer
from tests.test_killed_run_requests import DIALOGUES, JSON_ASK, resumed_and_counted

pytest.importorskip("ray")
pytestmark = pytest.mark.ray

BOUND_S = 240.0  # Ray takes seconds (tens on a busy machine) to start; never an assertion on time


def _journaled_requests(out: Path) -> int:
    return sum(
        1 for p in (out / ".batchsum" / "usage").glob("*.jsonl") for x in p.read_bytes().splitlines()
        if x.startswith(b'{"paid":')
    )  # fmt: skip


def test_requests_a_ray_worker_had_answered_before_a_kill_are_counted_once(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    for i, text in enumerate(DIALOGUES):
        (corpus / f"chat{i}.txt").write_text(text + "\n", encoding="utf-8")
    rules = [{"match": JSON_ASK, "malformed_json": True}, {"hang": 60.0}]
    # A Ray of its own: its own temporary folder (short: Ray's socket paths), in the driver's process group.
    ray_tmp = tempfile.mkdtemp(prefix="bsray", dir="/tmp")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "RAY_TMPDIR": ray_tmp}
    with FakeLLMServer(rules=rules) as server:
        cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), "--base-url", server.base_url,
               "--model", "fake", "--concurrency", "3", "--no-index", "--no-digests", "-q", "--executor", "ray",
               "--ray-workers", "1"]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + BOUND_S
            while time.monotonic() < deadline and proc.poll() is None:
                retries = len([e for e in server.log if JSON_ASK not in e.prompt_text])
                if retries >= len(DIALOGUES) and _journaled_requests(out) >= len(DIALOGUES):
                    break
                time.sleep(0.05)
            assert proc.poll() is None, "the run ended before it was killed"
            answered = len([e for e in server.log if e.finish is not None])
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the driver's local Ray (raylet, GCS, workers)
            except ProcessLookupError:
                pass
            proc.wait(timeout=30)
            shutil.rmtree(ray_tmp, ignore_errors=True)
        assert answered == len(DIALOGUES)  # the facets requests, answered; their retries still hanging
        resumed_and_counted(corpus, out, server, answered)
