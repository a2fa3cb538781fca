"""LLM compaction and the caller's window: below what the request itself needs, ``base_url=`` is a ConfigError
that names the minimum before anything is sent (not a silent fallback to the rules naming a window nobody gave);
from that minimum up, the model is asked (counted on a loopback server)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.backends.budget import count_message_tokens
from batchsum.cli import main
from batchsum.compact.llm import LLMSummarizer, min_context_window
from batchsum.errors import ConfigError
from batchsum.tokens import get_tokenizer
from tests.fakeserver import FakeLLMServer


def _session() -> list[dict[str, Any]]:
    # The README's session.
    return [{"role": "user", "content": f"step {i}: the tide gauge at pier {i} drifted again"} for i in range(40)]


def _named_minimum(url: str) -> int:
    """The least window the library names for the README's session (asked with a window too small for it)."""
    with pytest.raises(ConfigError) as err:
        batchsum.compact(_session(), context_window=256, preserve_recent=4, base_url=url, model="fake")
    return max(int(n) for n in re.findall(r"\d+", str(err.value)) if int(n) != 256)


def test_a_window_too_small_for_the_request_is_a_config_error_naming_the_minimum(fake_llm: FakeLLMServer) -> None:
    least = _named_minimum(fake_llm.base_url)
    assert least <= min_context_window(get_tokenizer())
    for abort in (False, True):
        with pytest.raises(ConfigError) as err:
            batchsum.compact(
                _session(),
                context_window=256,
                preserve_recent=4,
                base_url=fake_llm.base_url,
                model="fake",
                abort_on_failure=abort,
            )
        figures = {int(n) for n in re.findall(r"\d+", str(err.value))}
        assert {256, least} <= figures  # the caller's window and the least that works, no other window
    assert fake_llm.requests(model="fake") == []  # refused before any request


def test_from_the_minimum_up_the_model_writes_the_summary(fake_llm: FakeLLMServer) -> None:
    least = _named_minimum(fake_llm.base_url)
    assert least <= min_context_window(get_tokenizer())  # the documented figure bounds every session's
    with pytest.raises(ConfigError):
        batchsum.compact(_session(), context_window=least - 1, base_url=fake_llm.base_url, model="fake")
    for window in (least, 8192):
        result = batchsum.compact(
            _session(), context_window=window, preserve_recent=4, base_url=fake_llm.base_url, model="fake"
        )
        assert result.compacted and result.mode == "llm" and result.llm_error is None
    requests = fake_llm.requests(model="fake")
    assert len(requests) == 2
    # The request at the minimum fits it: prompt and reply within the window.
    at_least = requests[0]
    assert at_least.max_tokens is not None
    assert count_message_tokens(at_least.messages, get_tokenizer()) + at_least.max_tokens <= least


def test_the_minimum_is_the_least_window_the_request_itself_accepts(fake_llm: FakeLLMServer) -> None:
    # A window the request fits (prompt and reply 602 tokens of 640) is served, not refused for a reply of half
    # the window and figures of 12 digits; one token less than the named minimum leaves the request no room.
    least = _named_minimum(fake_llm.base_url)
    assert least <= 640
    served = batchsum.compact(
        _session(), context_window=640, preserve_recent=4, base_url=fake_llm.base_url, model="fake"
    )
    assert served.mode == "llm"
    for window, mode in ((least - 1, "rule-based (LLM failed)"), (least, "llm")):
        llm = LLMSummarizer(base_url=fake_llm.base_url, model="fake", context_window=window)
        result = batchsum.compact(_session(), context_window=8192, preserve_recent=4, backend=llm)
        assert result.mode == mode, (window, result.llm_error)
    assert len(fake_llm.requests(model="fake")) == 2  # 640 and the least: none below it


def test_the_command_refuses_the_window_before_asking(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    session = tmp_path / "s.json"
    session.write_text(json.dumps(_session()))
    args = ["compact", str(session), "--context-window", "256", "--base-url", fake_llm.base_url, "--model", "fake"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert str(_named_minimum(fake_llm.base_url)) in res.output
    assert fake_llm.requests(model="fake") == []


def test_the_docs_name_the_real_minimum() -> None:
    least = min_context_window(get_tokenizer())
    repo = Path(__file__).resolve().parent.parent
    assert f"at least {least} tokens" in (repo / "README.md").read_text(encoding="utf-8")
    assert f"({least} tokens with the default" in (repo / "docs" / "compaction.md").read_text(encoding="utf-8")
