"""Requests of this process waiting on its own rate limits (``--rpm``/``--tpm``) right now.

The LLM backend counts them while it waits; the progress line shows the count, so a run held back by
its own limits says so instead of looking stuck or slow. Process-wide: one run per process.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

_WAITING: Counter[str] = Counter()


async def acquire(limiter: Any, amount: float, option: str) -> None:
    """``await limiter.acquire(amount)`` (an aiolimiter limiter), counted under ``option`` (``--rpm``)
    while the limiter makes it wait."""
    if limiter.has_capacity(amount):
        await limiter.acquire(amount)
        return
    _WAITING[option] += 1
    try:
        await limiter.acquire(amount)
    finally:
        _WAITING[option] -= 1


def waiting() -> str:
    """``"3 requests waiting for --rpm"`` while any wait, else ``""``."""
    parts = [f"{n} waiting for {option}" for option, n in sorted(_WAITING.items()) if n > 0]
    return ", ".join(parts)
