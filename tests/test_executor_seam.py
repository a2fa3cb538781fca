"""The executor seam: another executor (summaries computed in worker threads, as remote workers would)
drives a run through the same Driver calls and leaves exactly the tree and state the local one does."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.engine.executor import Driver, Note, summarize
from batchsum.engine.records import NodeResult
from batchsum.model import Backend
from batchsum.planning import FilePlan
from batchsum.tree import iter_tree
from tests.conftest import SAMPLE_CORPUS


class ThreadedExecutor:
    """One file at a time, each computed node in a worker thread with its own event loop."""

    def __init__(self, backend: Backend, fallback: Backend) -> None:
        self.backend = backend
        self.fallback = fallback
        self.computed = 0

    async def execute(self, plans: AsyncIterator[FilePlan], driver: Driver) -> None:
        async for plan in plans:
            results: dict[str, NodeResult] = {}
            for node in plan.nodes:  # dependency order
                job = driver.job(plan, node, [results[c] for c in node.inputs], 1)
                out = driver.stored(job)
                reused = out is not None
                if out is None:
                    out = await asyncio.to_thread(asyncio.run, summarize(self.backend, self.fallback, job.request))
                    self.computed += 1
                results[node.node_id] = driver.node_finished(plan, job, out, reused)
            driver.file_finished(plan, [results[n.node_id] for n in plan.nodes], 0.0)

    async def aclose(self) -> None:
        await self.backend.aclose()

    def notes(self) -> list[Note]:
        return []


def _tree(out: Path) -> dict[str, tuple[str | None, str]]:
    return {str(n.path.relative_to(out)): (n.meta.get("node_key"), n.body) for n in iter_tree(out)}


def test_another_executor_commits_like_the_local_one(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    local = batchsum.run(RunConfig(paths=[corpus], out=tmp_path / "local", index=False, quiet=True))
    made: list[ThreadedExecutor] = []

    def factory(backend: Backend, fallback: Backend) -> ThreadedExecutor:
        made.append(ThreadedExecutor(backend, fallback))
        return made[-1]

    cfg = RunConfig(paths=[corpus], out=tmp_path / "threaded", index=False, quiet=True)
    threaded = batchsum.run(cfg, executor=factory)
    assert threaded.exit_code == local.exit_code == 0
    assert made and made[0].computed == threaded.run.nodes_computed - threaded.levels["NONE"] > 0
    assert _tree(tmp_path / "threaded") == _tree(tmp_path / "local")
    assert sorted((f.relpath, f.level, f.output_tokens) for f in threaded.files) == sorted(
        (f.relpath, f.level, f.output_tokens) for f in local.files
    )

    # The state it left is the local executor's: a local re-run finds nothing to do.
    again = batchsum.run(RunConfig(paths=[corpus], out=tmp_path / "threaded", index=False, quiet=True))
    assert again.run.files_unchanged == len(again.files) and again.run.nodes_computed == 0
    assert json.loads(json.dumps(again.as_json(), default=str))["exit_code"] == 0
