"""With ``--executor ray``, an LLM run's digests pass the cluster-wide limiter like its files' requests:
made on the run's executor before it closes, or, in a run with no file to summarize, on an executor of
the same kind built for them (a named limiter is then the one every run shares)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from batchsum.config import LLMConfig, RunConfig
from batchsum.engine.orchestrator import run
from tests.fakeserver import FakeLLMServer
from tests.test_digest_failed_requests import DIGEST, run_failing_february
from tests.test_digests import DAYS, entry

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]


def test_llm_digests_under_ray_go_through_the_cluster_limiter(tmp_path: Path) -> None:
    from batchsum.engine.limiter import LIMITER_NAMESPACE

    src = tmp_path / "journal"
    src.mkdir()
    for i, day in enumerate(DAYS):
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    name = f"test-digests-{os.getpid()}"
    log = tmp_path / "log.jsonl"
    with FakeLLMServer() as server:

        def once() -> list[str]:
            cfg = RunConfig(paths=[src], out=tmp_path / "out", index=False, metrics=False, quiet=True)
            cfg.executor, cfg.ray_workers, cfg.ray_limiter = "ray", 1, name
            cfg.log_file, cfg.log_format = log, "json"
            cfg.llm = LLMConfig(base_url=server.base_url, model="fake", rpm=None, tpm=None, concurrency=2)
            assert run(cfg).exit_code == 0
            events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            return [p for e in events if e["event"] == "digests_updated" for p in e["redone"]]

        try:
            first = once()
            assert len(first) == 5  # three months, two years: made on the run's own Ray executor
            # No file to summarize: the digests alone need the LLM. The later November day goes, so that
            # November's new digest differs from its old one and the year's prompt is not one the
            # response cache has already answered.
            (src / f"{DAYS[1]}.md").unlink()
            log.unlink()
            assert once() == ["month:2025-11", "year:2025"]
            sent = len(server.log)
            stats = ray.get(ray.get_actor(name, namespace=LIMITER_NAMESPACE).stats.remote())
        finally:
            ray.kill(ray.get_actor(name, namespace=LIMITER_NAMESPACE))
    assert sent == len(DAYS) + 5 + 2  # a request per entry, the five digests, then a month and a year again
    assert stats["granted"] == sent and stats["inflight"] == 0, "every request went through the limiter"


@pytest.mark.parametrize("on_error", ["abort", "fail"])
def test_a_failing_digest_under_ray_counts_the_requests_it_sent(tmp_path: Path, on_error: str) -> None:
    """A digest failing on a Ray worker: the requests it sent cross back with its error and count in the
    run's llm_calls, which equals the server's request count."""
    res, sent, failed, _ = run_failing_february(tmp_path, on_error, "--executor", "ray", "--ray-workers", "1")
    data = json.loads(res.stdout)
    assert failed and all(DIGEST in e.prompt_text for e in failed), res.output
    assert data["run"]["llm_calls"] == sent, res.output
