"""The same task graph on a Ray cluster: summaries are computed by worker actors, commits stay here.

The driver (this process) walks and runs each file's node graph exactly as the local executor does
(:class:`~batchsum.engine.executor.LocalExecutor`, whose graph this class inherits): node keys,
node-store reuse, node records, trees, manifest and metrics are all made here, by the same code.
The CPU work leaves the process: ``workers`` :class:`SummaryWorker` actors read, tokenize and plan
the changed files (:meth:`RayExecutor.read_ahead`, a few files ahead of the run; the files must be
reachable at the same path from every node), compute each node's summary with the backend they
hold (the extractive summarizer, or the LLM backend with the extractive fallback) and embed it for
the search index, which the driver then writes (to the local Chroma or a ``--chroma-host`` server).
Every LLM request of every worker passes one :class:`~batchsum.engine.limiter.LimiterService`
actor, so the cluster as a whole keeps ``--rpm``, ``--tpm`` and ``--concurrency``.

A worker that dies is restarted by Ray and its calls are retried on it; the driver records each
node the moment its result arrives, so a dead worker loses no finished node, and a driver killed
with ``kill -9`` leaves a node store the next run (either executor) resumes from.

Ray is imported only when a Ray executor is built: ``batchsum --help`` and runs with the local
executor never load it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from batchsum.backends.llm import LLMBackend
from batchsum.backends.registry import backend_class
from batchsum.config import LLM_CACHE_DIR
from batchsum.engine.executor import LocalExecutor, Note, summarize
from batchsum.engine.limiter import LimiterGate, limiter_actor, start_limiter
from batchsum.engine.prepare import Prepared, prepare_file
from batchsum.engine.ray_probe import cluster_token_available, require_ray
from batchsum.engine.stopping import BY_SIGTERM
from batchsum.errors import AbortRun, BatchsumError, ConfigError, Interrupted, RayUnavailable, SummarizationError
from batchsum.model import SummaryOutput
from batchsum.tokens import Tokenizer, get_tokenizer
from batchsum.walk import Problem, SourceRef

if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncIterator, Callable, Iterator, Mapping

    from batchsum.config import RunConfig
    from batchsum.engine.changes import Known
    from batchsum.engine.executor import Driver, ExecutorFactory, Work
    from batchsum.index.embed import Embedder
    from batchsum.model import Backend, SummaryRequest
    from batchsum.planning import FilePlan

log = logging.getLogger(__name__)

WORKER_RESTARTS = 3  # a worker that keeps dying (e.g. out of memory on one input) is not restarted forever
CALL_RETRIES = 2  # calls lost with a dead worker are retried on its restart this often
MAX_PENDING_CALLS = 10_000  # an LLM worker's concurrent calls, mostly waiting for the limiter
# Summary vectors the driver keeps for the index until the run's end (~1.5 KB each); past it the
# driver embeds the rest itself.
EMBEDDED_CAP = 50_000


class SummaryWorker:
    """One worker's backend (the body of a Ray actor): computes summaries, commits nothing."""

    def __init__(self, cfg: RunConfig, name: str, limiter: str | None, rate_period: float) -> None:
        tokenizer = get_tokenizer(cfg.encoding)
        self.cfg = cfg
        self.tokenizer = tokenizer
        self.embedder: Embedder | None = None  # loaded with the first summary to embed
        # numpy loads in the worker actors that summarize, not with the driver's module.
        extractive = backend_class("extractive")(tokenizer, final_words=cfg.final_words)
        self.backend: Backend = extractive
        self.fallback: Backend = extractive
        self.gate: LimiterGate | None = None
        if cfg.llm.enabled:
            from pathlib import Path

            if limiter is not None:
                # Found by name, not passed as a handle: a handle among the constructor's arguments is
                # held in the object store, which Ray warns on every run makes restarts fragile.
                self.gate = LimiterGate(limiter_actor(limiter), name)
                # A restarted worker frees the slots its dead predecessor held before asking for new ones.
                ray_get(self.gate.reclaim())
            # The rates are the limiter's, for the whole cluster; the worker's own cap on requests in
            # flight only repeats the global one.
            llm = dataclasses.replace(cfg.llm, rpm=None, tpm=None)
            self.backend = LLMBackend(
                llm,
                tokenizer=tokenizer,
                fallback=extractive,
                # The response cache is only shared when the state folder is (always on one machine).
                cache_dir=Path(cfg.state_dir) / LLM_CACHE_DIR if cfg.llm.cache else None,
                rate_period=rate_period,
                gate=self.gate,
            )
            if limiter is not None and cfg.metrics:
                # Each request answered goes to the driver's usage journal through the limiter, as it arrives:
                # a driver killed while this node waits for its next request has paid for this one. A run
                # without metrics journals nothing: nobody would take them from a shared limiter.
                actor, run = limiter_actor(limiter), name.rsplit("-w", 1)[0]  # the name is "<run tag>-w<i>"
                self.backend.client.on_request = lambda *paid: actor.paid.remote(run, *paid)

    async def summarize(self, request: SummaryRequest) -> tuple[Any, ...]:
        """("ok", output, vector), or ("abort" | "fail", message, node id, spent): a named error crosses the
        process boundary as data, so the driver raises the same exception the local executor would, with
        what the failed node spent (its requests sent: the run's metrics count them).

        ``vector`` is the search index's embedding of the summary (None when the run has no index),
        computed here so the driver only writes it."""
        try:
            out = await summarize(self.backend, self.fallback, request)
            return "ok", out, self._embed(out.text.strip())
        except AbortRun as exc:
            return "abort", str(exc), exc.node_id, _spent_output(exc)
        except SummarizationError as exc:
            return "fail", str(exc), request.node_id, _spent_output(exc)
        except (BatchsumError, OSError) as exc:
            return "fail", str(exc), request.node_id, None

    def _embed(self, text: str) -> Any:
        # A remote embedder (--embed-base-url) is called by the driver in batches, not once per summary.
        if not self.cfg.index or self.cfg.embed_base_url or not text:
            return None
        if self.embedder is None:
            # Lazy: the embedder (numpy, ONNX) loads only in a worker that embeds.
            from batchsum.index.embed import get_embedder

            self.embedder = get_embedder(self.cfg)
        return self.embedder.embed([text])[0]

    async def prepare(self, ref: SourceRef, known: Known | None) -> Prepared:
        """Read, tokenize and plan one changed file here (``prepare_file``); in a thread, so an LLM
        worker's requests keep flowing meanwhile."""
        import asyncio

        return await asyncio.to_thread(prepare_file, ref, self.cfg, self.tokenizer, known)

    async def pid(self) -> int:
        """The worker's process id (tests kill it)."""
        return os.getpid()

    async def aclose(self) -> None:
        """Close the backend's connections, once the limiter has every slot this worker gave back."""
        if self.gate is not None:
            await self.gate.drain()
        await self.backend.aclose()


