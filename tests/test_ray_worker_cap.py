"""`--ray-workers N` above what the Ray cluster can schedule: the extractive workers (a CPU each) are capped
to the cluster's CPUs with one warning, and the run finishes (actors Ray could not place had stalled it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import batchsum
from batchsum.backends.registry import backend_class
from batchsum.config import RunConfig
from batchsum.engine.ray_executor import RayExecutor, RayOptions
from batchsum.tokens import get_tokenizer

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]  # two CPUs


def _corpus(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    for i in range(5):
        text = " ".join(f"On day {i} the crew mended net {k} and counted the catch at the harbour." for k in range(30))
        (src / f"note{i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    return src


def test_extractive_workers_are_capped_to_the_cluster_cpus(tmp_path: Path) -> None:
    cfg = RunConfig(paths=[_corpus(tmp_path)], out=tmp_path / "out", index=False, metrics=False, quiet=True)
    extractive = backend_class("extractive")(get_tokenizer(cfg.encoding), final_words=cfg.final_words)
    executor = RayExecutor(cfg, RayOptions(workers=4), extractive, extractive)
    try:
        assert len(executor.workers) == 2, "no worker Ray cannot place"
        assert [n.event for n in executor.notes()] == ["ray_workers_capped"]
        assert len(set(ray.get([w.pid.remote() for w in executor.workers], timeout=120))) == 2
    finally:
        for worker in executor.workers:  # not aclose(): it would wait for ever for a worker Ray never placed
            ray.kill(worker)


def test_a_run_asking_more_workers_than_cpus_finishes_with_one_warning(tmp_path: Path) -> None:
    result = batchsum.run(
        _corpus(tmp_path), out=tmp_path / "out", executor="ray", ray_workers=4, index=False, metrics=False, quiet=True
    )
    assert result.exit_code == 0 and result.run.files_done == 5, result.problems
    capped = [w for w in result.warnings if "--ray-workers 4" in w]
    assert len(capped) == 1 and "2 worker(s) started" in capped[0], result.warnings


def test_llm_workers_are_not_capped(tmp_path: Path) -> None:
    """An LLM worker waits on the network and asks no CPU: as many as asked for."""
    cfg = RunConfig(paths=[_corpus(tmp_path)], out=tmp_path / "out", index=False, metrics=False, quiet=True)
    cfg.llm.base_url, cfg.llm.model = "http://127.0.0.1:9/v1", "m"
    extractive = backend_class("extractive")(get_tokenizer(cfg.encoding), final_words=cfg.final_words)
    executor = RayExecutor(cfg, RayOptions(workers=3), extractive, extractive)
    try:
        assert len(executor.workers) == 3 and executor.notes() == []
        # Each one running, its limiter found by name
        assert len(set(ray.get([w.pid.remote() for w in executor.workers], timeout=120))) == 3
    finally:
        asyncio.run(executor.aclose())
