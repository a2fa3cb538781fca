"""Baseline summaries for ``batchsum eval``: run in worker processes, cached on disk.

Baselines are deterministic, so their outputs (and the seconds they took when computed) are cached
by method, budget, text and sumy version; re-evaluations only pay for batchsum.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from batchsum.evaluate.baselines import summarize, warm_up
from batchsum.tokens import cache_dir
from batchsum.tree import atomic_write_text

__all__ = ["BASELINE_CACHE_FORMAT", "run_baselines"]

log = logging.getLogger(__name__)

BASELINE_CACHE_FORMAT = 1  # bump when baseline selection or sentence splitting changes
Progress = Callable[[str], None]


def _baseline_task(task: tuple[str, str, str, int]) -> tuple[str, str, str | None, float]:
    """One baseline summary; ``None`` text when the method fails on this document (scored as failed)."""
    import numpy as np

    method, doc_id, text, budget = task
    # LSA's SVD (LAPACK) has failed to converge on a QMSum meeting under load and not when re-run:
    # one retry, then the document counts as a failure of that method instead of ending the eval.
    for attempt in (1, 2):
        try:
            out = summarize(method, text, budget)
            return method, doc_id, out.text, out.seconds
        except np.linalg.LinAlgError as exc:
            log.warning("baseline %s failed on %s (attempt %d): %s", method, doc_id, attempt, exc)
    return method, doc_id, None, 0.0


def _sumy_version() -> str:
    """sumy's version, from its package metadata or, while an install rewrites that, from the module."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sumy")
    except PackageNotFoundError:
        # A venv being reinstalled under a running eval loses the metadata for a moment; the cache key
        # must not end an evaluation that has run for an hour.
        import sumy

        return str(getattr(sumy, "__version__", "unknown"))


def _cache_path(task: tuple[str, str, str, int]) -> Path:
    import hashlib

    method, _doc_id, text, budget = task
    key = f"{BASELINE_CACHE_FORMAT}|{_sumy_version()}|{method}|{budget}|".encode() + text.encode("utf-8", "replace")
    return cache_dir() / "eval-baselines" / f"{hashlib.sha256(key).hexdigest()}.json"


def _cached(task: tuple[str, str, str, int]) -> tuple[str, float] | None:
    import json

    try:
        data = json.loads(_cache_path(task).read_text(encoding="utf-8"))
        return str(data["text"]), float(data["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(task: tuple[str, str, str, int], text: str, seconds: float) -> None:
    import json

    try:
        atomic_write_text(_cache_path(task), json.dumps({"text": text, "seconds": seconds}))
    except OSError as exc:
        log.debug("baseline cache not written: %s", exc)


def run_baselines(
    tasks: list[tuple[str, str, str, int]], jobs: int, progress: Progress | None, *, cache: bool = True
) -> dict[tuple[str, str], tuple[str, float]]:
    """Run (method, doc_id, text, budget) tasks, in ``jobs`` processes when > 1.

    Baselines are deterministic, so their outputs (and the seconds they took when computed) are
    cached by method, budget, text and sumy version; re-evaluations only pay for batchsum.
    """
    results: dict[tuple[str, str], tuple[str, float]] = {}
    todo: list[tuple[str, str, str, int]] = []
    for task in tasks:
        hit = _cached(task) if cache else None
        if hit is not None:
            results[(task[0], task[1])] = hit
        else:
            todo.append(task)
    total = len(todo)
    if progress and len(results):
        progress(f"baselines: {len(results)} summaries from cache, {total} to compute")
    # Longest documents first so that the slowest tasks do not end up last on one worker.
    ordered = sorted(todo, key=lambda t: -len(t[2]))
    by_key = {(t[0], t[1]): t for t in ordered}

    def done(i: int, method: str, doc_id: str, text: str | None, secs: float) -> None:
        if text is not None:
            results[(method, doc_id)] = (text, secs)
            if cache:
                _store(by_key[(method, doc_id)], text, secs)
        if progress and (i % 10 == 0 or i == total):
            progress(f"baselines: {i}/{total} summaries")

    if jobs > 1 and total > 1:
        import multiprocessing

        methods = tuple(sorted({t[0] for t in ordered}))
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context("spawn"), initializer=warm_up, initargs=(methods,)
        ) as pool:
            for i, (method, doc_id, text, secs) in enumerate(pool.map(_baseline_task, ordered), 1):
                done(i, method, doc_id, text, secs)
    elif ordered:
        warm_up(tuple(sorted({t[0] for t in ordered})))
        for i, task in enumerate(ordered, 1):
            done(i, *_baseline_task(task))
    return results
