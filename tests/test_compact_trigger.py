"""should_compact(): the trigger sequences of the design - ratio, hysteresis, cooldown, emergency, depth cap."""

from __future__ import annotations

from typing import Any

import pytest

from batchsum.compact import CompactConfig, SummaryRecord, TriggerState, should_compact
from batchsum.compact.record import SummaryContext

WINDOW = 1000
CFG = CompactConfig()  # 0.8 / 0.7 / min 12 / cooldown 4 / depth 3


def _msgs(n: int) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(n)]


def _record(depth: int) -> SummaryRecord:
    return SummaryRecord(f"r{depth}", 0, depth, f"r{depth - 1}" if depth else None, "s", [], SummaryContext(), [])


def check(n: int, tokens: int, state: TriggerState, history: list[SummaryRecord] | None = None, **cfg: Any) -> Any:
    config = CompactConfig(**cfg) if cfg else CFG
    return should_compact(_msgs(n), context_window=WINDOW, config=config, state=state, tokens=tokens, history=history)


def test_single_long_thread_triggers_once_at_the_ratio() -> None:
    state = TriggerState()
    fired = []
    for n in range(1, 25):
        tokens = 40 * n  # grows steadily to 96 %; 0.8 of the window is reached at n = 20
        d = check(n, tokens, state)
        if d:
            fired.append(n)
            state.compacted(n, d.ratio)  # a failed or skipped compaction disarms too
    assert fired == [20]


def test_min_messages() -> None:
    state = TriggerState()
    d = check(11, 900, state)
    assert not d and "min_messages" in d.reason
    assert check(12, 900, state)


def test_below_ratio_does_not_trigger() -> None:
    d = check(20, 799, TriggerState())
    assert not d and "below the trigger ratio" in d.reason
    assert check(20, 800, TriggerState())


def test_hysteresis_blocks_until_usage_falls_below_reset() -> None:
    state = TriggerState()
    assert check(20, 850, state)
    state.compacted(7, 0.85)
    # Usage stays above the reset ratio (a huge tail): no retrigger, however many messages arrive.
    for n in range(11, 40):
        d = check(n + 12, 820, state)
        assert not d
    assert "hysteresis" in d.reason
    # It falls below 0.7 once: re-armed; the next crossing of 0.8 triggers again.
    assert not check(40, 650, state)
    assert state.armed
    d = check(41, 810, state)
    assert d and "trigger ratio" in d.reason


def test_cooldown_needs_new_messages_after_a_compaction() -> None:
    state = TriggerState()
    assert check(20, 900, state)
    state.compacted(12, 0.9)
    assert not check(13, 300, state)  # usage now low: re-armed, but...
    for n in (14, 15):
        d = check(n, 850, state)
        assert not d and "cooldown" in d.reason
    d = check(16, 850, state)  # 4 new messages since the compaction
    assert d


def test_rapid_burst_crossing_threshold_compacts_once() -> None:
    state = TriggerState()
    fired = 0
    for n, tokens in zip(range(20, 25), (790, 820, 860, 900, 950), strict=True):
        d = check(n, tokens, state)
        if d:
            fired += 1
            state.compacted(n, d.ratio)
    assert fired == 1


def test_emergency_ignores_cooldown_and_hysteresis() -> None:
    state = TriggerState()
    assert check(20, 850, state)
    state.compacted(12, 0.85)
    d = check(13, 990, state)
    assert not d and "cooldown" in d.reason
    d = check(14, 1000, state)
    assert d and d.emergency and "emergency" in d.reason


def test_depth_cap_starts_a_new_chain() -> None:
    state = TriggerState()
    history = [_record(0), _record(1)]
    assert check(20, 900, state, history)
    history.append(_record(2))
    d = check(20, 2000, state, history)  # the chain is full: compact() starts a new one
    assert d and d.emergency and "new chain" in d.reason
    d = check(20, 900, TriggerState(), [_record(0)], max_summary_chain_depth=1)
    assert d and "new chain" in d.reason


def test_force_refresh_after_messages() -> None:
    state = TriggerState()
    assert check(20, 900, state, force_refresh_after_messages=10)
    state.compacted(8, 0.9)
    assert not check(17, 300, state, force_refresh_after_messages=10)
    d = check(18, 300, state, force_refresh_after_messages=10)
    assert d and "refresh" in d.reason


def test_disabled_and_real_token_count() -> None:
    assert not check(20, 900, TriggerState(), enabled=False)
    msgs = [{"role": "user", "content": "word " * 70} for _ in range(12)]
    d = should_compact(msgs, context_window=1000)
    assert d.tokens > 700 and d.compact
    with pytest.raises(ValueError):
        should_compact(msgs, context_window=0)
