"""The executor seam: how the planned nodes of every file become summaries.

An :class:`Executor` receives the file plans as the orchestrator prepares them and runs each file's
node graph (an L1 is runnable at once, an L2 when its L1s are finished, the final when its inputs are).
It calls back into the :class:`Driver` (the orchestrator) for everything that is not computing a
summary, so every executor commits exactly alike:

* ``driver.job(...)`` builds a node's request and key from its finished children (pure, cheap);
* ``driver.stored(job)`` returns an output already in the node store (resume, incremental reuse);
* ``driver.node_finished(...)`` records a computed output in the node store and counts its tokens;
* ``driver.file_finished(...)`` / ``driver.file_failed(...)`` write the file's tree, manifest entry
  and records, or record why it failed.

Before that, an executor that implements :class:`ReadsAhead` reads and plans the changed files on
its own workers (the orchestrator still settles each result: problems, touched files, plans).

All driver calls happen on the event loop thread, one at a time. An executor only decides *where* a
summary is computed: :class:`LocalExecutor` awaits the backend in this process (rate limits live in
the backends). A distributed executor can hand ``job.request`` to workers (the extractive backend is
CPU-bound and needs nothing but the request) or send LLM requests through a limiter shared by the
whole cluster, as long as it calls the driver as described and raises :class:`AbortRun` from
:meth:`Executor.execute` once what is in flight has ended (its requests are sent: the run counts them)
and nothing more has started.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from batchsum.engine.nodes import NodeJob, heights
from batchsum.engine.records import NodeResult
from batchsum.errors import AbortRun, BatchsumError, SummarizationError
from batchsum.model import SummaryOutput

if TYPE_CHECKING:
    from batchsum.engine.changes import Known
    from batchsum.engine.prepare import Prepared
    from batchsum.model import Backend, SummaryRequest
    from batchsum.planning import FilePlan, PlannedNode
    from batchsum.walk import SourceRef


class Driver(Protocol):
    """What an executor asks of the run that drives it (implemented by the orchestrator)."""

    def job(self, plan: FilePlan, node: PlannedNode, children: list[NodeResult], height: int) -> NodeJob:
        """The job of ``node``; ``children`` are the results of ``node.inputs`` in that order, ``height``
        the number of nodes from it to the file's final (backends serve higher ones first)."""
        ...

    def stored(self, job: NodeJob) -> SummaryOutput | None:
        """The output recorded under ``job.key`` by an earlier run, or None."""
        ...

    def node_finished(self, plan: FilePlan, job: NodeJob, output: SummaryOutput, reused: bool) -> NodeResult:
        """Record one finished node; returns its result for the parents and the file's commit."""
        ...

    def file_finished(self, plan: FilePlan, results: list[NodeResult], wall_ms: float) -> None:
        """Every node of ``plan`` is finished (``results`` in ``plan.nodes`` order): commit the file."""
        ...

    def file_failed(self, plan: FilePlan, reason: str, wall_ms: float, spent: Iterable[NodeResult] = ()) -> None:
        """A node of ``plan`` failed for good: the file is recorded as failed, the batch goes on. ``spent``:
        its nodes that finished and the failed ones that sent requests, recorded in its metrics."""
        ...

    def file_stopped(self, plan: FilePlan, spent: Iterable[NodeResult]) -> None:
        """The run stopped (:class:`AbortRun`) before ``plan`` was finished: ``spent`` (as for
        :meth:`file_failed`) counts in the run's metrics; the file is recorded with the run's end."""
        ...


@dataclass
class Note:
    """Something the run should tell about how its executor fared (a warning and its event)."""

    event: str
    message: str


# A changed file to read and plan, and what it must still be to count as only touched (None: always plan).
Work = tuple["SourceRef", "Known | None"]


class Executor(Protocol):
    """Runs the node graphs of planned files (see the module docstring for the contract)."""

    async def execute(self, plans: AsyncIterator[FilePlan], driver: Driver) -> None:
        """Run every plan from ``plans`` (start each as soon as it arrives) until all are finished or
        failed. On :class:`AbortRun` from a node: start no other node, let those computing end (each
        unfinished file told to :meth:`Driver.file_stopped`), then raise it."""
        ...

    async def aclose(self) -> None:
        """Release the backends' connections."""
        ...

    def notes(self) -> list[Note]:
        """What the run should report about this executor once it is closed (e.g. workers lost)."""
        ...


