"""Compaction's limits: ``preserve_recent`` 0 keeps no message verbatim, ``max_summary_tokens`` below the
real minimum is refused by the library and the command alike, and the note on a result over the window
names each part's cost."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.compact import CompactConfig, compact
from batchsum.compact.config import MIN_SUMMARY_TOKENS
from batchsum.errors import ConfigError


def _session() -> list[dict[str, Any]]:
    tail = " and the gauge at the pier was reset by hand before the evening tide came in"
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You keep the harbour log."}]
    msgs += [{"role": "user" if i % 2 else "assistant", "content": f"Step {i}: the tide{tail * 5}."} for i in range(16)]
    return msgs


def test_preserve_recent_zero_keeps_no_message(tmp_path: Path) -> None:
    result = compact(_session(), context_window=4096, preserve_recent=0)
    assert result.compacted and result.preserved_messages == 0
    assert [m["role"] for m in result.messages] == ["system", "system"]  # the prompt and the summary
    session = tmp_path / "s.json"
    session.write_text(json.dumps(_session()))
    res = CliRunner().invoke(main, ["compact", str(session), "--preserve-recent", "0", "--json", "-q"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["preserved_messages"] == 0


def test_max_summary_tokens_below_the_minimum_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=str(MIN_SUMMARY_TOKENS)):
        compact(_session(), context_window=4096, max_summary_tokens=MIN_SUMMARY_TOKENS - 1)
    session = tmp_path / "s.json"
    session.write_text(json.dumps(_session()))
    low = CliRunner().invoke(main, ["compact", str(session), "--max-summary-tokens", str(MIN_SUMMARY_TOKENS - 1)])
    assert low.exit_code == 2 and str(MIN_SUMMARY_TOKENS) in low.output
    at_min = compact(_session(), context_window=4096, config=CompactConfig(max_summary_tokens=MIN_SUMMARY_TOKENS))
    assert at_min.compacted


def test_the_over_window_note_names_the_summary_and_the_tail() -> None:
    result = compact(_session(), context_window=64, preserve_recent=2)
    assert result.compacted and result.record is not None and result.tokens_after > 64
    (note,) = [n for n in result.notes if "exceeds" in n]
    assert f"summary costs {result.record.token_estimate} tokens" in note
    said = [int(n) for n in re.findall(r"(\d+) tokens", note)][1:]  # after the result's own count
    assert sum(said) + 3 == result.tokens_after  # the parts named add up to the result
