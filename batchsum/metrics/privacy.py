"""Last line of defence against secrets in metrics: every string bound for a table,
a Parquet snapshot or a report passes through :func:`scrub_secrets` (the rules live in
:mod:`batchsum.secrets`)."""

from __future__ import annotations

from batchsum.secrets import MASK, scrub_optional, scrub_text

__all__ = ["MASK", "scrub_optional", "scrub_secrets"]


def scrub_secrets(text: str) -> str:
    """Mask API keys, bearer tokens, passwords and Authorization headers in ``text``."""
    return scrub_text(text)
