"""batchsum: summarize, measure and search large folders of text, offline by default.

The library API (the CLI is built on it)::

    import batchsum
    from batchsum.config import RunConfig

    result = batchsum.run(RunConfig(paths=[Path("journal")], out=Path("out")))
    print(result.summary_line())
    preview = batchsum.plan(cfg)                       # what a run would do, writes nothing
    hits = batchsum.search(IndexConfig(out=Path("out")), "who moved to Lisbon?", k=5)
    stats = batchsum.report(Path("out"), last=10)      # compression statistics from the metrics

    from batchsum.compact import compact, should_compact  # live chat / agent session compaction
    result = compact(messages, context_window=8192)     # summary message + verbatim tail, tokens_after

Each function imports its stage on first call, so ``import batchsum`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date
    from pathlib import Path

    from batchsum.config import IndexConfig, RunConfig
    from batchsum.engine.executor import ExecutorFactory
    from batchsum.engine.preview import PlanSummary
    from batchsum.engine.records import RunResult
    from batchsum.index.search import SearchHit
    from batchsum.metrics.report import Report

__version__ = "0.1.0"

__all__ = ["__version__", "plan", "report", "run", "search"]


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


def search(
    cfg: IndexConfig,
    query: str,
    *,
    k: int = 5,
    level: str | None = None,
    content_type: str | None = None,
    path_glob: str | None = None,
    since: date | None = None,
    reranker: Path | None = None,
) -> list[SearchHit]:
    """The ``k`` summaries of ``cfg.out`` that best answer ``query``, best first; ``level`` is 1, 2, 3 or
    ``final``, ``path_glob`` matches source paths, ``since`` drops older documents."""
    from batchsum.index.search import search as search_index

    return search_index(
        cfg,
        query,
        k=k,
        level=level,
        content_type=content_type,
        path_glob=path_glob,
        since=since,
        reranker=reranker,
    )


def report(
    out: Path,
    *,
    metrics_db: Path | None = None,
    run: str | None = None,
    last: int | None = None,
    content_type: str | None = None,
    price_per_1k: float | None = None,
) -> Report:
    """Compression statistics of the runs recorded for ``out`` (one ``run`` id or the ``last`` n)."""
    from batchsum.metrics.report import build_report

    return build_report(
        out, metrics_db=metrics_db, run=run, last=last, content_type=content_type, price_per_1k=price_per_1k
    )
