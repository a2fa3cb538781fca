"""The local executor on every core: files read, planned and summarized by worker processes.

The extractive summarizer is CPU-bound Python, so one process uses one core. A run with enough text
hands the reading, tokenizing and planning of its changed files and the summaries of their nodes to a
pool of worker processes, while this process writes the finished trees and keeps the records.
Everything else is :class:`~batchsum.engine.executor.LocalExecutor`'s: the same node graph, keys,
node store, trees, manifest and records, so the output is the same byte for byte.

Which runs start workers, and how, is :mod:`batchsum.engine.workers`. Until they are up the run works
in this process (``--processes N`` waits for them instead). A worker that dies (killed, out of
memory) breaks the pool: the run says so and does the rest here.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any

from batchsum.engine.executor import LocalExecutor, Note
from batchsum.engine.prepare import prepare_file
from batchsum.engine.workers import (
    AUTO,
    WorkerPool,
    Workers,
    fits_worker,
    in_worker,
    relayed,
    start_pool,
    start_workers,
    stop_fork_server,
    stop_workers,
    stopping_run,
)
from batchsum.tokens import get_tokenizer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Sequence

    from batchsum.config import RunConfig
    from batchsum.engine.changes import Known
    from batchsum.engine.executor import ExecutorFactory, Work
    from batchsum.engine.prepare import Prepared
    from batchsum.model import Backend, SummaryOutput, SummaryRequest
    from batchsum.tokens import Tokenizer
    from batchsum.walk import SourceRef

log = logging.getLogger(__name__)

# A node's request and the summary a worker computed for it while reading its file.
Ahead = tuple["SummaryRequest", "SummaryOutput"]

FILES_AHEAD_PER_WORKER = 8  # files read ahead per worker: enough to keep each busy, bounded memory
# Leaf requests (chunk texts) built ahead per worker: the pool's queue stays fed, and one big file's
# thousands of chunks are sliced from its text a few at a time, not all at once.
LEAVES_AHEAD_PER_WORKER = 16


def process_executor(
    cfg: RunConfig, todo: Sequence[SourceRef], workers: Workers | None = None
) -> ExecutorFactory | None:
    """The factory of a :class:`ProcessExecutor` for a run of ``cfg`` that reads the files of ``todo``,
    or None when one process is the faster choice. ``workers``: already started for them
    (:func:`~batchsum.engine.workers.start_workers`), else started now, while the run loads its
    summarizer (or once this process has planned a first file too big for a worker)."""
    started = workers or start_workers(cfg, todo)
    if started is None:
        return None

    def factory(backend: Backend, fallback: Backend) -> ProcessExecutor:
        return ProcessExecutor(backend, fallback, cfg, started.pool, workers=started.count)

    return factory


class ProcessExecutor(LocalExecutor):
    """:class:`LocalExecutor` whose files are read and summarized by the processes of ``pool``."""

    def __init__(
        self, backend: Backend, fallback: Backend, cfg: RunConfig, pool: WorkerPool | None, *, workers: int
    ) -> None:
        """``pool``: None to start it once this process has planned the first file (too big for a worker)."""
        super().__init__(backend, fallback)
        self.cfg = cfg
        self.workers = workers
        self.deferred = pool is None  # the pool is still to start
        self.files_ahead = workers * FILES_AHEAD_PER_WORKER
        self.leaves_ahead = workers * LEAVES_AHEAD_PER_WORKER
        self.broken: str | None = None  # why the pool stopped, when a worker died
        self.pool: WorkerPool | None = pool
        # --processes N asks for workers: wait for them rather than start the run in this process.
        self.wait_for_workers = cfg.processes != AUTO
        self.prepared_by_workers = 0  # files read and planned by a worker
        self.computed_by_workers = 0  # node summaries computed by a worker
        self._ahead: dict[str, Ahead] = {}  # by node id, until the run asks for that node

    def read_ahead(self, work: list[Work]) -> AsyncIterator[tuple[SourceRef, Prepared]]:
        """The workers read, tokenize and plan the changed files, a few per worker ahead of the run
        (this process reads the first ones itself while the workers start)."""
        return self._read_ahead(work)

    async def _read_ahead(self, work: list[Work]) -> AsyncIterator[tuple[SourceRef, Prepared]]:

        queue: deque[tuple[SourceRef, Known | None, asyncio.Future[Any] | None]] = deque()
        todo = iter(work)
        window = self.files_ahead or 1
        if self.wait_for_workers and self.pool is not None:
            await self._result(self.pool.wait_ready())

        def submit() -> None:
            for ref, known in todo:
                fits = fits_worker(ref)
                pending = self._submit("prepare", ref, known) if fits else None
                queue.append((ref, known, pending))
                if len(queue) >= window or (self.deferred and not fits):
                    return

        submit()
        try:
            while queue:
                ref, known, pending = queue.popleft()
                result = await self._result(pending)
                if result is None:
                    prepared = prepare_file(ref, self.cfg, self._tokenizer(), known)
                    if self.deferred:
                        await self._start_pool()
                else:
                    prepared, ahead = result
                    self.prepared_by_workers += 1
                    if ahead is not None:
                        self._ahead[ahead[0].node_id] = ahead
                submit()
                yield ref, prepared
        finally:
            # A stopped run leaves its readings ahead unread: their pool's breakage (SIGTERM ended the
            # workers) is no "Future exception was never retrieved" error at exit.
            for _, _, left in queue:
                if left is not None:
                    left.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def _start_pool(self) -> None:
        """Start the deferred pool (and wait for it when the run asked for workers)."""
        self.deferred = False
        self.pool = start_pool(self.workers, self.cfg)
        if self.wait_for_workers:
            await self._result(self.pool.wait_ready())

    async def compute(self, request: SummaryRequest) -> SummaryOutput:
        """The node's summary: computed by a worker (here while none is up, or after they died)."""
        ahead = self._ahead.pop(request.node_id, None)
        if ahead is not None and ahead[0] == request:
            self.computed_by_workers += 1
            return ahead[1]  # computed with its file's reading
        output = await self._result(self._submit("summarize", request))
        if output is not None:
            self.computed_by_workers += 1
            return output
        return await super().compute(request)

    def _submit(self, name: str, *args: Any) -> asyncio.Future[Any] | None:
        """``pool_worker.<name>(*args)`` on a worker, or None when no worker is up."""
        from concurrent.futures.process import BrokenProcessPool

        pool = self.pool
        if pool is not None and pool.failure is not None:
            self._lost(pool.failure)
            return None
        if pool is None or not pool.ready():
            return None
        try:
            return asyncio.wrap_future(pool.executor.submit(in_worker, name, *args))
        except (BrokenProcessPool, OSError) as exc:
            # A submit may start a replacement worker through the fork server; when the death of a
            # worker took the fork server's connection with it, that start fails with an OSError
            # (EBADF) before the pool knows it is broken: the same loss, the same fallback.
            self._lost(exc)
            return None

    async def _result(self, pending: Awaitable[Any] | None) -> Any:
        """The worker's result, or None when it has none (no worker was up, or they died)."""
        from concurrent.futures.process import BrokenProcessPool

        if pending is None:
            return None
        try:
            return relayed(await pending)
        except BrokenProcessPool as exc:
            self._lost(exc)
            return None

    def _lost(self, exc: Exception) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            if not stopping_run():
                self.broken = f"worker processes lost ({exc}); the rest of the run was done in one process"
                log.warning("%s", self.broken)
            stop_workers(pool.executor)  # first: shutting down forgets the table of processes
            pool.executor.shutdown(wait=False, cancel_futures=True)

    def notes(self) -> list[Note]:
        # Asked again: a SIGTERM to the process group may end the workers before this process's handler runs.
        return [Note("workers_lost", self.broken)] if self.broken and not stopping_run() else []

    def _tokenizer(self) -> Tokenizer:

        return get_tokenizer(self.cfg.encoding)

    async def aclose(self) -> None:
        self._ahead.clear()
        pool, self.pool = self.pool, None
        if pool is not None:
            # Workers ignore Ctrl-C (it reaches the whole process group): they finish the work in hand.
            pool.executor.shutdown(wait=True, cancel_futures=True)
            stop_fork_server()
        await super().aclose()
