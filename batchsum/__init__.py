"""batchsum: summarize, measure and search large folders of text, offline by default.

The library API (the CLI is built on it); options are named like the command's flags::

    import batchsum

    result = batchsum.run("journal", out="journal-summaries", type="journal")
    print(result.summary_line())
    preview = batchsum.plan("journal", out="journal-summaries")   # what a run would do, writes nothing
    hits = batchsum.search("journal-summaries", "who moved to Lisbon?", k=5)
    stats = batchsum.report("journal-summaries", last=10)        # compression statistics from the metrics
    result = batchsum.compact(messages, context_window=8192)     # summary message + verbatim tail

A :class:`~batchsum.config.RunConfig` (or :class:`~batchsum.config.IndexConfig`) may be passed
instead of paths and options. Each function imports its stage on first call, so ``import batchsum``
stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import date
    from types import ModuleType

    from batchsum.config import IndexConfig, RunConfig
    from batchsum.engine.executor import ExecutorFactory
    from batchsum.engine.preview import PlanSummary
    from batchsum.engine.records import RunResult
    from batchsum.index.search import SearchHit
    from batchsum.metrics.report import Report

__version__ = "0.1.0"

__all__ = ["__version__", "compact", "plan", "report", "run", "search"]

Paths = str | Path | Iterable[str | Path]


def _config(paths: RunConfig | Paths, options: dict[str, Any]) -> RunConfig:
    from batchsum.config import RunConfig

    if isinstance(paths, RunConfig):
        if options:
            raise TypeError(f"options {sorted(options)} go with paths, not with a RunConfig (set its fields)")
        return paths
    from batchsum.options import build

    return build(paths, options)


def run(paths: RunConfig | Paths, /, *, executor: ExecutorFactory | str | None = None, **options: Any) -> RunResult:
    """Summarize ``paths`` (a folder, a file or several) into the tree under ``out``; incremental,
    crash-safe, never stopped by one bad file. ``options`` are the flags of ``batchsum run``
    (``out="summaries"``, ``type="journal"``, ``base_url=...``, ``model=...``, ``rpm=0``...); those left
    out take the settings the output folder remembers. ``executor``: ``"local"`` or ``"ray"``, or a
    factory building the executor from the backends. Raises :class:`~batchsum.errors.LockedError`
    when another run holds the output, :class:`~batchsum.remembered.SettingsChanged` when changed
    settings would make an LLM summarize files again (pass ``yes=True`` or ``rebuild=True``)."""
    from batchsum.engine.orchestrator import run as run_engine

    if isinstance(executor, str):
        options["executor"] = executor
        executor = None
    return run_engine(_config(paths, options), executor=executor)


def plan(paths: RunConfig | Paths, /, **options: Any) -> PlanSummary:
    """What :func:`run` would do now: new/changed/unchanged/deleted files, nodes, calls, tokens, cost."""
    from batchsum.engine.preview import preview

    return preview(_config(paths, options))


def search(
    out: IndexConfig | str | Path,
    query: str,
    *,
    k: int = 5,
    level: str | None = None,
    content_type: str | None = None,
    path_glob: str | None = None,
    since: date | None = None,
    reranker: Path | None = None,
) -> list[SearchHit]:
    """The ``k`` summaries of the output folder ``out`` that best answer ``query``, best first;
    ``level`` is 1, 2, 3 or ``final``, ``path_glob`` matches source paths, ``since`` drops older
    documents. The folder's index settings (collection, embedder) are the ones it was built with."""
    from batchsum.index.search import search as search_index

    return search_index(
        _index_config(out),
        query,
        k=k,
        level=level,
        content_type=content_type,
        path_glob=path_glob,
        since=since,
        reranker=reranker,
    )


def report(
    out: str | Path,
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
        Path(out), metrics_db=metrics_db, run=run, last=last, content_type=content_type, price_per_1k=price_per_1k
    )


def _index_config(out: IndexConfig | str | Path) -> IndexConfig:
    from batchsum.config import IndexConfig

    if isinstance(out, IndexConfig):
        return out
    from batchsum.remembered import index_config

    return index_config(Path(out))


def __getattr__(name: str) -> ModuleType:
    # ``batchsum.compact`` is the compaction package, loaded on first use; it is callable like its
    # ``compact`` function (batchsum/compact/__init__.py).
    if name == "compact":
        import importlib

        return importlib.import_module("batchsum.compact")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