@runtime_checkable
class ReadsAhead(Protocol):
    """An executor that can also read and plan the changed files on its own workers (optional)."""

    def read_ahead(self, work: list[Work]) -> AsyncIterator[tuple[SourceRef, Prepared]] | None:
        """Read and plan these files where the executor computes, yielding each file with
        ``prepare_file``'s result in ``work``'s order; None when the run reads and plans them itself."""
        ...


@runtime_checkable
class EmbedsAhead(Protocol):
    """An executor whose workers also embed the summaries they compute, for the search index (optional)."""

    def embeddings(self) -> Mapping[str, Any]:
        """Vectors of the summaries computed by this run, by summary text (the index embeds the rest)."""
        ...


# Builds an executor from the run's backend and its extractive fallback.
ExecutorFactory = Callable[["Backend", "Backend"], Executor]


async def summarize(backend: Backend, fallback: Backend, request: SummaryRequest) -> SummaryOutput:
    """``backend``'s summary of ``request``; the fallback's when the backend returned nothing."""
    out = await backend.summarize(request)
    if not out.text.strip() and request.text.strip() and fallback is not backend:
        # A backend returning nothing must not silently empty a node.
        out = await fallback.summarize(request)
        out.backend = f"{fallback.name} (fallback)"
        out.error = "empty output"
    return out