def _spent_output(exc: SummarizationError) -> SummaryOutput | None:
    """What a failed node spent, to send back to the driver (its requests count in the run's metrics)."""
    return exc.output if isinstance(exc.output, SummaryOutput) else None


def ray_get(ref: Any) -> Any:
    """``ray.get`` (imported on use)."""
    import ray

    return ray.get(ref)


@dataclasses.dataclass
class RayOptions:
    """Where and how wide a Ray run goes."""

    address: str | None = None  # None: start a local Ray on this machine's cores; "auto": RAY_ADDRESS
    workers: int | None = None  # None: one per CPU of the cluster
    files_in_flight: int | None = None  # None: enough to keep every worker and request slot busy
    rate_period: float = 60.0  # the window of --rpm/--tpm (shorter only in tests)
    limiter: str | None = None  # a named limiter shared by every run on the cluster that names it


def connect(address: str | None, *, quiet: bool = False) -> bool:
    """Join ``address`` (``auto``: ``RAY_ADDRESS``), or start a local Ray when None; True when this call
    started or joined Ray (and so must shut it down), False when Ray was already connected. ``quiet``
    (``--quiet``): the cluster's notices are not printed (:func:`_import_ray`)."""
    _import_ray(quiet=quiet)
    import ray

    if ray.is_initialized():
        return False
    if address is not None:
        # A head that is not there, not a head, or refuses this machine's token: said within seconds, where
        # ray.init would retry for ever or blame nothing in particular (the command checked this already).
        require_ray(address)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address is None:
        kwargs["num_cpus"] = os.cpu_count() or 1
    if address is not None:
        use_cluster_token()
    # Ray announces, at warning level, that the local cluster it starts uses token authentication and how
    # to opt out; that cluster lives only for this run, and the notice would reach `--quiet`'s cron mail
    # every night. Its errors still pass.
    banner = logging.getLogger("ray._private.authentication.authentication_token_setup")
    only_errors = _OnlyErrors()
    if address is None:
        banner.addFilter(only_errors)
    try:
        # "local": a Ray of this machine's own, even where RAY_ADDRESS names a cluster (Ray would join it,
        # and refuse the num_cpus given) or another run's cluster is still up.
        with _sigterm_kept():
            ray.init(address=address or "local", **kwargs)
    except SystemExit as exc:
        # ray.init ends the process on SIGTERM (its handler's sys.exit(SIGTERM)) until it returns: the signal
        # goes to the handler the process had (a run's stops it cleanly), Ray's half-made connection is dropped.
        if exc.code != signal.SIGTERM:
            raise
        with contextlib.suppress(Exception):  # what a half-made connection left may not shut down cleanly
            disconnect()
        signal.raise_signal(signal.SIGTERM)
        raise Interrupted(BY_SIGTERM) from None
    except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:
        # The head's GCS took this machine's token just before (require_ray): the token is not the cause.
        raise RayUnavailable(f"cannot start or join Ray at {address or 'a local Ray'}: {_reason(exc)}") from None
    finally:
        banner.removeFilter(only_errors)
    return True


