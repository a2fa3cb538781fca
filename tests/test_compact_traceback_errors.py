"""A traceback's error is its last line, whatever the exception is called: ``decimal.InvalidOperation``,
``StopIteration`` or ``KeyboardInterrupt`` name no "Error", and the header only says a traceback follows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from batchsum.compact import compact

FRAMES = 'Traceback (most recent call last):\n  File "src/tax.py", line 3, in vat\n    return Decimal(x)\n'


def _session(last_line: str) -> list[dict[str, Any]]:
    call = {
        "id": "c0",
        "type": "function",
        "function": {"name": "shell", "arguments": json.dumps({"command": "python src/tax.py"})},
    }
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "Run src/tax.py and tell me why it stops."},
        {"role": "assistant", "content": "Running it.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": "starting\n" + FRAMES + last_line + "\n"},
    ]
    filler = " while the ledger was checked line by line against the receipts"
    msgs += [{"role": "user" if i % 2 else "assistant", "content": f"Note {i}{filler * 4}."} for i in range(8)]
    return msgs


@pytest.mark.parametrize(
    "last_line",
    ["decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]", "StopIteration", "KeyboardInterrupt"],
)
def test_the_error_is_the_tracebacks_last_line(last_line: str) -> None:
    result = compact(_session(last_line), context_window=4096, preserve_recent=2)
    assert result.record is not None
    assert result.record.context.errors[0] == last_line
    assert not [e for e in result.record.context.errors if e.startswith("Traceback")]
