"""A conversation past ``max_summary_chain_depth`` compactions keeps compacting: the trigger fires as usual at a
full chain, and ``compact()`` starts a new chain at depth 0 from the originals ``Conversation`` keeps."""

from __future__ import annotations

from typing import Any

from batchsum.compact import CompactConfig, Conversation, SummaryRecord, TriggerState, should_compact
from batchsum.compact.record import SummaryContext

WINDOW = 8192


def _message(i: int) -> dict[str, Any]:
    return {
        "role": "user" if i % 2 == 0 else "assistant",
        "content": f"msg {i} about the parser bug in parse_{i}() " * 30,
    }


def test_a_long_conversation_stays_within_its_window() -> None:
    convo = Conversation(context_window=WINDOW)
    for i in range(200):
        convo.append(_message(i))
        # Counted as the trigger counts (messages and their overhead): after each append, within the window.
        usage = should_compact(convo.messages, context_window=WINDOW, history=convo.history)
        assert usage.tokens <= WINDOW, f"message {i}: {usage.tokens} tokens"
    cap = CompactConfig().max_summary_chain_depth
    depths = [r.depth for r in convo.history]
    assert len(depths) > cap and max(depths) < cap
    restarts = [r for r in convo.history[1:] if r.depth == 0]
    assert restarts and all(r.context.raw.get("restarted_from") for r in restarts)
    assert len(convo.archive) == 200


def _record(depth: int) -> SummaryRecord:
    return SummaryRecord(f"r{depth}", 0, depth, f"r{depth - 1}" if depth else None, "s", [], SummaryContext(), [])


def test_a_full_chain_still_triggers() -> None:
    full = [_record(0), _record(1), _record(2)]
    msgs = [_message(i) for i in range(20)]
    emergency = should_compact(msgs, context_window=1000, tokens=1200, history=full, state=TriggerState())
    assert emergency and emergency.emergency and "new chain" in emergency.reason
    due = should_compact(msgs, context_window=1000, tokens=850, history=full, state=TriggerState())
    assert due and "new chain" in due.reason
    below = should_compact(msgs, context_window=1000, tokens=500, history=full, state=TriggerState())
    assert not below  # a full chain is no reason to compact on its own
