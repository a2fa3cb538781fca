"""A shared Ray limiter (``--ray-limiter``) outlives the runs that name it: whatever a run's workers report
to it for the usage journal must leave with the run, with ``--no-metrics`` as without."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from batchsum.config import RunConfig
from batchsum.engine.limiter import LIMITER_NAMESPACE
from batchsum.engine.orchestrator import run
from batchsum.engine.ray_executor import RayOptions
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer
from tests.test_ray_executor import Recording, llm_config

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]


def _kept(limiter: Any) -> dict[str, int]:
    """The answered requests the limiter still holds, per run."""
    return ray.get(limiter.__ray_call__.remote(lambda self: {r: len(v) for r, v in self._paid.items()}))


@pytest.mark.parametrize("metrics", [False, True], ids=["no-metrics", "metrics"])
def test_a_shared_limiter_keeps_nothing_of_a_finished_run(tmp_path: Path, metrics: bool) -> None:
    name = f"test-paid-{os.getpid()}-{metrics}"
    out = tmp_path / "out"
    cfg = RunConfig(paths=[SAMPLE_CORPUS], out=out, index=False, metrics=metrics, quiet=True, digests=False)
    try:
        with FakeLLMServer() as server:
            cfg.llm = llm_config(server.base_url, concurrency=3, cache=False)
            factory = Recording(cfg, RayOptions(workers=1, limiter=name))
            result = run(cfg, executor=factory)
            assert result.exit_code == 0 and server.request_count > 0
        assert _kept(ray.get_actor(name, namespace=LIMITER_NAMESPACE)) == {}
    finally:
        ray.kill(ray.get_actor(name, namespace=LIMITER_NAMESPACE))
