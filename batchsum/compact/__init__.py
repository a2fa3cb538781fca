"""Live conversation compaction: keep a chat or coding-agent session inside its context window.

``compact()`` replaces old turns with one structured summary message and keeps the recent tail
verbatim; ``should_compact()`` decides when (token ratio with hysteresis, cooldown, depth cap);
``Conversation`` does both as messages arrive. Rule-based by default (offline, deterministic);
an LLM on request, with the rules as fallback.
"""

from __future__ import annotations

from batchsum.compact.api import CompactionResult, Conversation, compact
from batchsum.compact.config import DEFAULT_CONFIG, CompactConfig
from batchsum.compact.record import SummaryContext, SummaryRecord
from batchsum.compact.trigger import TriggerDecision, TriggerState, should_compact

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