def _reason(exc: BaseException) -> str:
    """Ray's reason on one line: its message, then the causes it chained ("Failed to connect to Ray cluster
    at ..." says nothing of why)."""
    said: list[str] = []
    cause: BaseException | None = exc
    while cause is not None and len(said) < 3:
        text = " ".join(str(cause).split()) or type(cause).__name__
        if text not in said:
            said.append(text)
        cause = cause.__cause__
    return said[0] + "".join(f" ({text})" for text in said[1:])


@contextlib.contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Around ``ray.init``/``ray.shutdown``: the process's SIGTERM handler stays the one it had. Ray sets its
    own (Python's ``sys.exit``, then its core worker's C++ handler, which aborts the process with a stack
    dump): a run's handler (:func:`~batchsum.engine.stopping.sigterm_stops`) stops it cleanly instead."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        # Set again even when Python's view is unchanged: the C++ handler replaced it below Python.
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def disconnect() -> None:
    """``ray.shutdown``, keeping the process's SIGTERM handler (:func:`_sigterm_kept`)."""
    import ray

    with _sigterm_kept():
        ray.shutdown()


class _OnlyErrors(logging.Filter):
    """Lets a logger's errors through and nothing below them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


def use_cluster_token() -> None:
    """Send this machine's cluster token (:func:`cluster_token_available`) when joining a cluster by
    address, as ``ray start --address`` does: clusters started with ``ray start --head`` (Ray >= 2.60)
    refuse clients without it (``InvalidAuthToken``), and ``ray.init`` only looks for a token when it
    finds the cluster itself. A ``RAY_AUTH_MODE`` the user set is left as it is."""
    if "RAY_AUTH_MODE" in os.environ or not cluster_token_available():
        return
    try:
        from ray._private.authentication.authentication_token_setup import _enable_token_auth
    except ImportError:  # a Ray without token authentication
        return
    _enable_token_auth()  # RAY_AUTH_MODE=token for this process and its children, config refreshed


class RayExecutor(LocalExecutor):
    """The local executor's graph, with each summary computed by a Ray worker actor."""

    def __init__(
        self, cfg: RunConfig, options: RayOptions, backend: Backend, fallback: Backend, *, owns_ray: bool | None = None
    ) -> None:
        """``owns_ray``: Ray is connected already (:meth:`RayFactory.connect`), True when by this run (this
        executor shuts it down); None: connect now."""
        super().__init__(backend, fallback)
        import ray

        self.cfg = cfg
        self._turn = 0  # the worker that reads the next file (round robin)
        self.prepared_remotely = 0  # files whose reading and planning a worker did
        self._embedded: dict[str, Any] = {}

        self._owns_ray = connect(options.address, quiet=cfg.quiet) if owns_ray is None else owns_ray
        try:
            n, self._notes = worker_count(options.workers, needs_cpu=not cfg.llm.enabled)
            run_tag = self._run_tag = os.urandom(4).hex()
            # Told of each request a worker had answered (the run's usage journal), by _take_paid.
            self.on_request: Callable[[str, str, int, int], None] | None = None
            self._paid_task: asyncio.Task[None] | None = None
            self._closing = False
            self._shared_limiter = options.limiter is not None
            self._limiter: Any = None
            limiter_name = options.limiter or f"limiter-{run_tag}"  # the workers find it by this name
            self.limiter_stats: dict[str, Any] | None = None  # the limiter's counters, kept when it stops
            if cfg.llm.enabled:
                self._limiter = start_limiter(
                    cfg.llm.concurrency,
                    cfg.llm.rpm,
                    cfg.llm.tpm,
                    period=options.rate_period,
                    timeout=cfg.llm.timeout,
                    name=limiter_name,
                    shared=self._shared_limiter,
                )
                if options.limiter is not None:
                    _warn_if_other_limits(options.limiter, self._limiter, cfg, options.rate_period)
            worker_cls = ray.remote(SummaryWorker).options(
                # An LLM worker waits on the network: it takes no CPU slot from the CPU-bound ones.
                num_cpus=0 if cfg.llm.enabled else 1,
                # An LLM worker takes every node it is sent at once, so all of them wait at the limiter,
                # which serves the deepest chains first; an extractive worker computes one at a time.
                max_concurrency=MAX_PENDING_CALLS if cfg.llm.enabled else 1,
                max_restarts=WORKER_RESTARTS,
                max_task_retries=CALL_RETRIES,
            )
            self.workers: list[Any] = [
                # Worker names are unique on the cluster: a shared limiter tells the runs' workers apart.
                worker_cls.remote(
                    cfg, f"{run_tag}-w{i}", limiter_name if cfg.llm.enabled else None, options.rate_period
                )
                for i in range(n)
            ]
            self._load = [0] * n  # calls outstanding per worker: a node goes to the least busy one
            # Files being read and planned ahead of the run: two per worker keeps each busy between
            # its summaries without holding many unplanned texts in the driver.
            self.read_window = 2 * n
            # Files admitted but not finished: the driver holds their text and plans, so this bounds its
            # memory whatever the size of the corpus.
            self.files_in_flight = options.files_in_flight or max(64, 8 * n, 4 * cfg.llm.concurrency)
            self._room: asyncio.Semaphore | None = None  # made by execute(), on the run's event loop
        except BaseException:
            # A half-built executor is never closed by the run: stop the Ray it started.
            if self._owns_ray:
                disconnect()
            raise

    async def execute(self, plans: AsyncIterator[FilePlan], driver: Driver) -> None:
        """The local executor's graph, admitting a new file only while fewer than ``files_in_flight`` run."""
        import asyncio

        room = self._room = asyncio.Semaphore(self.files_in_flight)
        if self._limiter is not None and self.on_request is not None and self._paid_task is None:
            self._paid_task = asyncio.get_running_loop().create_task(self._take_paid())

        async def admitted() -> AsyncIterator[FilePlan]:
            async for plan in plans:
                await room.acquire()
                yield plan

        await super().execute(admitted(), driver)

    async def _take_paid(self, wait_s: float = 1.0) -> None:
        """Hand each request the workers had answered to ``on_request`` until the executor closes."""
        while True:
            closing = self._closing  # read before the take: the last one runs after every worker closed
            for paid in await self._limiter.take_paid.remote(self._run_tag, 0.0 if closing else wait_s):
                if self.on_request is not None:
                    self.on_request(*paid)
            if closing:
                return

    async def _file(self, plan: FilePlan, driver: Driver) -> None:
        # However the file ends (committed, failed, aborted), its admission slot is free again.
        try:
            await super()._file(plan, driver)
        finally:
            if self._room is not None:
                self._room.release()

    def notes(self) -> list[Note]:
        return self._notes

    def embeddings(self) -> Mapping[str, Any]:
        """The workers' vectors of the summaries they computed, by summary text."""
        return self._embedded

    def read_ahead(self, work: list[Work]) -> AsyncIterator[tuple[SourceRef, Prepared]]:
        """The workers read, tokenize and plan the changed files, a few per worker ahead of the run."""
        return self._read_ahead(work)

    async def _read_ahead(self, work: list[Work]) -> AsyncIterator[tuple[SourceRef, Prepared]]:
        import asyncio
        from collections import deque

        from ray.exceptions import RayError

        queue: deque[tuple[SourceRef, Known | None, Any]] = deque()
        todo = iter(work)

        def submit() -> None:
            for ref, known in todo:
                worker = self.workers[self._turn % len(self.workers)]
                self._turn += 1
                queue.append((ref, known, worker.prepare.remote(ref, known)))
                if len(queue) >= self.read_window:
                    return

        submit()
        while queue:
            ref, known, pending = queue.popleft()
            try:
                prepared: Prepared | None = await pending
            except RayError as exc:
                log.debug("%s: not prepared by a Ray worker (%s)", ref.path, exc)
                prepared = None
            if prepared is None or isinstance(prepared.doc, Problem):
                # Read again where the walk found it: a worker on another node may not see this
                # corpus, and a file that is truly bad gets the driver's own message.
                prepared = await asyncio.to_thread(prepare_file, ref, self.cfg, self._tokenizer(), known)
            else:
                self.prepared_remotely += 1
            submit()
            yield ref, prepared

    def _tokenizer(self) -> Tokenizer:
        return get_tokenizer(self.cfg.encoding)

    async def compute(self, request: SummaryRequest) -> SummaryOutput:
        """The summary of ``request``, computed by the least busy worker."""
        from ray.exceptions import RayActorError

        i = min(range(len(self.workers)), key=self._load.__getitem__)
        self._load[i] += 1
        try:
            reply = await self.workers[i].summarize.remote(request)
        except RayActorError as exc:
            # Ray restarted the worker and retried the call, and it died again: this node fails, the batch goes on.
            raise SummarizationError(
                f"{request.node_id}: Ray worker died ({type(exc).__name__})", node_id=request.node_id
            ) from None
        finally:
            self._load[i] -= 1
        if reply[0] == "ok":
            out: SummaryOutput = reply[1]
            if reply[2] is not None and len(self._embedded) < EMBEDDED_CAP:
                self._embedded[out.text.strip()] = reply[2]
            return out
        if reply[0] == "abort":
            raise AbortRun(reply[1], node_id=reply[2], output=reply[3])
        raise SummarizationError(reply[1], node_id=reply[2], output=reply[3])

    async def aclose(self) -> None:
        import ray

        for w in self.workers:
            try:
                await w.aclose.remote()
            except Exception:  # a worker that is gone has nothing to close
                pass
        if self._paid_task is not None:  # the requests the workers' closes left to take, then no more
            self._closing = True
            try:
                await self._paid_task
            except Exception as exc:  # a limiter gone: the node lines still count the finished nodes
                log.warning("Ray limiter: requests answered not all journaled (%s)", exc)
        if self._limiter is not None:
            # Whatever this run left in the limiter (a take that failed, a run that never executed): a
            # shared limiter outlives the run and would keep it for ever.
            try:
                await self._limiter.take_paid.remote(self._run_tag, 0.0)
            except Exception as exc:
                log.debug("Ray limiter: this run's answered requests not cleared (%s)", exc)
        if self._limiter is not None:  # read after the workers' closes: every release is in
            self.limiter_stats = await self._limiter.stats.remote()
            log.info("Ray limiter: %s", self.limiter_stats)
        for w in self.workers:
            ray.kill(w)
        if self._limiter is not None and not self._shared_limiter:
            ray.kill(self._limiter)
        await super().aclose()
        if self._owns_ray:
            disconnect()


