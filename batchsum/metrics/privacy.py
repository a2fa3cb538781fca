"""Last line of defence against secrets in metrics: every string bound for a table,
a Parquet snapshot or a report passes through :func:`scrub_secrets`."""

from __future__ import annotations

import functools
import re

MASK = "***"
# Every pattern below needs one of these (case-insensitively): text without any is returned as is,
# so the common case costs one casefold() and no regex compilation at all.
_MARKERS = ("key", "token", "password", "secret", "bearer", "authorization", "sk-")

_SOURCES: list[tuple[str, str]] = [
    # --api-key VALUE / --api-key=VALUE (and similar credential flags); quoted values too.
    (
        r"(?i)(--(?:api[-_]?key|token|auth[-_]?token|password|secret|access[-_]?key)(?:\s+|=))"
        r"(?:\"[^\"]*\"|'[^']*'|\S+)",
        rf"\1{MASK}",
    ),
    # Authorization: <scheme> <credentials> (header dumps in error messages).
    (
        r"(?i)(\bauthorization\b[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;)\]}]+",
        rf"\1{MASK}",
    ),
    (r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+", rf"\1{MASK}"),
    # KEY=value style assignments: OPENAI_API_KEY=..., api_key="...", "api_key": "...", ?api_key=...
    (
        r"(?i)(\b[A-Z0-9_]*(?:api[-_]?key|secret|password|access[-_]?token|auth[-_]?token)[A-Z0-9_]*[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"'&,;}]+",
        rf"\1{MASK}",
    ),
    # OpenAI-style keys anywhere (sk-..., sk-proj-...).
    (r"\bsk-[A-Za-z0-9_-]{6,}", f"sk-{MASK}"),
]


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    return [(re.compile(src), repl) for src, repl in _SOURCES]


def scrub_secrets(text: str) -> str:
    """Mask API keys, bearer tokens and Authorization headers in ``text``."""
    lowered = text.casefold()  # casefold, not lower: it maps every character re.IGNORECASE treats as equal
    if not any(m in lowered for m in _MARKERS):
        return text
    for pattern, repl in _patterns():
        text = pattern.sub(repl, text)
    return text


def scrub_optional(text: str | None) -> str | None:
    """:func:`scrub_secrets` that passes ``None`` through."""
    return None if text is None else scrub_secrets(text)
