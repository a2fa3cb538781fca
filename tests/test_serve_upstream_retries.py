"""serve retries an upstream 429/5xx as the run's LLM client does, and passes a lasting 429 on with its Retry-After."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.fakeserver import FakeLLMServer
from tests.test_serve import KEY, serving

HEADERS = {"Authorization": f"Bearer {KEY}"}
ASK = {"messages": [{"role": "user", "content": "Hello there"}]}


def test_upstream_429_is_retried_after_retry_after_and_a_lasting_one_passed_on(
    tmp_path: Path, upstream: FakeLLMServer
) -> None:
    args = ("--max-attempts", "3", "--no-facts", "--no-summaries")
    with (
        serving(tmp_path / "out", upstream.base_url, *args) as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=HEADERS) as http,
    ):
        upstream.configure(rules=[{"status": 429, "retry_after": "1", "times": 1}], reset_log=True)
        r = http.post("/chat/completions", json=ASK)
        assert r.status_code == 200, r.text
        first, second = upstream.log
        assert first.status == 429 and second.status == 200
        assert first.finish is not None and second.arrival - first.finish >= 1.0  # not before Retry-After

        upstream.configure(rules=[{"status": 429, "retry_after": "1"}], reset_log=True)
        r = http.post("/chat/completions", json=ASK)
        assert r.status_code == 429 and r.headers["Retry-After"] == "1"
        assert len(upstream.log) == 3  # --max-attempts in all
        r = http.post("/chat/completions", json={**ASK, "stream": True})
        assert r.status_code == 429 and r.headers["Retry-After"] == "1"

        upstream.configure(rules=[{"status": 500}], reset_log=True)
        r = http.post("/chat/completions", json=ASK)
        assert r.status_code == 502 and "HTTP 500" in r.json()["error"]["message"]
        assert len(upstream.log) == 3
