"""batchsum: summarize, measure and search large folders of text, offline by default.

The library API (the CLI is built on it)::

    import batchsum
    from batchsum.config import RunConfig

    result = batchsum.run(RunConfig(paths=[Path("journal")], out=Path("out")))
    print(result.summary_line())
    preview = batchsum.plan(cfg)                       # what a run would do, writes nothing

Each function imports its stage on first call, so ``import batchsum`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.engine.executor import ExecutorFactory
    from batchsum.engine.preview import PlanSummary
    from batchsum.engine.records import RunResult

__version__ = "0.1.0"

__all__ = ["__version__", "plan", "run"]


def run(cfg: RunConfig, *, executor: ExecutorFactory | None = None) -> RunResult:
    """Summarize ``cfg.paths`` into the tree under ``cfg.out``; incremental, crash-safe, never stopped
    by one bad file. ``executor`` builds the executor from the backends (default: local asyncio).
    Raises :class:`~batchsum.errors.LockedError` when another run holds the output."""
    from batchsum.engine.orchestrator import run as run_engine

    return run_engine(cfg, executor=executor)


def plan(cfg: RunConfig) -> PlanSummary:
    """What :func:`run` would do now: new/changed/unchanged/deleted files, nodes, calls, tokens, cost."""
    from batchsum.engine.preview import preview

    return preview(cfg)
