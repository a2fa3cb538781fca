"""The one LLM client with an injected transport (httpx MockTransport style): the network boundary is
replaced by a handler, everything above it (limits, retries, model chain, cache) is the real code."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from batchsum.backends.extractive import ExtractiveBackend
from batchsum.backends.llm import LLMBackend
from batchsum.backends.llm_client import CallFailed, CallStats, HTTPStatusError, LLMClient, Prompt, TransportError
from batchsum.compact import compact
from batchsum.compact.llm import LLMSummarizer
from batchsum.config import LLMConfig
from batchsum.model import SummaryRequest
from batchsum.tokens import get_tokenizer

Handler = Callable[[dict[str, Any]], bytes]


class MockTransport:
    """Answers each request body with ``handler(body)``; records the bodies."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.bodies: list[dict[str, Any]] = []
        self.closed = False

    async def chat(self, body: dict[str, Any]) -> bytes:
        self.bodies.append(body)
        return self.handler(body)

    async def close(self) -> None:
        self.closed = True


def completion(text: str) -> bytes:
    return json.dumps(
        {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
    ).encode()


def failing_first(n: int, error: Exception, then: bytes) -> Handler:
    calls = {"n": 0}

    def handler(body: dict[str, Any]) -> bytes:
        calls["n"] += 1
        if calls["n"] <= n:
            raise error
        return then

    return handler


CFG = LLMConfig(base_url="http://mock.invalid/v1", model="m", rpm=None, tpm=None, max_attempts=3)


def test_client_retries_transport_errors_and_caches(tmp_path: Path) -> None:
    transport = MockTransport(failing_first(1, TransportError("reset"), completion("hello")))
    client = LLMClient(CFG, cache_dir=tmp_path, retry_initial=0.001, retry_max=0.01, transport=transport)
    prompt = Prompt([{"role": "user", "content": "hi"}], 16, 3)

    async def twice() -> list[str]:
        first = await client.complete("n1", prompt, CallStats())
        second = await client.complete("n1", prompt, CallStats())
        await client.aclose()
        return [first, second]

    assert asyncio.run(twice()) == ["hello", "hello"]
    assert len(transport.bodies) == 2 and client.retries == 1 and client.cache_hits == 1
    assert transport.bodies[0]["model"] == "m" and transport.closed


def test_client_does_not_retry_a_bad_request() -> None:
    transport = MockTransport(failing_first(9, HTTPStatusError(400, {"message": "bad"}, {}), completion("x")))
    client = LLMClient(CFG, retry_initial=0.001, transport=transport)
    with pytest.raises(CallFailed, match="HTTP 400"):
        asyncio.run(client.complete("n1", Prompt([{"role": "user", "content": "hi"}], 16, 3), CallStats()))
    assert len(transport.bodies) == 1


def test_backend_and_compaction_share_the_client() -> None:
    tok = get_tokenizer()
    backend_transport = MockTransport(failing_first(1, TimeoutError(), completion("A short summary.")))
    backend = LLMBackend(
        CFG,
        tokenizer=tok,
        fallback=ExtractiveBackend(tok),
        cache_dir=None,
        retry_initial=0.001,
        transport=backend_transport,
    )
    request = SummaryRequest(
        node_id="a:summary:L3:final", kind="standard", content_type="document",
        text="The team met. They chose Porto for the offsite.", input_tokens=12, target_tokens=40, max_tokens=40,
    )  # fmt: skip
    out = asyncio.run(backend.summarize(request))
    assert out.backend == "llm" and out.text == "A short summary." and backend.retries == 1

    reply = {"summary": "They moved the offsite to Porto.", "key_points": [], "decisions": ["Porto"]}
    compact_transport = MockTransport(failing_first(1, TransportError("reset"), completion(json.dumps(reply))))
    llm = LLMSummarizer(base_url="http://mock.invalid/v1", model="m", retry_initial=0.001, transport=compact_transport)
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}: " + "word " * 80} for i in range(30)
    ]
    result = compact(messages, context_window=2048, backend=llm)
    assert result.mode == "llm" and llm.retries == 1 and llm.requests_sent == 2
    assert compact_transport.closed
