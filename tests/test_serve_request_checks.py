"""``batchsum serve`` over real HTTP: the client key's scheme is case-insensitive (RFC 7235 section 2.1)
while the key itself is exact, and a message's ``content`` list must hold content parts as OpenAI's schema
has them (a 400 naming the bad part, never a request forwarded with text retrieval cannot see)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.fakeserver import FakeLLMServer
from tests.test_serve import KEY, serving


def test_the_bearer_scheme_is_case_insensitive_and_the_key_exact(tmp_path: Path, upstream: FakeLLMServer) -> None:
    with (
        serving(tmp_path / "out", upstream.base_url, "--no-facts", "--no-summaries") as (url, _proc),
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        for scheme in ("Bearer", "bearer", "BEARER"):
            r = http.get("/models", headers={"Authorization": f"{scheme} {KEY}"})
            assert r.status_code == 200, (scheme, r.text)
        for sent in (f"bearer {KEY.upper()}", f"bearer {KEY}x", "bearer", f"Basic {KEY}", KEY, f"Bearer{KEY}"):
            r = http.get("/models", headers={"Authorization": sent})
            assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key", sent


BAD_CONTENT = [
    (["a", 1], "messages[0].content[0]"),
    ([{"type": "text", "text": "hi"}, 1], "messages[0].content[1]"),
    ([{"text": "hi"}], "messages[0].content[0]"),
    ([{"type": "text", "text": 5}], "messages[0].content[0].text"),
    ([{"type": "text"}], "messages[0].content[0].text"),
    (12345, "messages[0].content"),
]


def test_a_content_list_must_hold_content_parts(tmp_path: Path, upstream: FakeLLMServer) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    # Parts of other types carry no text but are the client's to send: they reach the upstream.
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    parts = [{"type": "text", "text": "What is in this picture?"}, image]
    with (
        serving(tmp_path / "out", upstream.base_url, "--no-facts", "--no-summaries") as (url, _proc),
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        for content, param in BAD_CONTENT:
            body = {"messages": [{"role": "user", "content": content}]}
            r = http.post("/chat/completions", json=body, headers=headers)
            assert r.status_code == 400, (content, r.text)
            assert r.json()["error"]["type"] == "invalid_request_error" and r.json()["error"]["param"] == param
        assert upstream.request_count == 0  # nothing bad was forwarded
        r = http.post("/chat/completions", json={"messages": [{"role": "user", "content": parts}]}, headers=headers)
        assert r.status_code == 200, r.text
    sent = [m for e in upstream.log for m in e.messages if m.get("role") == "user"]
    assert sent and sent[-1]["content"] == parts


def test_http_errors_say_what_was_sent_and_what_the_server_takes(tmp_path: Path, upstream: FakeLLMServer) -> None:
    # A script's author reads these bodies: "Not Found" or "Request Entity Too Large" alone leave the path,
    # the method or the size limit to guess.
    headers = {"Authorization": f"Bearer {KEY}"}
    with (
        serving(tmp_path / "out", upstream.base_url, "--no-facts", "--no-summaries") as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=headers) as http,
    ):
        r = http.post("/embeddings", json={"input": "hi"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "404"
        message = r.json()["error"]["message"]
        assert "POST /v1/embeddings" in message, message
        assert "POST /v1/chat/completions" in message and "GET /v1/models" in message and "HEAD" not in message
        r = http.get("/chat/completions")
        assert r.status_code == 405 and "POST" in r.headers["Allow"]
        wanted = "GET /v1/chat/completions is not allowed: /v1/chat/completions takes POST"
        assert r.json()["error"]["message"] == wanted
        big = b'{"messages": [{"role": "user", "content": "' + b"word " * 2_000_000 + b'"}]}'
        r = http.post("/chat/completions", content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, r.text
        message = r.json()["error"]["message"]
        assert f"({len(big):,} bytes)" in message and "8,388,608 bytes (8 MiB)" in message, message
        r = http.post("/chat/completions", content=b"  ", headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "the request body is empty" in r.json()["error"]["message"], r.text
        r = http.post("/chat/completions", content=b'{"messages": [}', headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "line 1 column 15" in r.json()["error"]["message"], r.text
        latin1 = '{"messages": [{"role": "user", "content": "café"}]}'.encode("latin-1")
        r = http.post("/chat/completions", content=latin1, headers={"Content-Type": "application/json"})
        message = r.json()["error"]["message"]
        assert r.status_code == 400 and f"not UTF-8 (byte 0xe9 at offset {latin1.index(0xE9)})" in message, r.text
    assert upstream.request_count == 0
