"""The end of a run: hand the written trees to the search index, record the metrics, and clean
records no run needs any more. Each step reports its failure instead of failing the run: the
tree is the truth, and every output here can be repaired from it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from batchsum.config import LLM_CACHE_DIR
from batchsum.digest_state import load_state, state_path
from batchsum.metrics.store import MetricsStore, defer_run
from batchsum.metrics.usage_journal import fold_interrupted
from batchsum.state import NODE_GRACE_DAYS, prune_store

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.engine.progress import Progress
    from batchsum.index.records import DocUpdate
    from batchsum.index.store import IndexStats
    from batchsum.model import FileRecord, NodeRecord, RunRecord
    from batchsum.state import StateStore

log = logging.getLogger(__name__)


def sync_index(
    sync: Callable[..., IndexStats],
    cfg: RunConfig,
    changed: list[str],
    deleted: list[str],
    docs: dict[str, DocUpdate],
    embedded: Mapping[str, Any],
    progress: Progress,
) -> str | None:
    """Bring the index in line with the trees of ``changed`` and ``deleted`` sources (``docs``: the
    ones this run finished, in memory; ``embedded``: summary vectors its workers computed) by ``sync``
    (:func:`batchsum.index.store.sync_index`, which the orchestrator loads only when the index has work);
    a warning on failure."""
    try:
        stats = sync(cfg, changed, deleted, docs=docs, embedded=embedded)
        progress.event(
            "index_synced",
            nodes_indexed=stats.nodes_indexed,
            nodes_unchanged=stats.nodes_unchanged,
            nodes_deleted=stats.nodes_deleted,
            embedded_by_workers=stats.nodes_embedded_elsewhere,
            seconds=round(stats.seconds, 3),
        )
    except Exception as exc:  # the tree is the truth: a failed index is repaired later, never fatal
        progress.event("index_failed", error=str(exc), level="error")
        return f"search index not updated ({exc}); it will be repaired by the next run or `{cfg.index_command()}`"
    return None


def record_metrics(cfg: RunConfig, run: RunRecord, files: list[FileRecord], nodes: list[NodeRecord]) -> str | None:
    """Store the run's records; a warning when they could not be stored."""
    fresh = not cfg.metrics_path.exists()
    try:
        parquet = cfg.state_dir / "parquet"
        # A run that changed nothing skips DuckDB (~0.3 s to start): its rows wait as JSON that
        # reports read and the next recording run folds into the database.
        quiet = not nodes and all(f.status in ("unchanged", "skipped") for f in files)
        if quiet and defer_run(parquet, run, files, nodes):
            return None
        MetricsStore(cfg.metrics_path, parquet).record_run(run, files, nodes)
    except Exception as exc:  # metrics never fail a run whose trees are written
        if fresh:  # a database this run began and could not finish (a full disk) holds nothing: the next starts anew
            for part in (cfg.metrics_path, cfg.metrics_path.with_name(cfg.metrics_path.name + ".wal")):
                part.unlink(missing_ok=True)
        return f"metrics not recorded: {exc}"
    return None


def fold_interrupted_usage(cfg: RunConfig, run_id: str) -> str | None:
    """Record the LLM usage journals of runs killed before their metrics; a warning on failure."""
    try:
        store = MetricsStore(cfg.metrics_path, cfg.state_dir / "parquet")
        folded = fold_interrupted(cfg.state_dir, store, run_id, str(cfg.out.resolve()))
    except Exception as exc:  # the journals stay for the next run
        return f"LLM usage of an interrupted run not recorded yet: {exc}"
    if folded:
        log.info("recorded the LLM usage of %d interrupted run(s)", folded)
    return None


def collect_garbage(cfg: RunConfig, state: StateStore, progress: Progress) -> None:
    """Delete node records and LLM responses no manifest entry uses once they are past the grace period."""

    cutoff = time.time() - NODE_GRACE_DAYS * 86400
    try:
        # The digests' records are named by digests.json, not the manifest: a digest redone from the
        # same inputs (its file deleted, an edit reverted) reuses its record instead of a new request.
        digests = load_state(state_path(cfg))
        removed = state.collect_garbage(cutoff, keep=[p.key for p in digests.periods.values()])
        # LLM responses outlive their use once the node records exist; past the grace period an
        # entry only helps a config change that keeps the prompt, which is rare.
        responses = prune_store(cfg.state_dir / LLM_CACHE_DIR, cutoff)
    except OSError as exc:  # housekeeping never fails a run
        log.warning("could not clean old records in %s: %s", cfg.state_dir, exc)
        return
    if removed or responses:
        progress.event("nodes_collected", removed=removed, responses_removed=responses, grace_days=NODE_GRACE_DAYS)