class LocalExecutor:
    """One asyncio task per node in this process; files start as soon as they are planned."""

    # Files started but not finished before the next one is read (None: no bound). Without one, an
    # executor whose compute does not block the loop would read the whole corpus into memory ahead.
    files_ahead: int | None = None
    # Leaves whose request is built but not yet summarized (None: no bound). A leaf's request holds
    # its chunk's text, sliced from the document's when the job is built: unbounded, an executor whose
    # compute does not block the loop would hold a second copy of a big file in queued requests.
    leaves_ahead: int | None = None

    def __init__(self, backend: Backend, fallback: Backend) -> None:
        self.backend = backend
        self.fallback = fallback
        self._aborted = False
        self._stop: AbortRun | None = None  # what stopped the run (--on-error abort), once a node raised it
        self._leaf_slots: asyncio.Semaphore | None = None
        self._failing: set[int] = set()  # ids of the plans whose file failed while nodes of it still run

    async def execute(self, plans: AsyncIterator[FilePlan], driver: Driver) -> None:
        tasks: list[asyncio.Task[None]] = []
        if self.leaves_ahead:
            self._leaf_slots = asyncio.Semaphore(self.leaves_ahead)
        slots = asyncio.Semaphore(self.files_ahead) if self.files_ahead else None
        try:
            async for plan in plans:
                if self._aborted:
                    break
                if slots is not None:
                    await slots.acquire()
                task = asyncio.create_task(self._file(plan, driver))
                tasks.append(task)
                if slots is not None:
                    task.add_done_callback(lambda _: slots.release())
                await asyncio.sleep(0)  # let the new file's leaves start before the next file is read
            pending = set(tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
                # Read every finished task's exception (several files can fail at once), then raise the first.
                errors = [exc for t in done if (exc := t.exception()) is not None]
                if errors:
                    if self._stop is not None:
                        # The other files end as the stopped one does (_file): no node starts, the requests
                        # already sent are answered and counted. A cancelled node's request would still
                        # reach the server, unrecorded.
                        await asyncio.gather(*pending, return_exceptions=True)
                        raise self._stop
                    raise errors[0]
        except asyncio.CancelledError:  # Ctrl-C: no file's requests go on behind the run's back
            await _cancel(tasks)
            raise

    async def aclose(self) -> None:
        await self.backend.aclose()

    def notes(self) -> list[Note]:
        return []

    async def _file(self, plan: FilePlan, driver: Driver) -> None:
        t0 = time.perf_counter()
        tasks: dict[str, asyncio.Task[NodeResult]] = {}
        height = heights(plan)
        for node in plan.nodes:  # dependency order: a node's inputs have tasks before it
            tasks[node.node_id] = asyncio.create_task(self._node(plan, node, tasks, height[node.node_id], driver))
        try:
            # (asyncio.wait refuses no tasks: a file with no node to build)
            done = (await asyncio.wait(tasks.values(), return_when=asyncio.FIRST_EXCEPTION))[0] if tasks else set()
            first = next((exc for t in tasks.values() if t in done and (exc := t.exception()) is not None), None)
            if first is None:
                driver.file_finished(plan, [t.result() for t in tasks.values()], (time.perf_counter() - t0) * 1000)
                return
            if isinstance(first, AbortRun) or not isinstance(first, (BatchsumError, OSError)):
                raise first
            # The file fails: its nodes already computing finish rather than being cancelled, since their
            # requests are sent (counted in its metrics, docs/metrics.md) and their outputs stored for the
            # next run; no other node of it starts.
            self._failing.add(id(plan))
            errors = await asyncio.gather(*tasks.values(), return_exceptions=True)
            if (abort := next((e for e in errors if isinstance(e, AbortRun)), None)) is not None:
                raise abort
        except AbortRun as exc:
            # No node starts now; those computing finish, since their requests are sent: the file's spend
            # (the stopping node's too) counts in the run's, as a failed file's does (docs/llm.md).
            self._aborted = True
            self._stop = self._stop or exc
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            driver.file_stopped(plan, _spent(tasks.values()))
            raise
        except BaseException:  # Ctrl-C, or a bug: no node goes on behind the run's back
            await _cancel(tasks.values())
            raise
        finally:
            self._failing.discard(id(plan))
        driver.file_failed(plan, str(first), (time.perf_counter() - t0) * 1000, _spent(tasks.values()))

    async def _node(
        self,
        plan: FilePlan,
        node: PlannedNode,
        tasks: dict[str, asyncio.Task[NodeResult]],
        height: int,
        driver: Driver,
    ) -> NodeResult:
        children = [await tasks[c] for c in node.inputs]
        if not node.inputs and self._leaf_slots is not None:
            async with self._leaf_slots:
                return await self._leaf(plan, node, height, driver)
        job = driver.job(plan, node, children, height)
        out = driver.stored(job)
        if out is not None:
            return driver.node_finished(plan, job, out, reused=True)
        return driver.node_finished(plan, job, await self._computed(plan, job), reused=False)

    async def _leaf(self, plan: FilePlan, node: PlannedNode, height: int, driver: Driver) -> NodeResult:
        job = driver.job(plan, node, [], height)
        out = driver.stored(job)
        if out is not None:
            return driver.node_finished(plan, job, out, reused=True)
        return driver.node_finished(plan, job, await self._computed(plan, job), reused=False)

    async def _computed(self, plan: FilePlan, job: NodeJob) -> SummaryOutput:
        if self._stop is not None:
            raise AbortRun(f"{job.node.node_id}: not summarized, the run stopped", node_id=job.node.node_id)
        if id(plan) in self._failing:
            raise SummarizationError(f"{job.node.node_id}: not summarized, its file failed", node_id=job.node.node_id)
        try:
            return await self.compute(job.request)
        except SummarizationError as exc:
            if isinstance(exc.output, SummaryOutput):
                # The failed node's spend, as its file's metrics record it (_spent).
                exc.output = NodeResult(job.node, exc.output, job.key, job.request.input_tokens, 0, False)
            raise

    async def compute(self, request: SummaryRequest) -> SummaryOutput:
        """The summary of one node's request, computed here (a distributed executor overrides this)."""
        return await summarize(self.backend, self.fallback, request)


def _spent(tasks: Iterable[asyncio.Task[NodeResult]]) -> list[NodeResult]:
    """The results of a failed file's nodes that finished, and of those that failed having sent requests
    (each once: a parent awaiting a failed child raises the child's error)."""
    out: list[NodeResult] = []
    for t in tasks:
        if not t.done() or t.cancelled():
            continue
        exc = t.exception()
        if exc is None:
            out.append(t.result())
        elif isinstance(exc, SummarizationError) and isinstance(exc.output, NodeResult) and exc.output not in out:
            out.append(exc.output)
    return out


async def _cancel(tasks: Iterable[asyncio.Task[Any]]) -> None:
    pending = list(tasks)
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
