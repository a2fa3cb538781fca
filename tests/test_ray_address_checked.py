"""`--executor ray`: an address that is no Ray head, or `auto` with nothing to name, stops `run` and `plan`
alike with one error line (exit 2) before the output folder exists; a `--quiet` LLM run stopped by SIGTERM
prints none of the cluster's notices.

Ray's ``ray.init`` on an address that accepts connections but is no GCS (an HTTP server, a raylet's gRPC
port) retries for ever: those runs are real processes, so an old build that hangs fails on the timeout
instead of hanging the suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import REPO
from tests.fakeserver import FakeLLMServer

grpc = pytest.importorskip("grpc")
pytest.importorskip("ray")
pytestmark = pytest.mark.ray

HANG_GUARD_S = 240  # far beyond the check's 5 s: only a run that waits for ever reaches it


def _tiny(root: Path) -> Path:
    corpus = root / "tiny"
    corpus.mkdir()
    (corpus / "a.md").write_text("Today I walked to the harbour and counted the boats.\n", encoding="utf-8")
    (corpus / "b.md").write_text("We decided to ship on Friday. Bob writes the docs.\n", encoding="utf-8")
    return corpus


@pytest.fixture
def grpc_not_gcs() -> Iterator[str]:
    """A gRPC server with no Ray service, as a raylet's node-manager port is to a client looking for the GCS."""
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


@pytest.mark.parametrize("kind", ["http", "grpc"])
def test_an_address_that_is_no_ray_head_stops_at_once(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    out = tmp_path / "out"
    with FakeLLMServer().start() as http:
        address = (
            http.base_url.split("//")[1].split("/")[0] if kind == "http" else request.getfixturevalue("grpc_not_gcs")
        )
        proc = subprocess.run(
            [sys.executable, "-m", "batchsum", "run", str(_tiny(tmp_path)), "--out", str(out), "--no-index",
             "--executor", "ray", "--ray-address", address],
            capture_output=True, text=True, timeout=HANG_GUARD_S, env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"not a Ray head (GCS) at {address}" in errors[0], proc.stderr[-2000:]
    assert "token" not in errors[0]  # nothing refused a token: nothing answered as a cluster
    assert not out.exists()


def test_auto_without_ray_address_stops_run_and_plan_before_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    corpus, out = _tiny(tmp_path), tmp_path / "out"
    args = [str(corpus), "--out", str(out), "--no-index", "--executor", "ray", "--ray-address", "auto"]
    ran = CliRunner().invoke(main, ["run", *args])
    assert ran.exit_code == 2, ran.output
    assert "needs RAY_ADDRESS" in ran.output
    assert not out.exists()  # no lock, no remembered settings, no journal for the next run to call interrupted
    planned = CliRunner().invoke(main, ["plan", *args])
    assert planned.exit_code == 2, planned.output
    assert "needs RAY_ADDRESS" in planned.output


def _events(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_quiet_ray_run_stopped_by_sigterm_prints_no_ray_notice(tmp_path: Path) -> None:
    """The workers' pending calls, retried when the stopped run kills its workers, were each announced by
    Ray on stdout in colour ("(raylet) Task SummaryWorker.summarize failed ... [repeated 38x]")."""
    corpus, out, log = tmp_path / "corpus", tmp_path / "out", tmp_path / "events.jsonl"
    corpus.mkdir()
    for i in range(12):
        turns = "\n".join(f"Ana: We counted boat {i}-{k} at the harbour and logged it." for k in range(40))
        (corpus / f"call{i}.txt").write_text(turns + "\n", encoding="utf-8")
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, latency=1.0)  # many calls wait at the worker when the run stops
        args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "--executor", "ray",
                "--ray-workers", "1", "--base-url", server.base_url, "--model", "m", "--concurrency", "2",
                "--rpm", "0", "--quiet", "--log-file", str(log), "--log-format", "json"]  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-m", "batchsum", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and proc.poll() is None:
                if any(e["event"] == "file_done" for e in _events(log)):
                    break
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 1, stderr[-2000:]
    assert "run aborted: interrupted by SIGTERM" in stderr, stderr[-2000:]
    assert stdout == "", stdout[-2000:]  # --quiet: nothing but errors, and those go to stderr
    assert "(raylet)" not in stderr and "\x1b[" not in stderr, stderr[-2000:]