def worker_count(asked: int | None, *, needs_cpu: bool) -> tuple[int, list[Note]]:
    """How many summary workers to start, and the warning when fewer than ``asked``: one per CPU of the
    cluster by default, and never more workers that each need a CPU (``needs_cpu``: the extractive ones)
    than the cluster has. Ray never schedules an actor it has no CPU for: the files sent to it would
    wait for ever."""
    import ray

    cpus = int(ray.cluster_resources().get("CPU", 0))
    if asked is None:
        return max(1, cpus), []
    if not needs_cpu or asked <= cpus:
        return asked, []
    if cpus < 1:
        raise ConfigError("the Ray cluster has no CPU for a summary worker (--ray-workers)")
    message = (
        f"--ray-workers {asked}: the Ray cluster has {cpus} CPU(s), and each extractive summary worker needs one;"
        f" {cpus} worker(s) started"
    )
    return cpus, [Note("ray_workers_capped", message)]


def _warn_if_other_limits(name: str, limiter: Any, cfg: RunConfig, period: float) -> None:
    """A shared limiter keeps the limits of the run that created it: say so when this run asks for others."""
    import ray

    held = tuple(ray.get(limiter.limits.remote()))
    rpm = cfg.llm.rpm if cfg.llm.rpm else None
    tpm = cfg.llm.tpm if cfg.llm.tpm else None
    if held != (cfg.llm.concurrency, rpm, tpm, period):
        log.warning(
            "Ray limiter %r enforces concurrency %s, rpm %s, tpm %s (per %ss), set by the run that created it;"
            " this run's --concurrency/--rpm/--tpm are not used",
            name,
            *held,
        )


