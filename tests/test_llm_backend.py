"""LLM backend against a real loopback HTTP server (aiohttp transport, openai SDK for model listing).

Every limit and retry claim is checked on the server's own request log, never on client-side
bookkeeping alone.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from batchsum.backends.budget import count_message_tokens
from batchsum.backends.extractive import ExtractiveBackend
from batchsum.backends.llm import FALLBACK_BACKEND, LLMBackend
from batchsum.backends.llm_client import check_server, parse_retry_after
from batchsum.backends.llm_output import parse_facets, sanitize_for_log
from batchsum.config import LLMConfig
from batchsum.errors import AbortRun, ConfigError, LLMAuthError, LLMUnreachable, SummarizationError
from batchsum.model import SummaryRequest
from batchsum.tokens import get_tokenizer

if TYPE_CHECKING:
    from tests.fakeserver import FakeLLMServer


TOK = get_tokenizer()
T = TypeVar("T")
SECRET = "sk-test-SECRET0123456789abcdef"

TEXT = " ".join(
    f"In meeting {i} Alice decided the team ships release {i} on Friday, and Bob will update the roadmap."
    for i in range(40)
)


def make_backend(server: FakeLLMServer, cache_dir: Path | None = None, **overrides: Any) -> LLMBackend:
    settings: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "fake",
        "rpm": None,
        "tpm": None,
        "concurrency": 4,
        "max_attempts": 3,
        "timeout": 10.0,
    }
    settings.update(overrides)
    rate_period = settings.pop("rate_period", 60.0)
    return LLMBackend(
        LLMConfig(**settings),
        tokenizer=TOK,
        fallback=ExtractiveBackend(TOK),
        cache_dir=cache_dir,
        rate_period=rate_period,
        retry_initial=0.05,
        retry_max=0.2,
    )


def req(node: str = "doc.md:summary:L3:final", **kw: Any) -> SummaryRequest:
    fields: dict[str, Any] = {
        "node_id": node,
        "kind": "standard",
        "content_type": "document",
        "text": f"{node} {TEXT}",
        "input_tokens": TOK.count(TEXT),
        "target_tokens": 120,
        "max_tokens": 120,
    }
    fields.update(kw)
    return SummaryRequest(**fields)


def with_backend(backend: LLMBackend, body: Callable[[LLMBackend], Awaitable[T]]) -> T:
    async def main() -> T:
        try:
            return await body(backend)
        finally:
            await backend.aclose()

    return asyncio.run(main())


def one(backend: LLMBackend, request: SummaryRequest) -> Any:
    return with_backend(backend, lambda b: b.summarize(request))


# ---- basic call, prompts ------------------------------------------------------------------------
def test_summary_comes_from_the_server_with_usage_and_stats(fake_llm: FakeLLMServer) -> None:
    out = one(make_backend(fake_llm), req("a.md:summary:L3:final"))
    assert out.backend == "llm" and out.model == "fake" and out.error is None
    assert out.text and TOK.count(out.text) <= 120
    [entry] = fake_llm.log
    assert entry.status == 200 and entry.model == "fake" and entry.max_tokens == 120
    assert (out.prompt_tokens, out.completion_tokens) == (entry.prompt_tokens, entry.completion_tokens)
    assert out.llm_calls == 1 and out.attempts == 1 and not out.cache_hit and out.latency_ms > 0
    assert entry.messages[0]["role"] == "system" and entry.messages[1]["role"] == "user"
    assert "a.md:summary:L3:final" in entry.messages[1]["content"]


def test_a_chat_models_frame_around_the_summary_is_left_out(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(
        rules=[
            {
                "content": "Sure! Here is a concise summary of the meeting:\n\nThe team agreed to ship the buoy "
                "firmware in May.\n\nLet me know if you would like more detail!"
            }
        ]
    )
    out = one(make_backend(fake_llm), req("chatty.md:summary:L3:final"))
    assert out.text == "The team agreed to ship the buoy firmware in May."


FOCUS = {
    "conversation": "Summarize this conversation:",
    "journal": "Summarize this journal entry:",
    "document": "Summarize this document:",
}
KIND_MARK = {
    "brief": "single, comprehensive sentence",
    "standard": "concise paragraph",
    "chunk": "Section 3 of 7:",
    "meta": "Synthesize these section summaries",
    "rolling": "Update an existing summary with new material.",
}


def test_content_type_variant_applies_on_every_kind(fake_llm: FakeLLMServer) -> None:
    combos = [(k, t) for k in KIND_MARK for t in FOCUS]

    async def body(b: LLMBackend) -> None:
        for kind, ctype in combos:
            await b.summarize(
                req(
                    f"{kind}-{ctype}",
                    kind=kind,
                    content_type=ctype,
                    chunk_index=3,
                    total_chunks=7,
                    parts=["Part one text." * 5, "Part two text." * 5] if kind in ("meta", "rolling") else [],
                )
            )

    with_backend(make_backend(fake_llm), body)
    assert len(fake_llm.log) == len(combos)
    for (kind, ctype), entry in zip(combos, fake_llm.log, strict=True):
        user = entry.messages[1]["content"]
        assert FOCUS[ctype] in user, (kind, ctype)
        assert KIND_MARK[kind] in user, (kind, ctype)
        for other, focus in FOCUS.items():
            if other != ctype:
                assert focus not in user


def test_prior_context_appears_once_and_rolling_integrates_it(fake_llm: FakeLLMServer) -> None:
    prior = "PRIOR-SUMMARY: the team agreed on a Friday release."

    async def body(b: LLMBackend) -> None:
        await b.summarize(req("std", prior_context=prior))
        await b.summarize(req("roll", kind="rolling", content_type="journal", prior_context=prior))
        await b.summarize(req("none"))

    with_backend(make_backend(fake_llm), body)
    std, roll, none = (e.messages[1]["content"] for e in fake_llm.log)
    assert std.count("PRIOR-SUMMARY") == 1 and "Previous summary" in std
    assert roll.count("PRIOR-SUMMARY") == 1
    assert roll.index("Existing summary:") < roll.index("PRIOR-SUMMARY") < roll.index("New material:")
    assert "PRIOR-SUMMARY" not in none and "Previous summary" not in none
    assert "{" + "prior_context}" not in std + roll + none


def test_model_is_discovered_from_the_server_when_not_given(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(models=["served-model"])
    backend = make_backend(fake_llm, model=None)
    out = one(backend, req())
    assert out.model == "served-model" and backend.model == "served-model"
    assert [e.model for e in fake_llm.log] == ["served-model"]


# ---- limits ------------------------------------------------------------------------------------
def test_concurrency_limit_is_never_exceeded_and_no_node_is_lost(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(latency=0.3)
    backend = make_backend(fake_llm, concurrency=3)

    async def body(b: LLMBackend) -> list[Any]:
        return list(await asyncio.gather(*(b.summarize(req(f"n{i}")) for i in range(10))))

    outs = with_backend(backend, body)
    assert len(fake_llm.log) == 10 and all(e.status == 200 for e in fake_llm.log)
    assert fake_llm.peak_inflight <= 3
    assert max(e.inflight_at_arrival for e in fake_llm.log) <= 3
    assert fake_llm.peak_inflight >= 2, "requests should overlap up to the limit"
    assert backend.peak_inflight <= 3
    assert sorted(re.search(r"\bn\d+\b", o.text).group() for o in outs) == sorted(f"n{i}" for i in range(10))  # type: ignore[union-attr]


def test_rpm_spaces_requests_on_the_server(fake_llm: FakeLLMServer) -> None:
    # 5 requests per 1-second window (the minute, scaled down): at most one every 0.2 s.
    backend = make_backend(fake_llm, rpm=5, rate_period=1.0, concurrency=8)

    async def body(b: LLMBackend) -> None:
        # A first request on a fresh client is slower to leave; keep it out of the measured burst.
        await b.summarize(req("warm-up"))
        await asyncio.gather(*(b.summarize(req(f"r{i}")) for i in range(6)))

    with_backend(backend, body)
    arrivals = sorted(e.arrival for e in fake_llm.log[1:])
    assert len(arrivals) == 6
    # Six requests at one every 0.2 s span at least a second; without the limit they leave within
    # milliseconds. Only the whole span is asserted: on a busy machine one request's own send delay can
    # bunch two arrivals, but it cannot shorten the span by the quarter second allowed here.
    assert arrivals[-1] - arrivals[0] >= 5 * 0.2 - 0.25, arrivals


def test_tpm_bucket_is_respected_on_the_server(fake_llm: FakeLLMServer) -> None:
    tpm, period = 2500.0, 1.0
    backend = make_backend(fake_llm, tpm=tpm, rate_period=period, concurrency=8)

    async def body(b: LLMBackend) -> None:
        await asyncio.gather(*(b.summarize(req(f"t{i}", max_tokens=300)) for i in range(5)))

    with_backend(backend, body)
    log = fake_llm.log
    assert len(log) == 5
    reserved = {e.seq: count_message_tokens(e.messages, TOK) + (e.max_tokens or 0) for e in log}
    assert all(800 < r < tpm for r in reserved.values())
    # Replay the leaky bucket on server timestamps: reserve at arrival, correct to reported usage at finish.
    rate = tpm / period
    events = sorted(
        [(e.arrival, 1, e.seq) for e in log] + [(e.finish or e.arrival, 0, e.seq) for e in log],
    )
    level, last = 0.0, events[0][0]
    by_seq = {e.seq: e for e in log}
    for t, is_arrival, seq in events:
        level = max(0.0, level - (t - last) * rate)
        last = t
        if is_arrival:
            level += reserved[seq]
            # Tolerance: 100 ms of client-side send latency between acquiring tokens and arriving here.
            assert level <= tpm + 0.1 * rate, f"bucket overflow at request {seq}: {level:.0f} > {tpm:.0f}"
        else:
            e = by_seq[seq]
            level = min(tpm, max(0.0, level + e.prompt_tokens + e.completion_tokens - reserved[seq]))
    span = max(e.arrival for e in log) - min(e.arrival for e in log)
    assert span > 0.5, "five ~1300-token requests cannot all start at once under a 2500-token bucket"


# ---- retries -----------------------------------------------------------------------------------
def test_5xx_is_retried_until_success(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"match": "NODE-R", "status": 500, "times": 2}])
    out = one(make_backend(fake_llm), req("NODE-R"))
    assert out.backend == "llm" and out.attempts == 3 and out.llm_calls == 3
    assert [e.status for e in fake_llm.requests(match="NODE-R")] == [500, 500, 200]


@pytest.mark.parametrize("status", [400, 422])
def test_other_4xx_is_not_retried(fake_llm: FakeLLMServer, status: int) -> None:
    fake_llm.configure(rules=[{"status": status}])
    out = one(make_backend(fake_llm, fallback_models=["fake-b"]), req())
    assert len(fake_llm.log) == 1, "no retry and no other model for a request the server rejects"
    assert out.backend == FALLBACK_BACKEND and f"HTTP {status}" in (out.error or "")
    assert out.text and out.llm_calls == 1


def test_retry_after_seconds_is_honoured(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 429, "retry_after": "1", "times": 1}])
    out = one(make_backend(fake_llm), req())
    first, second = fake_llm.log
    assert (first.status, second.status) == (429, 200) and out.attempts == 2
    assert second.arrival - first.finish >= 1.0  # type: ignore[operator]


def test_retry_after_http_date_is_honoured(fake_llm: FakeLLMServer) -> None:
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    fake_llm.configure(rules=[{"status": 503, "retry_after": when, "times": 1}])
    one(make_backend(fake_llm), req())
    _, second = fake_llm.log
    # Not before the date the server named (measured from the first answer, a slow start had shortened the wait).
    assert second.arrival >= email.utils.parsedate_to_datetime(when).timestamp()  # type: ignore[operator]


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after(email.utils.formatdate(1000.0, usegmt=True), now=990.0) == 10.0
    assert parse_retry_after(email.utils.formatdate(1000.0, usegmt=True), now=2000.0) == 0.0


def test_timeouts_are_retried_then_fall_back(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"hang": 5}])
    out = one(make_backend(fake_llm, timeout=0.3, max_attempts=2), req())
    assert len(fake_llm.log) == 2
    assert out.backend == FALLBACK_BACKEND and "timeout" in (out.error or "")
    assert out.llm_calls == 2 and out.text


def test_a_server_gone_after_the_start_is_retried_then_stops_the_run() -> None:
    """Its attempts spent, a node that could not reach the server probes it: refusing connections now, the
    server is gone and the run stops (every later node would only spend its attempts and fall back)."""
    from batchsum.errors import LLMUnreachable
    from tests.fakeserver import FakeLLMServer

    server = FakeLLMServer().start()
    backend = LLMBackend(
        LLMConfig(base_url=server.base_url, model="fake", rpm=None, tpm=None, max_attempts=2),
        tokenizer=TOK,
        fallback=ExtractiveBackend(TOK),
        cache_dir=None,
        retry_initial=0.01,
        retry_max=0.05,
    )

    async def body(b: LLMBackend) -> Any:
        first = await b.summarize(req("a"))
        server.close()  # the server goes away mid-run: nothing listens on this port any more
        with pytest.raises(LLMUnreachable, match="stopped accepting connections during the run"):
            await b.summarize(req("b"))
        with pytest.raises(LLMUnreachable):  # and every later node stops at once, sending nothing
            await b.summarize(req("c"))
        return first

    try:
        first = with_backend(backend, body)
    finally:
        server.close()
    assert first.backend == "llm"
    assert backend.retries == 1  # the gone server's node was tried twice


@pytest.mark.parametrize("on_error", ["fallback", "fail"])
def test_a_server_refusing_connections_at_the_start_stops_the_run(on_error: str) -> None:
    from tests.fakeserver import FakeLLMServer

    dead = FakeLLMServer()
    url = dead.base_url
    dead.close()  # nothing listens on this port any more
    backend = LLMBackend(
        LLMConfig(base_url=url, model="fake", rpm=None, tpm=None, on_error=on_error),  # type: ignore[arg-type]
        tokenizer=TOK,
        fallback=ExtractiveBackend(TOK),
        cache_dir=None,
    )

    async def body(b: LLMBackend) -> list[BaseException | Any]:
        return await asyncio.gather(*(b.summarize(req(f"n{i}")) for i in range(8)), return_exceptions=True)

    t0 = time.perf_counter()
    results = with_backend(backend, body)
    assert all(isinstance(r, LLMUnreachable) for r in results), results
    assert "cannot connect" in str(results[0]) and url in str(results[0])
    assert backend.requests_sent == 0 and backend.fallbacks == 0
    assert time.perf_counter() - t0 < 5.0, "no retries against a server that is not there"


def test_preflight_names_refused_server_and_rejected_key(fake_llm: FakeLLMServer) -> None:
    from tests.fakeserver import FakeLLMServer

    dead = FakeLLMServer()
    url = dead.base_url
    dead.close()
    with pytest.raises(LLMUnreachable, match="cannot connect"):
        check_server(LLMConfig(base_url=url, model="fake"))
    backend = make_backend(fake_llm, base_url=url)
    with pytest.raises(LLMUnreachable):
        with_backend(backend, lambda b: b.preflight())

    check_server(LLMConfig(base_url=fake_llm.base_url, model="fake", api_key=SECRET))  # healthy: passes
    fake_llm.configure(require_key="the-right-key")
    with pytest.raises(LLMAuthError) as info:
        check_server(LLMConfig(base_url=fake_llm.base_url, model="fake", api_key=SECRET))
    assert "401" in str(info.value) and SECRET not in str(info.value)
    with pytest.raises(LLMAuthError):
        with_backend(make_backend(fake_llm, api_key=SECRET), lambda b: b.preflight())
    assert fake_llm.request_count == 0, "preflight sends no completion"


def test_garbled_response_body_is_retried(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"bad_body": True, "times": 1}])
    out = one(make_backend(fake_llm), req())
    assert out.backend == "llm" and out.attempts == 2 and len(fake_llm.log) == 2


def test_empty_output_is_a_validation_failure_without_retry(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"content": "   "}])
    out = one(make_backend(fake_llm), req())
    assert len(fake_llm.log) == 1
    assert out.backend == FALLBACK_BACKEND and "empty" in (out.error or "")


# ---- model fallback ----------------------------------------------------------------------------
def test_missing_model_falls_through_to_the_next_and_is_remembered(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(models=["fake-b"])
    backend = make_backend(fake_llm, model="fake-a", fallback_models=["fake-b"])

    async def body(b: LLMBackend) -> list[Any]:
        return [await b.summarize(req("first")), await b.summarize(req("second"))]

    first, second = with_backend(backend, body)
    assert first.model == second.model == "fake-b" and first.backend == second.backend == "llm"
    assert [(e.model, e.status) for e in fake_llm.log] == [("fake-a", 404), ("fake-b", 200), ("fake-b", 200)]


def test_failing_model_gives_way_to_the_fallback_model(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"model": "fake-a", "status": 503}])
    out = one(make_backend(fake_llm, model="fake-a", fallback_models=["fake-b"], max_attempts=2), req())
    assert out.model == "fake-b" and out.backend == "llm"
    assert [(e.model, e.status) for e in fake_llm.log] == [("fake-a", 503), ("fake-a", 503), ("fake-b", 200)]


# ---- on-error modes ----------------------------------------------------------------------------
def test_on_error_fallback_records_the_cause(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"status": 500}])
    out = one(make_backend(fake_llm, max_attempts=2), req())
    assert out.backend == FALLBACK_BACKEND and out.model is None
    assert "HTTP 500" in (out.error or "") and "2 attempts" in (out.error or "")
    assert out.text and TOK.count(out.text) <= 120


def test_on_error_fail_raises_summarization_error(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"match": "BAD", "status": 500}])
    backend = make_backend(fake_llm, max_attempts=2, on_error="fail")

    async def body(b: LLMBackend) -> Any:
        with pytest.raises(SummarizationError) as info:
            await b.summarize(req("BAD-node"))
        good = await b.summarize(req("good-node"))
        return info.value, good

    err, good = with_backend(backend, body)
    assert not isinstance(err, AbortRun)
    assert err.node_id == "BAD-node" and "HTTP 500" in str(err) and err.cause is not None
    assert good.backend == "llm", "the batch goes on after a failed node"


def test_on_error_abort_stops_further_requests(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"match": "BAD", "status": 400}])
    backend = make_backend(fake_llm, on_error="abort")

    async def body(b: LLMBackend) -> None:
        with pytest.raises(AbortRun) as info:
            await b.summarize(req("BAD-node"))
        assert info.value.node_id == "BAD-node"
        with pytest.raises(AbortRun):
            await b.summarize(req("later-node"))

    with_backend(backend, body)
    assert len(fake_llm.log) == 1


# ---- cache -------------------------------------------------------------------------------------
def test_cache_hits_make_zero_requests(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "llm-cache"
    requests = [req(f"c{i}", kind="chunk", chunk_index=i + 1, total_chunks=3) for i in range(3)]

    async def body(b: LLMBackend) -> list[Any]:
        return list(await asyncio.gather(*(b.summarize(r) for r in requests)))

    first = with_backend(make_backend(fake_llm, cache, api_key=SECRET), body)
    assert len(fake_llm.log) == 3
    again = with_backend(make_backend(fake_llm, cache, api_key=SECRET), body)
    assert len(fake_llm.log) == 3, "a cache hit must not reach the server"
    assert [o.text for o in again] == [o.text for o in first]
    assert all(o.cache_hit and o.llm_calls == 0 and o.backend == "llm" for o in again)
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert len(files) == 3 and all(p.suffix == ".json" for p in files), "no temp files left behind"
    for p in files:
        assert SECRET not in p.read_text() and "Authorization" not in p.read_text()
        json.loads(p.read_text())
    # --no-cache bypasses it.
    with_backend(make_backend(fake_llm, cache, cache=False), body)
    assert len(fake_llm.log) == 6


def test_a_different_prompt_or_budget_misses_the_cache(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "llm-cache"
    one(make_backend(fake_llm, cache), req("x"))
    one(make_backend(fake_llm, cache), req("x", max_tokens=100))
    one(make_backend(fake_llm, cache), req("x", content_type="journal"))
    one(make_backend(fake_llm, cache, model="fake-2"), req("x"))
    assert len(fake_llm.log) == 4


# ---- facets ------------------------------------------------------------------------------------
def test_valid_facets_are_validated_and_returned(fake_llm: FakeLLMServer) -> None:
    out = one(make_backend(fake_llm), req(content_type="conversation", facets=True, max_tokens=150))
    assert len(fake_llm.log) == 1 and '"key_points"' in fake_llm.log[0].messages[1]["content"]
    assert out.facets is not None and out.backend == "llm"
    assert set(out.facets) == {"summary", "key_points", "decisions", "action_items", "unresolved", "entities"}
    assert out.text == out.facets["summary"] and TOK.count(out.text) <= 150
    assert all(set(item) == {"owner", "task", "due"} for item in out.facets["action_items"])
    assert fake_llm.log[0].max_tokens and fake_llm.log[0].max_tokens > 150  # JSON gets room for its lists


def test_invalid_facets_json_gets_exactly_one_plain_text_retry(
    fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.configure(malformed_json=True)
    with caplog.at_level(logging.WARNING, logger="batchsum.backends.llm"):
        out = one(make_backend(fake_llm), req(content_type="conversation", facets=True))
    assert len(fake_llm.log) == 2
    assert '"key_points"' in fake_llm.log[0].messages[1]["content"]
    assert '"key_points"' not in fake_llm.log[1].messages[1]["content"]
    assert out.backend == "llm" and out.facets is None and out.text and out.llm_calls == 2
    [warning] = [r.getMessage() for r in caplog.records if "invalid facets JSON" in r.getMessage()]
    assert "Sure! Here is the JSON:" in warning and "\n" not in warning


def test_a_cached_invalid_facets_answer_replays_without_a_warning(
    fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The night it came, the bad JSON was warned about; a re-run answered by the cache sends nothing and
    says nothing again."""
    fake_llm.configure(malformed_json=True)
    cache = tmp_path / "llm-cache"
    one(make_backend(fake_llm, cache), req(content_type="conversation", facets=True))
    assert len(fake_llm.log) == 2
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="batchsum.backends.llm"):
        out = one(make_backend(fake_llm, cache), req(content_type="conversation", facets=True))
    assert len(fake_llm.log) == 2 and out.llm_calls == 0 and out.text
    assert not [r for r in caplog.records if "invalid facets JSON" in r.getMessage()]


