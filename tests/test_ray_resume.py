"""`kill -9` of a `--executor ray` driver, then a run with the local executor resumes it.

The driver starts its own local Ray (as `batchsum run --executor ray` does without --ray-address);
the workers' LLM responses reach the node store through the driver, so what was recorded before the
kill is never asked of the server again, whichever executor resumes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from batchsum.backends.cache import cache_key
from batchsum.config import LLMConfig
from batchsum.tree import iter_tree, node_path
from tests.fakeserver import FakeLLMServer, LogEntry
from tests.test_incremental import journal_text

pytest.importorskip("ray")
pytestmark = pytest.mark.ray

REPO = Path(__file__).resolve().parent.parent


def _cmd(corpus: Path, out: Path, base_url: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "batchsum",
        "run",
        str(corpus),
        "--out",
        str(out),
        "--base-url",
        base_url,
        "--model",
        "fake",
        "--concurrency",
        "2",
        "--rpm",
        "0",
        "--tpm",
        "0",
        "--no-index",
        "--no-metrics",
        "--no-facets",
        "-q",
        "--json",
        *extra,
    ]


def _stored(out: Path) -> set[str]:
    return {p.stem for p in (out / ".batchsum" / "nodes").glob("*/*.json")}


def test_kill9_of_the_ray_driver_then_the_local_executor_resumes(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "journal").mkdir(parents=True)
    (corpus / "journal" / "long.md").write_text(journal_text(7, 120))
    for i in range(4):
        (corpus / f"note{i}.md").write_text(journal_text(20 + i, 6))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cache_root = out / ".batchsum" / "llm-cache"
    with FakeLLMServer(latency=0.3) as server:
        # Its own session: the local Ray it starts is in the driver's process group, cleaned up below.
        proc = subprocess.Popen(
            _cmd(corpus, out, server.base_url, "--executor", "ray", "--ray-workers", "2"),
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 240  # Ray takes seconds (tens on a busy machine) to start
            while len(_stored(out)) < 3 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert proc.poll() is None, f"run ended before the kill: {proc.stderr.read() if proc.stderr else ''}"
            assert len(_stored(out)) >= 3, "no node was recorded in time"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            kill_at = time.time()
            stored = _stored(out)
            persisted = {p.stem for p in cache_root.glob("*/*.json")}
        finally:
            # The driver's local Ray (raylet, GCS, agents, workers) is in its process group.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=30)
        final = subprocess.run(
            _cmd(corpus, out, server.base_url), env=env, cwd=REPO, capture_output=True, text=True, timeout=300
        )
        assert final.returncode == 0, final.stderr
        log = server.log
        # An unchanged re-run with --executor ray never needs Ray: it must not even import it.
        again = subprocess.run(
            [sys.executable, "-X", "importtime", *_cmd(corpus, out, server.base_url, "--executor", "ray")[1:]],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert again.returncode == 0, again.stderr[-2000:]
    imported = [line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines() if "|" in line]
    assert "batchsum" in imported and not [m for m in imported if m == "ray" or m.startswith("ray.")]
    assert json.loads(again.stdout)["run"]["files_unchanged"] == 5
    summary = json.loads(final.stdout)
    assert summary["run"]["files_done"] + summary["run"]["files_unchanged"] == 5
    assert summary["run"]["files_done"] >= 1, "the long file was still running at the kill"
    assert summary["run"]["nodes_reused"] >= len(stored) - 1, "the nodes recorded before the kill are reused"
    temperature = LLMConfig().temperature

    def key(e: LogEntry) -> str:
        return cache_key(e.model, e.messages, {"max_tokens": e.max_tokens, "temperature": temperature})

    assert persisted and persisted <= {key(e) for e in log}, "the server log rebuilds the workers' cache keys"
    later = {key(e) for e in log if e.arrival > kill_at}
    assert not persisted & later, f"{len(persisted & later)} finished request(s) sent again after the kill"
    assert node_path(out, "journal/long.md", 3, None).exists()
    assert all(n.meta["backend"] == "llm" for n in iter_tree(out))
