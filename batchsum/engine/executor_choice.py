"""Which executor a run uses: Ray when asked for, else the local one, with worker processes when
they pay (see :mod:`batchsum.engine.workers`).

Light to import: a run chooses its executor as soon as it knows its changed files, so its worker
processes start before it loads the event loop, the executors and the summarizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from batchsum.config import RunConfig
from batchsum.engine.workers import start_workers
from batchsum.lazy import load
from batchsum.walk import SourceRef

if TYPE_CHECKING:
    from batchsum.engine.executor import ExecutorFactory

# The executors, loaded once chosen: Ray's module imports the LLM backend and its HTTP client's rate
# limiter, ~30 ms of every plain run's start-up (make bench) for nothing; the local ones the event loop.
RAY = "batchsum.engine.ray_executor:configured"
PROCESSES = "batchsum.engine.process_executor:process_executor"
LOCAL = "batchsum.engine.executor:LocalExecutor"


def executor_for(cfg: RunConfig, todo: Sequence[SourceRef] = ()) -> ExecutorFactory:
    """The executor a run's settings ask for (``--executor``) for reading the changed files of
    ``todo``. Ray is imported only when chosen: it is the heaviest import of all."""
    if cfg.executor == "ray":
        factory: ExecutorFactory = load(RAY)(cfg)
        return factory
    workers = start_workers(cfg, todo)  # first: the fork server starts while the executor's modules load
    factory = load(PROCESSES)(cfg, todo, workers) if workers is not None else load(LOCAL)
    return factory
