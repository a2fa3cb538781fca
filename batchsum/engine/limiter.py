"""One request budget for a whole cluster: requests in flight, requests per window, tokens per window.

Every worker's LLM backend asks the limiter before each HTTP request (a retry is a new request) and
tells it when the response is in, so N workers together never exceed ``--concurrency``, ``--rpm`` or
``--tpm``. :class:`Budget` is the bookkeeping with the clock passed in (tested without waiting);
:class:`LimiterService` serves it to concurrent callers, highest priority first, and runs as one
Ray actor (:func:`start_limiter`); :class:`LimiterGate` is the worker's side of it.

A worker that dies holding a slot cannot give it back. Its restart does: tickets carry the worker's
name and incarnation, and a restarted worker first releases whatever its previous incarnation held
(:meth:`LimiterService.release_holder`). A worker that is not restarted is covered by expiry: every
grant is a lease that ends after the request timeout plus a margin.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

LIMITER_NAMESPACE = "batchsum"  # Ray namespace of named (shared) limiters
LEASE_MARGIN_S = 30.0  # a granted request that outlives its HTTP timeout by this much is presumed dead


@dataclass
class _Lease:
    granted: float
    expires: float
    tokens: list[float]  # the token-window entry [time, amount], adjusted when usage is reported


@dataclass
class Budget:
    """In-flight slots, request starts and tokens per ``period`` seconds; ``None`` limits are off.

    Requests per window are both spaced (one start every ``period / rpm`` seconds, as the local
    backend does, so a run never opens with a burst) and counted: no half-open window of ``period``
    seconds ever holds more than ``rpm`` starts. Tokens are reserved at the start (prompt + max
    output) and corrected to what the server reported when the request ends.
    """

    concurrency: int
    rpm: float | None = None
    tpm: float | None = None
    period: float = 60.0
    lease_s: float = 600.0
    _inflight: dict[str, _Lease] = field(default_factory=dict)
    _starts: deque[float] = field(default_factory=deque)
    _tokens: deque[list[float]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1 (got {self.concurrency})")
        if self.rpm is not None and self.rpm <= 0:
            self.rpm = None
        if self.tpm is not None and self.tpm <= 0:
            self.tpm = None

    @property
    def inflight(self) -> int:
        """Requests granted and not yet released (or expired)."""
        return len(self._inflight)

    def _forget(self, now: float) -> None:
        horizon = now - self.period
        while self._starts and self._starts[0] <= horizon:
            self._starts.popleft()
        while self._tokens and self._tokens[0][0] <= horizon:
            self._tokens.popleft()

    def wait_for(self, now: float, tokens: float) -> float | None:
        """0 when a request of ``tokens`` may start at ``now``; else the seconds until the rates allow
        it; None while every slot is taken (only a release or an expiry helps)."""
        self._forget(now)
        if len(self._inflight) >= self.concurrency:
            return None
        wait = 0.0
        if self.rpm is not None and self._starts:
            spaced = self._starts[-1] + self.period / self.rpm
            wait = max(wait, spaced - now)
            if len(self._starts) >= max(1, math.floor(self.rpm)):
                # The oldest start of a full window has to leave it first.
                wait = max(wait, self._starts[-max(1, math.floor(self.rpm))] + self.period - now)
        if self.tpm is not None:
            need = min(tokens, self.tpm)
            used = sum(e[1] for e in self._tokens)
            if used + need > self.tpm:
                for t, amount in self._tokens:  # oldest first: when does enough leave the window?
                    used -= amount
                    if used + need <= self.tpm:
                        wait = max(wait, t + self.period - now)
                        break
        return max(0.0, wait)

    def grant(self, ticket: str, now: float, tokens: float) -> None:
        """Record a start at ``now`` (call only when :meth:`wait_for` returned 0)."""
        entry = [now, min(tokens, self.tpm) if self.tpm is not None else tokens]
        if self.rpm is not None:
            self._starts.append(now)
        if self.tpm is not None:
            self._tokens.append(entry)
        self._inflight[ticket] = _Lease(now, now + self.lease_s, entry)

    def release(self, ticket: str, used_tokens: float | None = None) -> bool:
        """The request of ``ticket`` ended; ``used_tokens`` (prompt + completion the server reported)
        replaces its reservation. False when the ticket was unknown (already released or expired)."""
        lease = self._inflight.pop(ticket, None)
        if lease is None:
            return False
        if used_tokens is not None and used_tokens >= 0:
            lease.tokens[1] = float(used_tokens)
        return True

    def tickets(self) -> list[str]:
        """Tickets granted and not yet released."""
        return list(self._inflight)

    def expire(self, now: float) -> list[str]:
        """Free the slots of leases past their expiry (their holder died); returns their tickets."""
        dead = [t for t, lease in self._inflight.items() if lease.expires <= now]
        for t in dead:
            del self._inflight[t]
        return dead

    def next_expiry(self) -> float | None:
        """When the oldest lease expires, or None without leases."""
        return min((lease.expires for lease in self._inflight.values()), default=None)


@dataclass(order=True)
class _Waiter:
    rank: tuple[int, int]  # (-priority, arrival order): heapq pops the highest priority, FIFO within it
    ticket: str = field(compare=False)
    tokens: float = field(compare=False)
    future: asyncio.Future[bool] = field(compare=False)  # True: granted; False: withdrawn by cancel()


class LimiterService:
    """:class:`Budget` served to concurrent callers on one event loop (the body of the limiter actor).

    Waiters are served strictly in order (highest priority first, then first come): the head of the
    queue waits for its budget and nobody overtakes it, so a large request is never starved by
    small ones.
    """

    def __init__(
        self,
        concurrency: int,
        rpm: float | None,
        tpm: float | None,
        *,
        period: float = 60.0,
        lease_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._budget = Budget(concurrency, rpm, tpm, period=period, lease_s=lease_s)
        self._clock = clock
        self._waiters: list[_Waiter] = []
        self._seq = 0
        self._wake: asyncio.Event | None = None
        self._pump: asyncio.Task[None] | None = None
        self._cancelled: set[str] = set()
        self.granted = 0
        self.peak_inflight = 0
        self.expired = 0
        self.peak_window = 0  # the most grants in any one period: never above rpm
        self._recent: deque[float] = deque()  # grant times within the last period
        # Per run: its workers' requests answered (name, model, prompt and completion tokens) until its
        # driver takes them for its usage journal (a shared limiter serves several runs).
        self._paid: dict[str, list[tuple[str, str, int, int]]] = {}
        self._paid_wake: asyncio.Event | None = None

    async def acquire(self, ticket: str, priority: int = 1, tokens: float = 0.0) -> bool:
        """Wait until a request of ``tokens`` may start; True once granted under ``ticket`` (False when
        :meth:`cancel` withdrew it first)."""
        if ticket in self._cancelled:
            self._cancelled.discard(ticket)
            return False
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._seq += 1
        heapq.heappush(self._waiters, _Waiter((-priority, self._seq), ticket, float(tokens), fut))
        self._kick()
        try:
            return await fut
        except asyncio.CancelledError:
            self._budget.release(ticket)
            self._kick()
            raise

    async def release(self, ticket: str, used_tokens: float | None = None) -> None:
        """The request of ``ticket`` is over (whatever its outcome)."""
        if self._budget.release(ticket, used_tokens):
            self._kick()

    async def cancel(self, ticket: str) -> None:
        """The caller gave up waiting: drop its place in the queue, or hand back a slot already granted."""
        for w in self._waiters:
            if w.ticket == ticket and not w.future.done():
                w.future.set_result(False)
                self._kick()
                return
        if not self._budget.release(ticket):
            self._cancelled.add(ticket)  # the cancel overtook its acquire
        self._kick()

    async def release_holder(self, holder: str, keep: str) -> int:
        """Release every ticket of ``holder`` (``holder:incarnation:n``) except the incarnation ``keep``:
        a restarted worker frees what its dead predecessor held. Returns how many were freed."""
        prefix = f"{holder}:"
        mine = f"{holder}:{keep}:"
        stale = [t for t in self._budget.tickets() if t.startswith(prefix) and not t.startswith(mine)]
        for t in stale:
            self._budget.release(t)
        for w in self._waiters:
            if w.ticket.startswith(prefix) and not w.ticket.startswith(mine) and not w.future.done():
                w.future.set_result(False)
        self._kick()
        return len(stale)

    async def paid(self, run: str, name: str, model: str, prompt_tokens: int, completion_tokens: int) -> None:
        """A worker of ``run`` had the request named ``name`` answered (or failed): kept for its driver."""
        self._paid.setdefault(run, []).append((name, model, prompt_tokens, completion_tokens))
        if self._paid_wake is not None:
            self._paid_wake.set()

    async def take_paid(self, run: str, wait_s: float) -> list[tuple[str, str, int, int]]:
        """The requests of ``run`` answered since the last take, waiting up to ``wait_s`` for a first."""
        if not self._paid.get(run) and wait_s > 0:
            self._paid_wake = self._paid_wake or asyncio.Event()
            self._paid_wake.clear()
            try:
                await asyncio.wait_for(self._paid_wake.wait(), wait_s)
            except TimeoutError:
                pass
        return self._paid.pop(run, [])

    async def limits(self) -> tuple[int, float | None, float | None, float]:
        """(concurrency, rpm, tpm, period) this limiter enforces."""
        b = self._budget
        return b.concurrency, b.rpm, b.tpm, b.period

    async def stats(self) -> dict[str, Any]:
        """Counters: requests granted, peak and current in flight, the most grants in one period, leases
        expired, waiters."""
        return {
            "granted": self.granted,
            "peak_window": self.peak_window,
            "peak_inflight": self.peak_inflight,
            "inflight": self._budget.inflight,
            "expired": self.expired,
            "waiting": sum(1 for w in self._waiters if not w.future.done()),
        }

    def _kick(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._serve())

    async def _serve(self) -> None:
        assert self._wake is not None
        while self._waiters:
            head = self._waiters[0]
            if head.future.done():  # withdrawn while waiting
                heapq.heappop(self._waiters)
                continue
            now = self._clock()
            self.expired += len(self._budget.expire(now))
            wait = self._budget.wait_for(now, head.tokens)
            if wait == 0:
                heapq.heappop(self._waiters)
                self._budget.grant(head.ticket, now, head.tokens)
                self.granted += 1
                self.peak_inflight = max(self.peak_inflight, self._budget.inflight)
                self._recent.append(now)
                while now - self._recent[0] >= self._budget.period:
                    self._recent.popleft()
                self.peak_window = max(self.peak_window, len(self._recent))
                head.future.set_result(True)
                continue
            if wait is None:  # all slots taken: a release wakes us, or the oldest lease expires
                expiry = self._budget.next_expiry()
                wait = None if expiry is None else max(0.0, expiry - now)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            except TimeoutError:
                pass


class LimiterGate:
    """A worker's per-request gate backed by the limiter actor (see ``LLMBackend(gate=...)``).

    ``holder`` names the worker across restarts; each gate is one incarnation of it.
    """

    def __init__(self, actor: Any, holder: str) -> None:
        import itertools
        import uuid

        self._actor = actor
        self.holder = holder
        self.incarnation = uuid.uuid4().hex[:12]
        self._seq = itertools.count()
        self._releases: set[Any] = set()  # sent and maybe not yet applied by the actor (see drain)

    def reclaim(self) -> Any:
        """Free what earlier incarnations of this worker held (call once, when the worker starts)."""
        return self._actor.release_holder.remote(self.holder, self.incarnation)

    async def enter(self, priority: int, tokens: int) -> str:
        """Wait for the cluster-wide budget; returns the ticket to hand to :meth:`exit`."""
        ticket = f"{self.holder}:{self.incarnation}:{next(self._seq)}"
        try:
            granted = await self._actor.acquire.remote(ticket, priority, tokens)
        except asyncio.CancelledError:
            self._actor.cancel.remote(ticket)
            raise
        if not granted:  # withdrawn: only a cancel of this very ticket does that
            raise asyncio.CancelledError
        return ticket

    def exit(self, ticket: str, used_tokens: int | None) -> None:
        """The request is over; ``used_tokens`` is what the server reported (None when it failed)."""
        self._releases.add(self._actor.release.remote(ticket, used_tokens))
        if len(self._releases) > 256:  # keep only those still on their way
            import ray

            done, _ = ray.wait(list(self._releases), num_returns=len(self._releases), timeout=0)
            self._releases.difference_update(done)

    async def drain(self) -> None:
        """Wait until the limiter has applied every release this gate sent. Ray orders the calls of one
        caller only, so without this the driver could read the limiter's counters before a worker's
        last release arrived."""
        await asyncio.gather(*self._releases)
        self._releases.clear()


def start_limiter(
    concurrency: int,
    rpm: float | None,
    tpm: float | None,
    *,
    period: float = 60.0,
    timeout: float = 120.0,
    name: str,
    shared: bool = False,
) -> Any:
    """Start the limiter actor ``name`` on the connected Ray cluster; returns its handle. Workers find
    it by that name (:func:`limiter_actor`).

    A ``shared`` limiter is the cluster's limiter of that name, shared by every run that names it
    (several drivers, one provider limit): it is created by the first such run, with that run's
    limits, and outlives it. Otherwise the name must be the run's own, and the limiter ends with it.
    """
    import ray

    # Every waiting request is a pending call on the actor: its concurrency must not be what limits.
    options: dict[str, Any] = {"num_cpus": 0, "max_concurrency": 100_000, "name": name, "namespace": LIMITER_NAMESPACE}
    if shared:
        options.update(get_if_exists=True, lifetime="detached")
    actor = ray.remote(LimiterService).options(**options)
    return actor.remote(concurrency, rpm, tpm, period=period, lease_s=timeout + LEASE_MARGIN_S)


def limiter_actor(name: str) -> Any:
    """The handle of the limiter actor :func:`start_limiter` started as ``name``."""
    import ray

    return ray.get_actor(name, namespace=LIMITER_NAMESPACE)
