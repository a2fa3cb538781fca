"""LLM mode of compaction against the loopback fake server (and once against llama.cpp when installed)."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from batchsum.compact import CompactConfig, compact
from batchsum.compact.llm import LLMSummarizer, LLMSummaryError
from batchsum.config import LLMConfig
from tests.fakeserver import FakeLLMServer


def _session() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "Fix the failing test in tests/test_parser.py; Maya will review the patch."}
    ]
    for i in range(8):
        msgs.append({"role": "assistant", "content": f"Looking at step {i}.\n```\ncat src/parser_{i}.py\n```"})
        code = "\n".join(f"def handler_{i}_{k}(x):\n    return x + {k}" for k in range(30))
        msgs.append({"role": "user", "content": code + "\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"})
    return msgs


def _llm(server: FakeLLMServer, **kw: Any) -> LLMSummarizer:
    return LLMSummarizer(base_url=server.base_url, model="fake", retry_initial=0.01, **kw)


def test_valid_json_gives_an_llm_record(fake_llm: FakeLLMServer) -> None:
    msgs = _session()
    result = compact(msgs, context_window=8192, backend=_llm(fake_llm))
    assert result.compacted and result.mode == "llm" and result.llm_error is None
    assert result.record is not None and result.record.mode == "llm"
    assert result.record.context.source == "llm"
    assert result.record.context.decisions == ["Proceed as discussed."]  # from the scripted reply
    # Files and commands stay rule-based, whatever the model says.
    assert "src/parser_0.py" in result.record.context.domain_entities
    assert "cat src/parser_0.py" in result.record.context.commands_run
    assert result.tokens_after < result.tokens_before
    assert result.messages[1:] == msgs[-6:]
    (req,) = fake_llm.log
    prompt = req.prompt_text
    assert '"key_points"' in prompt
    assert "[tool] [✓ read_file: File: src/parser_0.py" in prompt  # tool output reaches the model as one-liners
    assert "def handler_0_29" not in prompt
    assert req.max_tokens is not None and req.max_tokens <= 4096


def test_invalid_json_is_not_retried_and_falls_back(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(malformed_json=True)
    rules = compact(_session(), context_window=8192)
    result = compact(_session(), context_window=8192, backend=_llm(fake_llm, max_attempts=3))
    assert fake_llm.request_count == 1
    assert result.compacted and result.mode == "rule-based (LLM failed)"
    assert result.llm_error is not None and "not valid summary JSON" in result.llm_error
    assert result.record is not None and rules.record is not None
    assert result.record.summary == rules.record.summary  # nothing lost: the rule-based summary
    assert result.record.context.domain_entities == rules.record.context.domain_entities


def test_transport_errors_are_retried(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 503, "times": 1}, {"status": 429, "retry_after": "0", "times": 1}])
    llm = _llm(fake_llm, max_attempts=3)
    result = compact(_session(), context_window=8192, backend=llm)
    assert [e.status for e in fake_llm.log] == [503, 429, 200]
    assert result.mode == "llm" and llm.retries == 2


def test_transport_errors_exhausted_fall_back(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 500}])
    result = compact(_session(), context_window=8192, backend=_llm(fake_llm, max_attempts=2))
    assert fake_llm.request_count == 2
    assert result.compacted and result.mode == "rule-based (LLM failed)"
    assert "after 2 attempts" in (result.llm_error or "")


def test_client_errors_are_not_retried(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 400}])
    result = compact(_session(), context_window=8192, backend=_llm(fake_llm, max_attempts=4))
    assert fake_llm.request_count == 1
    assert "HTTP 400" in (result.llm_error or "")


def test_connection_refused_falls_back_at_once() -> None:
    # The shared client's rule: a server that refuses connections is unusable, not retried request by request.
    server = FakeLLMServer()
    url = server.base_url
    server.close()  # nothing listens on that port any more
    llm = LLMSummarizer(base_url=url, model="fake", max_attempts=2, retry_initial=0.01, timeout=5)
    result = compact(_session(), context_window=8192, backend=llm)
    assert llm.requests_sent == 0
    assert result.mode == "rule-based (LLM failed)" and "connection refused" in (result.llm_error or "")


def test_abort_on_failure_raises(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(malformed_json=True)
    with pytest.raises(LLMSummaryError):
        compact(_session(), context_window=8192, backend=_llm(fake_llm), config=CompactConfig(abort_on_failure=True))


def test_llm_config_is_accepted_as_backend(fake_llm: FakeLLMServer) -> None:
    cfg = LLMConfig(base_url=fake_llm.base_url, model="fake", max_attempts=1)
    result = compact(_session(), context_window=8192, backend=cfg)
    assert result.mode == "llm"
    assert fake_llm.requests(model="fake")


def test_chained_llm_compaction_sees_previous_summary(fake_llm: FakeLLMServer) -> None:
    first = compact(_session(), context_window=8192, backend=_llm(fake_llm))
    assert first.record is not None
    second = compact(first.messages + _session()[1:], context_window=8192, backend=_llm(fake_llm))
    assert second.record is not None and second.record.depth == 1 and second.record.parent_id == first.record.id
    assert "[previous summary]" in fake_llm.log[-1].prompt_text


def test_cli_with_base_url(fake_llm: FakeLLMServer, tmp_path: Any) -> None:
    from click.testing import CliRunner

    from batchsum.cli import main

    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in _session()))
    out = CliRunner().invoke(main, ["compact", str(path), "--base-url", fake_llm.base_url, "--model", "fake", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["mode"] == "llm" and data["tokens_after"] < data["tokens_before"]


@pytest.mark.llama
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not importable")
def test_real_llama_server(llama_server: str) -> None:
    """One compaction through llama.cpp: structure only (a 135M model may or may not produce valid JSON)."""
    llm = LLMSummarizer(base_url=llama_server, model="smollm2-135m", context_window=2048, timeout=600)
    result = compact(_session(), context_window=2048, backend=llm)
    assert result.compacted and result.tokens_after < result.tokens_before
    assert result.mode in ("llm", "rule-based (LLM failed)")
    assert llm.requests_sent >= 1
    assert result.record is not None and "src/parser_0.py" in result.record.context.domain_entities


if importlib.util.find_spec("llama_cpp") is not None:  # reuse the server fixture of the llama integration test
    from tests.test_llama_integration import llama_server  # noqa: F401


def test_compact_may_be_called_from_async_code(fake_llm: FakeLLMServer) -> None:
    """An agent compacts its history inside its own event loop; asyncio.run had refused a running one."""
    import asyncio

    async def agent() -> str:
        return compact(_session(), context_window=8192, backend=_llm(fake_llm)).mode

    assert asyncio.run(agent()) == "llm"
