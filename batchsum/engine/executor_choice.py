"""Which executor a run uses: Ray when asked for, else the local one, with worker processes when
they pay (see :mod:`batchsum.engine.process_executor`)."""

from __future__ import annotations

from collections.abc import Sequence

from batchsum.config import RunConfig
from batchsum.engine.executor import ExecutorFactory, LocalExecutor
from batchsum.engine.process_executor import process_executor
from batchsum.engine.ray_executor import RayOptions, ray_executor
from batchsum.walk import SourceRef


def executor_for(cfg: RunConfig, todo: Sequence[SourceRef] = ()) -> ExecutorFactory:
    """The executor a run's settings ask for (``--executor``) for reading the changed files of
    ``todo``. Ray is imported only when chosen: it is the heaviest import of all."""
    if cfg.executor == "ray":
        return ray_executor(cfg, RayOptions(address=cfg.ray_address, workers=cfg.ray_workers, limiter=cfg.ray_limiter))
    return process_executor(cfg, todo) or LocalExecutor
