"""Last line of defence against secrets in metrics: every string bound for a table,
a Parquet snapshot or a report passes through :func:`scrub_secrets`."""

from __future__ import annotations

import re

MASK = "***"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # --api-key VALUE / --api-key=VALUE (and similar credential flags); quoted values too.
    (
        re.compile(
            r"(?i)(--(?:api[-_]?key|token|auth[-_]?token|password|secret|access[-_]?key)(?:\s+|=))"
            r"(?:\"[^\"]*\"|'[^']*'|\S+)"
        ),
        rf"\1{MASK}",
    ),
    # Authorization: <scheme> <credentials> (header dumps in error messages).
    (
        re.compile(r"(?i)(\bauthorization\b[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;)\]}]+"),
        rf"\1{MASK}",
    ),
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+"), rf"\1{MASK}"),
    # KEY=value style assignments: OPENAI_API_KEY=..., api_key="...", "api_key": "...", ?api_key=...
    (
        re.compile(
            r"(?i)(\b[A-Z0-9_]*(?:api[-_]?key|secret|password|access[-_]?token|auth[-_]?token)[A-Z0-9_]*[\"']?\s*[:=]\s*[\"']?)"
            r"[^\s\"'&,;}]+"
        ),
        rf"\1{MASK}",
    ),
    # OpenAI-style keys anywhere (sk-..., sk-proj-...).
    (re.compile(r"\bsk-[A-Za-z0-9_-]{6,}"), f"sk-{MASK}"),
]


def scrub_secrets(text: str) -> str:
    """Mask API keys, bearer tokens and Authorization headers in ``text``."""
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def scrub_optional(text: str | None) -> str | None:
    """:func:`scrub_secrets` that passes ``None`` through."""
    return None if text is None else scrub_secrets(text)
