"""When to compact: a token-ratio trigger with hysteresis, cooldown, a depth guard and an emergency path.

The checks run in this order (the first that decides wins):

1. disabled -> no;
2. fewer than ``min_messages`` messages -> no;
3. usage >= 100 % of the window -> yes (emergency: ignores cooldown and hysteresis);
4. fewer than ``cooldown_messages`` new messages since the last compaction -> no;
5. ``force_refresh_after_messages`` new messages since the last compaction -> yes (periodic refresh);
6. usage below ``trigger_token_ratio`` -> no;
7. not re-armed since the last compaction (usage never fell below ``reset_token_ratio``) -> no;
8. otherwise -> yes.

A summary chain that already holds ``max_summary_chain_depth`` records stops nothing: ``compact()``
then starts a new chain at depth 0 (from the originals when given), so the trigger fires as it
would otherwise and its reason says so. Refusing there left a conversation growing past its window.

Every check with usage below ``reset_token_ratio`` re-arms the trigger. A :class:`TriggerState`
carries what the checks need between calls; :meth:`TriggerState.compacted`
records a compaction (or a failed attempt, which also disarms, so a failing summarizer is not
called again on every message).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from batchsum.compact.config import DEFAULT_CONFIG, CompactConfig
from batchsum.compact.messages import Message, as_message, total_tokens
from batchsum.compact.record import SummaryRecord
from batchsum.tokens import Tokenizer, get_tokenizer


@dataclass
class TriggerState:
    """What the trigger remembers between checks of one conversation."""

    armed: bool = True  # False after a compaction until usage falls below reset_token_ratio
    count_after_last: int | None = None  # message count right after the last compaction
    last_ratio: float | None = None  # usage when the last compaction triggered

    def messages_since_last(self, count: int) -> int | None:
        """New messages since the last compaction (None when there was none)."""
        if self.count_after_last is None:
            return None
        return max(0, count - self.count_after_last)

    def compacted(self, message_count: int, ratio: float) -> None:
        """Record a compaction (or a failed attempt) that left ``message_count`` messages."""
        self.armed = False
        self.count_after_last = message_count
        self.last_ratio = ratio


@dataclass(frozen=True)
class TriggerDecision:
    """The verdict of one check; true when a compaction should run now."""

    compact: bool
    reason: str
    tokens: int
    ratio: float
    emergency: bool = False

    def __bool__(self) -> bool:
        return self.compact


def chain_length(history: Sequence[SummaryRecord] | SummaryRecord | None) -> int:
    """Records in the current chain: the last record's depth + 1 (0 without history)."""
    if isinstance(history, SummaryRecord):
        return history.depth + 1
    if not history:
        return 0
    return history[-1].depth + 1


def should_compact(
    messages: Sequence[Mapping[str, Any] | Message],
    *,
    context_window: int,
    config: CompactConfig | None = None,
    state: TriggerState | None = None,
    history: Sequence[SummaryRecord] | SummaryRecord | None = None,
    tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> TriggerDecision:
    """Decide whether ``messages`` should be compacted now (see the module docstring for the rules).

    ``tokens``: the caller's count of the messages (counted here when None). ``state`` is updated
    in place when usage re-arms the trigger.
    """
    cfg = config or DEFAULT_CONFIG
    if context_window <= 0:
        raise ValueError(f"context_window must be positive (got {context_window})")
    if tokens is None:
        tok = tokenizer or get_tokenizer(cfg.encoding)
        tokens = total_tokens([as_message(m, f"message {i + 1}") for i, m in enumerate(messages)], tok)
    ratio = tokens / context_window
    st = state or TriggerState()

    def no(reason: str) -> TriggerDecision:
        return TriggerDecision(False, reason, tokens, ratio)

    if ratio < cfg.reset_token_ratio:
        st.armed = True  # usage fell below the reset ratio: the next crossing may trigger again
    if not cfg.enabled:
        return no("compaction is disabled")
    if len(messages) < cfg.min_messages:
        return no(f"only {len(messages)} messages (min_messages {cfg.min_messages})")
    depth = chain_length(history)
    restart = (
        f"; the summary chain has {depth} of {cfg.max_summary_chain_depth} records, so a new chain starts"
        if depth >= cfg.max_summary_chain_depth
        else ""
    )
    if ratio >= 1.0:
        return TriggerDecision(
            True, f"emergency: usage {ratio:.0%} of the context window{restart}", tokens, ratio, True
        )
    since = st.messages_since_last(len(messages))
    if since is not None and since < cfg.cooldown_messages:
        return no(f"cooldown: {since} new messages since the last compaction (need {cfg.cooldown_messages})")
    if since is not None and cfg.force_refresh_after_messages and since >= cfg.force_refresh_after_messages:
        return TriggerDecision(True, f"refresh: {since} messages since the last compaction{restart}", tokens, ratio)
    if ratio < cfg.trigger_token_ratio:
        return no(f"usage {ratio:.0%} below the trigger ratio {cfg.trigger_token_ratio:.0%}")
    if not st.armed:
        return no(f"hysteresis: usage has not fallen below {cfg.reset_token_ratio:.0%} since the last compaction")
    return TriggerDecision(
        True, f"usage {ratio:.0%} reached the trigger ratio {cfg.trigger_token_ratio:.0%}{restart}", tokens, ratio
    )
