"""A run's own LLM rate limits (``--rpm``/``--tpm``): their defaults by where the server is, and the
requests of this process waiting on them right now.

The LLM backend counts waiting requests; the progress line shows the count, so a run held back by
its own limits says so instead of looking stuck or slow (process-wide: one run per process). Light
on purpose: every run's config settles its defaults here, an unchanged extractive re-run included.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

# Limits of a hosted API when none are given: a provider's lowest tiers allow about this much.
HOSTED_RPM = 60.0
HOSTED_TPM = 60000.0
LAN_SUFFIXES = (".local", ".lan", ".internal", ".home.arpa")  # mDNS (RFC 6762), RFC 8375, common LAN names

_WAITING: Counter[str] = Counter()


def local_server(url: str | None) -> bool:
    """True for a server on this machine or the local network: a loopback or private address
    (RFC 1918, RFC 4193, link-local), ``localhost``, a single-label host name or a LAN suffix."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url or "").hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host:
        return False
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith((".localhost", *LAN_SUFFIXES))
    return ip.is_loopback or ip.is_private or ip.is_link_local


def default_rates(base_url: str | None) -> tuple[float | None, float | None]:
    """(requests, tokens) per minute when none are given: no limit for a local or LAN server
    (Ollama, llama.cpp, vLLM: only ``--concurrency`` matters there), a hosted API's otherwise."""
    if local_server(base_url):
        return None, None
    return HOSTED_RPM, HOSTED_TPM


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
