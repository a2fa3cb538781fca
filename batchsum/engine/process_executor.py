"""The local executor on every core: files read, planned and summarized by worker processes.

The extractive summarizer is CPU-bound Python, so one process uses one core. A run with enough text
hands the reading, tokenizing and planning of its changed files and the summaries of their nodes to a
pool of worker processes, while this process writes the finished trees and keeps the records.
Everything else is :class:`~batchsum.engine.executor.LocalExecutor`'s: the same node graph, keys,
node store, trees, manifest and records, so the output is the same byte for byte.

``RunConfig.processes``: 1 (the library's default) never starts a worker; :data:`AUTO` (0, the
command's default) starts one per CPU when the changed files hold :data:`POOL_MIN_BYTES` (a small run
is done before workers could start) and works in this process until they are up; N asks for N
workers whatever the size, and waits for them.

Workers come from a fork server (``forkserver``, where the platform has one) that has imported the
summarizer; each worker is a fork of it, safe whatever threads this process runs (a library caller's,
or those of ``batchsum watch`` and ``serve``, which keep to one process by default). A worker that
dies (killed, out of memory) breaks the pool: the run says so and does the rest here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from batchsum.engine.executor import LocalExecutor, Note
from batchsum.engine.prepare import prepare_file
from batchsum.tokens import get_tokenizer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Sequence
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

    from batchsum.config import RunConfig
    from batchsum.engine.executor import ExecutorFactory, Work
    from batchsum.engine.prepare import Prepared
    from batchsum.model import Backend, SummaryOutput, SummaryRequest
    from batchsum.tokens import Tokenizer
    from batchsum.walk import SourceRef

log = logging.getLogger(__name__)

# A node's request and the summary a worker computed for it while reading its file.
Ahead = tuple["SummaryRequest", "SummaryOutput"]

# Changed source bytes from which a run starts the pool: ~0.25 s of work in one process, about what
# starting the fork server and its workers costs (make bench).
POOL_MIN_BYTES = 200_000
FILES_AHEAD_PER_WORKER = 8  # files read ahead per worker: enough to keep each busy, bounded memory
# Leaf requests (chunk texts) built ahead per worker: the pool's queue stays fed, and one big file's
# thousands of chunks are sliced from its text a few at a time, not all at once.
LEAVES_AHEAD_PER_WORKER = 16
# A file larger than this is read and planned here, its nodes still summarized by the workers: a
# worker's reading comes back as a copy of the text and its chunks (a 200 MB file would need ~1 GB).
WORKER_FILE_MAX_BYTES = 8_000_000


def available_cpus() -> int:
    """CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


AUTO = 0  # ``RunConfig.processes``: one worker per CPU, for runs with POOL_MIN_BYTES of changed text


def pool_size(cfg: RunConfig) -> int:
    """Worker processes for this run: 0 when everything is computed in this process."""
    if cfg.llm.enabled:
        return 0  # an LLM run waits on the network, not the CPU; its fallback is rare
    wanted = available_cpus() if cfg.processes == AUTO else cfg.processes
    return wanted if wanted > 1 else 0


def process_executor(cfg: RunConfig, todo: Sequence[SourceRef]) -> ExecutorFactory | None:
    """The factory of a :class:`ProcessExecutor` for a run of ``cfg`` that reads the files of ``todo``,
    or None when one process is the faster choice. The pool starts now, while the run loads its summarizer
    (or once this process has planned a first file too big for a worker)."""
    workers = pool_size(cfg)
    if not workers or not todo:
        return None
    if cfg.processes == AUTO and not holds_bytes(todo, POOL_MIN_BYTES):
        return None  # automatic: only for runs worth it; --processes N asks for N
    # A first file too big for a worker is read and planned here before the pool starts: the workers
    # would wait through its planning with their memory added to its peak.
    pool = start_pool(workers, cfg) if _fits_worker(todo[0]) else None

    def factory(backend: Backend, fallback: Backend) -> ProcessExecutor:
        return ProcessExecutor(backend, fallback, cfg, pool, workers=workers)

    return factory


def holds_bytes(refs: Sequence[SourceRef], enough: int) -> bool:
    """Whether the files of ``refs`` hold at least ``enough`` bytes (stats only until they do)."""
    total = 0
    for ref in refs:
        try:
            total += os.stat(ref.fspath).st_size
        except OSError:
            continue  # reading it will say why
        if total >= enough:
            return True
    return False


WORKER_MODULE = "batchsum.engine.pool_worker"


