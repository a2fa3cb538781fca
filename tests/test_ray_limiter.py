"""The cluster-wide request budget: its bookkeeping on a simulated clock and its service on a real event loop.

The limiter actor itself is exercised against the loopback server in ``test_ray_executor.py``.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from batchsum.engine.limiter import Budget, LimiterService


def simulate(budget: Budget, requests: list[float], hold: float = 0.0) -> list[float]:
    """Start ``requests`` (token sizes) in order as early as ``budget`` allows; each ends ``hold`` seconds
    after its start. Returns the start times (a simulated clock: nothing sleeps)."""
    now, starts, ends = 0.0, [], []  # ends: (time, ticket)
    for i, tokens in enumerate(requests):
        while True:
            for t, ticket in [e for e in ends if e[0] <= now]:
                budget.release(ticket)
                ends.remove((t, ticket))
            wait = budget.wait_for(now, tokens)
            if wait == 0:
                break
            if wait is None:
                wait = min(t for t, _ in ends) - now
            now += wait
        budget.grant(f"r{i}", now, tokens)
        starts.append(now)
        ends.append((now + hold, f"r{i}"))
    return starts


def most_in_window(starts: list[float], period: float) -> int:
    """The largest number of starts inside any half-open window [t, t + period)."""
    return max(sum(1 for s in starts if t <= s < t + period) for t in starts)


def test_no_more_than_concurrency_in_flight() -> None:
    b = Budget(concurrency=3)
    for i in range(3):
        assert b.wait_for(0.0, 10) == 0
        b.grant(f"t{i}", 0.0, 10)
    assert b.wait_for(0.0, 10) is None, "every slot is taken: no amount of waiting helps"
    assert b.release("t1", used_tokens=7)
    assert not b.release("t1"), "a ticket is released once"
    assert b.wait_for(0.0, 10) == 0


def test_requests_per_window_are_spaced_and_counted() -> None:
    # 120 per 60 s, as `--rpm 120`: 400 requests held 3 s each by 8 slots (2.7/s without the limit).
    budget = Budget(concurrency=8, rpm=120, period=60.0)
    starts = simulate(budget, [100.0] * 400, hold=3.0)
    assert most_in_window(starts, 60.0) <= 120
    assert min(b - a for a, b in itertools.pairwise(starts)) >= 0.5 - 1e-9
    assert starts[-1] == pytest.approx(399 * 0.5), "paced, not slower than the limit"


def test_a_fractional_rpm_still_spaces_requests() -> None:
    starts = simulate(Budget(concurrency=4, rpm=0.5, period=60.0), [1.0] * 3)
    assert starts == [0.0, 120.0, 240.0]


def test_tokens_per_window_reserve_then_settle_to_what_the_server_reported() -> None:
    b = Budget(concurrency=10, tpm=1000, period=60.0)
    b.grant("a", 0.0, 600)
    assert b.wait_for(1.0, 600) == pytest.approx(59.0), "the second would exceed the window until the first leaves"
    b.release("a", used_tokens=300)  # the server used less than reserved
    assert b.wait_for(1.0, 600) == 0
    b.grant("b", 1.0, 600)
    assert b.wait_for(2.0, 200) == pytest.approx(58.0)
    assert b.wait_for(2.0, 100) == 0


def test_a_request_larger_than_the_token_budget_runs_alone() -> None:
    b = Budget(concurrency=2, tpm=500, period=10.0)
    assert b.wait_for(0.0, 5000) == 0
    b.grant("big", 0.0, 5000)
    assert b.wait_for(0.5, 1) == pytest.approx(9.5)
    starts = simulate(Budget(concurrency=2, tpm=500, period=10.0), [5000, 5000, 5000], hold=1.0)
    assert starts == [0.0, 10.0, 20.0]


def test_tokens_over_many_windows_never_exceed_the_budget() -> None:
    sizes = [float(50 + (i * 37) % 400) for i in range(300)]
    budget = Budget(concurrency=16, tpm=2000, period=60.0)
    starts = simulate(budget, sizes, hold=2.0)
    for t in starts:
        assert sum(s for s, at in zip(sizes, starts, strict=True) if t <= at < t + 60.0) <= 2000


def test_a_lease_whose_holder_died_expires() -> None:
    b = Budget(concurrency=1, lease_s=150.0)
    b.grant("dead-worker", 0.0, 1)
    assert b.wait_for(100.0, 1) is None
    assert b.next_expiry() == 150.0
    assert b.expire(149.0) == []
    assert b.expire(150.0) == ["dead-worker"]
    assert b.wait_for(150.0, 1) == 0
    assert not b.release("dead-worker"), "a late release of an expired lease changes nothing"


def test_service_serves_the_highest_priority_first_and_caps_in_flight() -> None:
    async def main() -> tuple[list[str], int]:
        svc = LimiterService(concurrency=2, rpm=None, tpm=None)
        order: list[str] = []
        inflight = peak = 0

        async def request(name: str, priority: int) -> None:
            nonlocal inflight, peak
            assert await svc.acquire(name, priority, 10)
            inflight += 1
            peak = max(peak, inflight)
            order.append(name)
            await asyncio.sleep(0)  # hold the slot across a turn of the loop
            inflight -= 1
            await svc.release(name, 8)

        # Two take the slots; of the queued ones, priority 3 goes before priority 1 whatever came first.
        low = [asyncio.create_task(request(f"low{i}", 1)) for i in range(4)]
        await asyncio.sleep(0)
        high = asyncio.create_task(request("high", 3))
        await asyncio.gather(*low, high)
        stats = await svc.stats()
        assert stats["granted"] == 5 and stats["inflight"] == 0 and stats["peak_inflight"] == 2
        assert stats["peak_window"] == 5  # all within one 60-second period
        return order, peak

    order, peak = asyncio.run(main())
    assert peak <= 2
    assert order.index("high") <= 2, order


def test_service_cancel_withdraws_a_waiter_or_returns_its_slot() -> None:
    async def main() -> None:
        svc = LimiterService(concurrency=1, rpm=None, tpm=None)
        assert await svc.acquire("a")
        waiting = asyncio.create_task(svc.acquire("b"))
        await asyncio.sleep(0)
        await svc.cancel("b")
        assert await waiting is False, "withdrawn, not granted"
        await svc.cancel("a")  # a granted slot handed back by its cancelled caller
        assert await asyncio.wait_for(svc.acquire("c"), 5)
        await svc.cancel("d")  # a cancel that overtakes its own acquire
        assert await svc.acquire("d") is False
        assert (await svc.stats())["inflight"] == 1

    asyncio.run(main())