def _import_ray(*, quiet: bool = False) -> None:
    """Import Ray; ConfigError naming the extra when it cannot be (missing, or its own imports fail).

    ``quiet`` (``--quiet``: only errors, for cron), when this imports Ray first: the driver prints none of the
    cluster's notices. A thread ``ray.init`` starts prints every error the cluster publishes for the job on
    stdout, in colour, whatever ``log_to_driver`` says, and a call retried after a worker died, or after a
    stopped run's ``ray.kill``, is none of the run's errors (the run reports a node it loses). Ray's log
    deduplication does not print the lines ``RAY_DEDUP_LOGS_SKIP_REGEX`` matches (Ray's "Configuring Logging"
    guide); Ray reads it as it is imported, so it is set for that import only."""
    skipped = {"RAY_DEDUP_LOGS_SKIP_REGEX": "^"} if quiet and "ray" not in sys.modules else {}  # "^": every line
    try:
        with _environment(skipped):
            import ray  # noqa: F401
    except ImportError as exc:
        # A Ray whose own imports fail is named as such; a missing one needs only the extra.
        broken = "" if getattr(exc, "name", None) == "ray" else f" (importing it failed: {exc})"
        raise ConfigError(f"--executor ray needs Ray{broken}: pip install 'batchsum[ray]'") from None


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """The process's environment with ``values`` set, and as it was again after (the user's own values too)."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class RayFactory:
    """Builds the run's :class:`RayExecutor` from its backends; :meth:`connect` joins (or starts) Ray first,
    so that a Ray that cannot be used stops the run before it records anything."""

    def __init__(self, cfg: RunConfig, options: RayOptions) -> None:
        self.cfg = cfg
        self.options = options
        self._owns: bool | None = None  # None: not connected by this factory (or handed to an executor)

    def connect(self) -> None:
        """Join or start Ray now (:func:`connect`): :class:`RayUnavailable` when ``ray.init`` fails, Interrupted
        on a SIGTERM meanwhile."""
        if self._owns is None:
            self._owns = connect(self.options.address, quiet=self.cfg.quiet)

    def release(self) -> None:
        """Leave the Ray :meth:`connect` started or joined when no executor took it over (the run stopped first)."""
        owns, self._owns = self._owns, None
        if owns:
            disconnect()

    def __call__(self, backend: Backend, fallback: Backend) -> RayExecutor:
        self.connect()
        owns, self._owns = self._owns, None  # the executor's now: it shuts Ray down as it closes
        return RayExecutor(self.cfg, self.options, backend, fallback, owns_ray=owns)


def ray_executor(cfg: RunConfig, options: RayOptions | None = None) -> ExecutorFactory:
    """The factory (a :class:`RayFactory`) the orchestrator calls with the run's backends to get a
    :class:`RayExecutor`; ConfigError at once when Ray is not installed."""
    _import_ray(quiet=cfg.quiet)
    return RayFactory(cfg, options or RayOptions())


def configured(cfg: RunConfig) -> ExecutorFactory:
    """:func:`ray_executor` with the cluster, workers and limiter ``cfg`` names (``--ray-address``,
    ``--ray-workers``, ``--ray-limiter``)."""
    return ray_executor(cfg, RayOptions(address=cfg.ray_address, workers=cfg.ray_workers, limiter=cfg.ray_limiter))