def in_worker(name: str, *args: Any) -> Any:
    """``pool_worker.<name>(*args)``, run in a worker. The run's own process never imports that
    module: it sets the workers' BLAS threads before numpy loads."""
    import importlib

    return getattr(importlib.import_module(WORKER_MODULE), name)(*args)


def stop_workers(executor: ProcessPoolExecutor) -> None:
    """Terminate what is left of a broken pool's processes.

    A worker the stdlib started for a call that raced with the pool breaking is never stopped by it
    (CPython 3.11-3.13), and the interpreter's exit then waits for that worker forever (seen in CI:
    a run that finished, and never exited). All of this run's calls come from its event loop thread,
    so by the time it learns the pool broke, every worker it caused to start is in the table."""
    # Private: the stdlib has no public handle on a pool's processes (active_children() is every child).
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        if process.is_alive():
            process.terminate()


def _fits_worker(ref: SourceRef) -> bool:
    """Whether a worker should read ``ref`` (else this process does, and says why it cannot)."""
    try:
        return os.stat(ref.fspath).st_size <= WORKER_FILE_MAX_BYTES
    except OSError:
        return False


@dataclass
class WorkerPool:
    """A pool of worker processes, the thread that starts them and its calls (done: a worker is up)."""

    executor: ProcessPoolExecutor
    starter: threading.Thread | None = None
    started: list[Future[None]] = field(default_factory=list)
    failure: Exception | None = None  # why the workers could not be started

    def ready(self) -> bool:
        """Whether every worker is up (until then the run works in its own process)."""
        return bool(self.started) and all(f.done() for f in self.started)

    async def wait_ready(self) -> None:
        """Until every worker is up; raises ``BrokenProcessPool`` when one could not start."""
        if self.starter is not None:
            await asyncio.to_thread(self.starter.join)
        for f in self.started:
            await asyncio.wrap_future(f)


def start_pool(workers: int, cfg: RunConfig) -> WorkerPool:
    """A pool of ``workers`` processes set up for ``cfg``; they start in the background."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx: BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([WORKER_MODULE, __name__])  # __name__: where in_worker lives
    else:
        ctx = multiprocessing.get_context("spawn")
    pool = WorkerPool(
        ProcessPoolExecutor(workers, mp_context=ctx, initializer=in_worker, initargs=("init_worker", cfg))
    )

    def start() -> None:
        # The first calls start the fork server and wait for its imports (~0.3 s): from a thread,
        # so the run goes on meanwhile.
        try:
            pool.started = [pool.executor.submit(in_worker, "warm_up") for _ in range(workers)]
        except RuntimeError as exc:  # a broken pool, or one shut down already (a run that stopped at once)
            pool.failure = exc

    pool.starter = threading.Thread(target=start, name="batchsum-pool-start", daemon=True)
    pool.starter.start()
    return pool


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

        queue: deque[tuple[SourceRef, str | None, asyncio.Future[Any] | None]] = deque()
        todo = iter(work)
        window = self.files_ahead or 1
        if self.wait_for_workers and self.pool is not None:
            await self._result(self.pool.wait_ready())

        def submit() -> None:
            for ref, same_sha in todo:
                fits = _fits_worker(ref)
                pending = self._submit("prepare", ref, same_sha) if fits else None
                queue.append((ref, same_sha, pending))
                if len(queue) >= window or (self.deferred and not fits):
                    return

        submit()
        while queue:
            ref, same_sha, pending = queue.popleft()
            result = await self._result(pending)
            if result is None:
                prepared = prepare_file(ref, self.cfg, self._tokenizer(), same_sha)
                if self.deferred:
                    await self._start_pool()
            else:
                prepared, ahead = result
                self.prepared_by_workers += 1
                if ahead is not None:
                    self._ahead[ahead[0].node_id] = ahead
            submit()
            yield ref, prepared

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
            return await pending
        except BrokenProcessPool as exc:
            self._lost(exc)
            return None

    def _lost(self, exc: Exception) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            self.broken = f"worker processes lost ({exc}); the rest of the run was done in one process"
            log.warning("%s", self.broken)
            stop_workers(pool.executor)  # first: shutting down forgets the table of processes
            pool.executor.shutdown(wait=False, cancel_futures=True)

    def notes(self) -> list[Note]:
        return [Note("workers_lost", self.broken)] if self.broken else []

    def _tokenizer(self) -> Tokenizer:

        return get_tokenizer(self.cfg.encoding)

    async def aclose(self) -> None:
        self._ahead.clear()
        pool, self.pool = self.pool, None
        if pool is not None:
            # Workers ignore Ctrl-C (it reaches the whole process group): they finish the work in hand.
            pool.executor.shutdown(wait=True, cancel_futures=True)
        await super().aclose()
