"""Live conversation compaction: keep a chat or coding-agent session inside its context window.

``compact()`` replaces old turns with one structured summary message and keeps the recent tail
verbatim; ``should_compact()`` decides when (token ratio with hysteresis, cooldown, emergency);
``Conversation`` does both as messages arrive. Rule-based by default (offline, deterministic);
an LLM on request, with the rules as fallback.

Names load on first use, so reading a transcript (``batchsum.compact.messages``) does not pull in
the extractive summarizer and numpy.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batchsum.compact.api import CompactionResult, Conversation, compact
    from batchsum.compact.config import DEFAULT_CONFIG, CompactConfig
    from batchsum.compact.record import SummaryContext, SummaryRecord
    from batchsum.compact.trigger import TriggerDecision, TriggerState, should_compact

_EXPORTS = {
    "CompactionResult": "api",
    "Conversation": "api",
    "compact": "api",
    "DEFAULT_CONFIG": "config",
    "CompactConfig": "config",
    "SummaryContext": "record",
    "SummaryRecord": "record",
    "TriggerDecision": "trigger",
    "TriggerState": "trigger",
    "should_compact": "trigger",
}

__all__ = [
    "DEFAULT_CONFIG",
    "CompactConfig",
    "CompactionResult",
    "Conversation",
    "SummaryContext",
    "SummaryRecord",
    "TriggerDecision",
    "TriggerState",
    "compact",
    "should_compact",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'batchsum.compact' has no attribute {name!r}")
    return getattr(importlib.import_module(f"batchsum.compact.{module}"), name)


class _CallablePackage(types.ModuleType):
    """``batchsum.compact(messages, context_window=...)`` is ``batchsum.compact.compact(...)``: the
    package and its main function share a name on ``batchsum``."""

    def __call__(self, *args: Any, **options: Any) -> CompactionResult:
        # Everything forwarded as given, so a call binds exactly as __signature__ says (messages= too).
        result: CompactionResult = __getattr__("compact")(*args, **options)
        return result

    @property
    def __signature__(self) -> inspect.Signature:
        """The real :func:`~batchsum.compact.api.compact`'s, its keyword-only options shown (loaded on first
        look, not at ``import batchsum``)."""
        return inspect.signature(__getattr__("compact"))


sys.modules[__name__].__class__ = _CallablePackage
