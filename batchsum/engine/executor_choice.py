"""Which executor a run uses: Ray when asked for, else the local one, with worker processes when
they pay (see :mod:`batchsum.engine.process_executor`)."""

from __future__ import annotations

from collections.abc import Sequence

from batchsum.config import RunConfig
from batchsum.engine.executor import ExecutorFactory, LocalExecutor
from batchsum.engine.process_executor import process_executor
from batchsum.lazy import load
from batchsum.walk import SourceRef

# Ray's executor, loaded when a run asks for it: its module imports the LLM backend and its HTTP
# client's rate limiter, ~30 ms of every plain run's start-up (make bench) for nothing.
RAY = "batchsum.engine.ray_executor:configured"


def executor_for(cfg: RunConfig, todo: Sequence[SourceRef] = ()) -> ExecutorFactory:
    """The executor a run's settings ask for (``--executor``) for reading the changed files of
    ``todo``. Ray is imported only when chosen: it is the heaviest import of all."""
    if cfg.executor == "ray":
        factory: ExecutorFactory = load(RAY)(cfg)
        return factory
    return process_executor(cfg, todo) or LocalExecutor
