"""The local executor's worker processes: whether a run starts them, and starting them.

Light on purpose (no event loop, no summarizer): a run starts its workers as soon as it knows its
changed files, so the fork server imports the summarizer on another core while this process loads
the rest of the run (:mod:`batchsum.engine.process_executor` runs the work on them).

``RunConfig.processes``: 1 (the library's default) never starts a worker; :data:`AUTO` (0, the
command's default) starts one per CPU when the changed files hold :data:`POOL_MIN_BYTES` (a small run
is done before workers could start); N asks for N workers whatever the size.

Workers come from a fork server (``forkserver``, where the platform has one) that has imported the
summarizer; each worker is a fork of it, safe whatever threads this process runs (a library caller's,
or those of ``batchsum watch`` and ``serve``, which keep to one process by default).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from batchsum.engine.stopping import SUMMARIZING  # light: the command loads it before every run

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

    from batchsum.config import RunConfig
    from batchsum.walk import SourceRef

# Changed source bytes from which a run starts the pool: ~0.25 s of work in one process, about what
# starting the fork server and its workers costs (make bench).
POOL_MIN_BYTES = 200_000
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

    worker = importlib.import_module(WORKER_MODULE)
    value = getattr(worker, name)(*args)
    # The worker's stderr is /dev/null (a killed run's caller must not wait on it): its warnings come back
    # with its results, and relayed() logs them in the run.
    records = worker.take_warnings()
    return Relayed(value, records) if records else value


@dataclass
class Relayed:
    """A worker's result with the warnings it logged meanwhile."""

    value: Any
    records: list[logging.LogRecord]


def relayed(value: Any) -> Any:
    """A worker's result (:func:`in_worker`'s), its warnings logged here as this process's own."""
    if not isinstance(value, Relayed):
        return value
    for record in value.records:
        logging.getLogger(record.name).handle(record)
    return value.value


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


def stopping_run() -> bool:
    """Whether this run was asked to stop (SIGTERM to its process group, which ends its workers too): a pool
    that breaks then is no crash, and no run goes on in one process to say so."""
    return SUMMARIZING.requested


def stop_fork_server() -> None:
    """Stop the fork server the workers were forked from, once their pool is shut down.

    It keeps the workers' imports (numpy, the summarizer, the token table: about 75 MB) for as long as
    this process lives, through the run's index sync, metrics and index page, where its peak memory
    is (``bench_many_files``). The next pool starts it again (~0.3 s, from a thread)."""
    server = getattr(sys.modules.get("multiprocessing.forkserver"), "_forkserver", None)
    # Private: the stdlib has no public way to stop its fork server (its own tests use ``_stop``).
    stop = getattr(server, "_stop", None)
    if stop is None:
        return
    pid = getattr(server, "_forkserver_pid", None)
    if pid is not None:
        # SIGTERM ends the idle server at once (it has no handler for it); asked by closing its pipe,
        # it would tear its interpreter down first, ~70 ms that ``_stop`` waits for. Not from a thread:
        # the next run's pool could then find this server alive, reuse it, and lose it.
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    # Freeing memory never fails a run: a server someone else already reaped is simply gone.
    with contextlib.suppress(OSError):
        stop()


def fits_worker(ref: SourceRef) -> bool:
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
        import asyncio  # here: the run starts its workers before it loads the event loop

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
        ProcessPoolExecutor(workers, mp_context=ctx, initializer=in_worker, initargs=("init_worker", cfg, os.getpid()))
    )

    def start() -> None:
        # The first calls start the fork server and wait for its imports (~0.3 s): from a thread,
        # so the run goes on meanwhile. Ctrl-C reaches the whole process group, and the run's own
        # process handles it: blocked in this thread, it stays blocked in the processes started from
        # here (a mask is kept across fork and exec), before their interpreter could raise it mid-import.
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pool.started = [pool.executor.submit(in_worker, "warm_up") for _ in range(workers)]
        except (RuntimeError, OSError, EOFError) as exc:
            # A broken pool, one shut down already (a run that stopped at once), or a fork server that
            # died while starting (its pipe closed: EOFError): the run says why, from its own thread.
            pool.failure = exc

    pool.starter = threading.Thread(target=start, name="batchsum-pool-start", daemon=True)
    pool.starter.start()
    return pool


@dataclass
class Workers:
    """The worker processes a run asked for: how many, and their pool (None: not started yet)."""

    count: int
    pool: WorkerPool | None


def start_workers(cfg: RunConfig, todo: Sequence[SourceRef]) -> Workers | None:
    """The workers of a run of ``cfg`` that reads the files of ``todo``, their pool started now, or None
    when one process is the faster choice."""
    workers = pool_size(cfg)
    if not workers or not todo:
        return None
    if cfg.processes == AUTO and not holds_bytes(todo, POOL_MIN_BYTES):
        return None  # automatic: only for runs worth it; --processes N asks for N
    # A first file too big for a worker is read and planned here before the pool starts: the workers
    # would wait through its planning with their memory added to its peak.
    return Workers(workers, start_pool(workers, cfg) if fits_worker(todo[0]) else None)