def test_parse_facets_tolerates_fences_and_caps_lists() -> None:
    raw = (
        "```json\n"
        + json.dumps(
            {
                "summary": "We agreed.",
                "key_points": [f"p{i}" for i in range(50)],
                "action_items": ["Send notes", {"owner": "Ann", "task": "Book room", "due": "2025-01-02"}],
                "extra": 1,
            }
        )
        + "\n```"
    )
    facets = parse_facets(raw)
    assert facets is not None and facets["summary"] == "We agreed."
    assert len(facets["key_points"]) == 30 and facets["decisions"] == []
    assert facets["action_items"][0] == {"owner": None, "task": "Send notes", "due": None}
    assert parse_facets('{"key_points": []}') is None
    assert parse_facets("not json at all") is None


# ---- secrets -----------------------------------------------------------------------------------
def test_api_key_never_reaches_logs_or_errors(fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture) -> None:
    fake_llm.configure(rules=[{"status": 401}])
    backend = make_backend(fake_llm, api_key=SECRET, on_error="fail")

    async def body(b: LLMBackend) -> list[SummarizationError]:
        errors = []
        for node in ("a", "b"):
            with pytest.raises(SummarizationError) as info:
                await b.summarize(req(node))
            errors.append(info.value)
        return errors

    with caplog.at_level(logging.DEBUG):
        errors = with_backend(backend, body)
    assert fake_llm.log[0].authorized
    assert len(fake_llm.log) == 1, "after an authentication failure no further request is sent"
    for err in errors:
        assert SECRET not in str(err) and SECRET not in repr(err.cause) and "HTTP 401" in str(err)
    assert SECRET not in caplog.text


