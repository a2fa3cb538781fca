"""``batchsum compact``'s LLM options reach the server through the library's one path (``batchsum.compact``'s
keywords): --max-attempts and --timeout as ``max_attempts=`` and ``timeout=``; an API key without a server asks
for no LLM on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import ConfigError
from tests.fakeserver import FakeLLMServer


def _session() -> list[dict[str, Any]]:
    tail = " and was reset by hand at the harbour office" * 6
    return [
        {"role": "user" if i % 2 else "assistant", "content": f"step {i}: the tide gauge at pier {i} drifted{tail}"}
        for i in range(40)
    ]


def test_max_attempts_is_a_keyword(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 500}])
    result = batchsum.compact(
        _session(), context_window=2048, base_url=fake_llm.base_url, model="fake", max_attempts=1, timeout=30
    )
    assert result.compacted and result.llm_error
    assert len(fake_llm.requests(model="fake")) == 1


def test_bad_request_settings_are_config_errors(fake_llm: FakeLLMServer) -> None:
    for bad in ({"max_attempts": 0}, {"max_attempts": 1.5}, {"timeout": "30"}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            batchsum.compact(_session(), context_window=2048, base_url=fake_llm.base_url, model="fake", **bad)


def test_the_command_sends_its_llm_options(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 500}])
    session = tmp_path / "s.json"
    session.write_text(json.dumps(_session()))
    args = ["compact", str(session), "--context-window", "2048", "--json", "--base-url", fake_llm.base_url]
    res = CliRunner().invoke(main, [*args, "--model", "fake", "--max-attempts", "1", "--timeout", "30"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["llm_error"] and len(fake_llm.requests(model="fake")) == 1


def test_an_api_key_without_a_server_is_a_rule_based_compaction(tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    session.write_text(json.dumps(_session()))
    res = CliRunner().invoke(
        main,
        ["compact", str(session), "--context-window", "2048", "--json"],
        env={"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "", "BATCHSUM_MODEL": ""},
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["mode"] == "rule-based"


def test_request_settings_are_checked_finite_and_with_or_without_a_server(fake_llm: FakeLLMServer) -> None:
    for bad in ({"timeout": float("nan")}, {"timeout": float("inf")}, {"timeout": 0}):
        with pytest.raises(ConfigError, match="timeout"):
            batchsum.compact(_session(), context_window=2048, base_url=fake_llm.base_url, model="fake", **bad)
    assert fake_llm.requests(model="fake") == []  # refused before any request
    for bad in ({"timeout": -1}, {"timeout": float("nan")}, {"max_attempts": 0}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            batchsum.compact(_session(), context_window=2048, **bad)  # the rules, no server
