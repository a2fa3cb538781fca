"""``batchsum.compact`` takes the command's options as keywords (README: every command is a function call with
its options as keywords): --base-url/--model, --preserve-recent, --max-summary-tokens, and abort_on_failure."""

from __future__ import annotations

from typing import Any

import pytest

import batchsum
from batchsum.compact.llm import LLMSummaryError
from batchsum.errors import ConfigError
from tests.fakeserver import FakeLLMServer


def _session() -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 else "assistant", "content": f"step {i}: the tide gauge at pier {i} drifted again"}
        for i in range(40)
    ]


def test_base_url_and_model_make_an_llm_compaction(fake_llm: FakeLLMServer) -> None:
    session = [{**m, "content": m["content"] + " and was reset by hand at the harbour office" * 6} for m in _session()]
    result = batchsum.compact(session, context_window=2048, base_url=fake_llm.base_url, model="fake")
    assert result.mode == "llm", result.llm_error
    assert fake_llm.requests(model="fake")


def test_preserve_recent_and_summary_bound_are_keywords() -> None:
    result = batchsum.compact(_session(), context_window=256, preserve_recent=3, max_summary_tokens=64)
    assert result.compacted
    assert [m["content"] for m in result.messages[-3:]] == [m["content"] for m in _session()[-3:]]
    assert result.messages[-4]["content"] != _session()[-4]["content"]


def test_abort_on_failure_is_a_keyword(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(malformed_json=True)
    with pytest.raises(LLMSummaryError):
        batchsum.compact(
            _session(), context_window=2048, base_url=fake_llm.base_url, model="fake", abort_on_failure=True
        )
    assert len(fake_llm.requests(model="fake")) == 1  # the model's reply failed, not the window


def test_bad_keywords_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="preserve_recent"):
        batchsum.compact(_session(), context_window=256, preserve_recent="3")
    with pytest.raises(ConfigError, match="base_url"):
        batchsum.compact(_session(), context_window=256, model="fake")