def test_sanitize_for_log_strips_control_chars_and_secrets() -> None:
    raw = "line1\nline2\x1b[31m Bearer abc.def api_key=hunter2 sk-ABCDEFGHIJKLMNOP " + "x" * 300
    clean = sanitize_for_log(raw, ["hunter2"])
    assert len(clean) <= 200
    assert "\n" not in clean and "\x1b" not in clean
    assert "hunter2" not in clean and "abc.def" not in clean and "sk-ABCDEFGHIJKLMNOP" not in clean


def test_bad_settings_are_config_errors(fake_llm: FakeLLMServer) -> None:
    for kw in ({"concurrency": 0}, {"max_attempts": 0}, {"context_window": 100}, {"base_url": None}):
        with pytest.raises(ConfigError):
            make_backend(fake_llm, **kw)


# ---- the test server's own control surface (used by the bench and kill -9 tests) --------------
def test_fake_server_control_and_log_endpoints(fake_llm: FakeLLMServer) -> None:
    import urllib.error
    import urllib.request

    root = fake_llm.base_url.removesuffix("/v1")

    def call(path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(root + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as resp:
            return json.loads(resp.read())

    assert call("/_control", {"models": ["m1"], "rules": [{"match": "X", "status": 500, "times": 1}]}) == {"ok": True}
    assert call("/v1/models")["data"] == [{"id": "m1", "object": "model"}]
    with pytest.raises(urllib.error.HTTPError) as info:
        call("/_control", {"rules": [{"statsu": 500}]})
    assert info.value.code == 400
    one(make_backend(fake_llm, model="m1"), req("X"))
    log = call("/_log")
    assert log["count"] == 2 and [r["status"] for r in log["requests"]] == [500, 200]
    assert log["peak_inflight"] >= 1 and "messages" not in log["requests"][0]
    call("/_control", {"reset_log": True})
    assert call("/_log")["count"] == 0


def test_request_slots_serve_the_longest_remaining_chain_first() -> None:
    """Waiting requests go highest priority first (FIFO within one); a cancelled waiter loses no slot."""
    from batchsum.backends.llm_client import _PrioritySlots

    async def scenario() -> list[str]:
        slots = _PrioritySlots(1)
        await slots.acquire(1)  # held: everyone below waits
        order: list[str] = []

        async def waiter(name: str, priority: int) -> None:
            await slots.acquire(priority)
            order.append(name)
            slots.release()

        tasks = [asyncio.create_task(waiter(n, p)) for n, p in [("L3", 1), ("L1-a", 3), ("L2", 2), ("L1-b", 3)]]
        doomed = asyncio.create_task(waiter("cancelled", 5))
        for _ in range(3):
            await asyncio.sleep(0)  # every waiter is queued
        doomed.cancel()
        slots.release()
        await asyncio.gather(*tasks)
        await asyncio.gather(doomed, return_exceptions=True)
        await slots.acquire(1)  # the slot came back after the last waiter: nothing leaked
        return order

    assert asyncio.run(scenario()) == ["L1-a", "L1-b", "L2", "L3"]
