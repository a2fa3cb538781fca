"""serve against an upstream that misbehaves (a malformed reply, a stream cut off, a slow first chunk, a
request that hangs), its own limits (--concurrency, --rpm), a 405's Allow header, a second SIGINT, and a
long message's retrieval query. Real HTTP to loopback servers throughout."""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from batchsum.serve.context import QUERY_WORDS, retrieval_query
from tests.fakeserver import FakeLLMServer
from tests.test_serve import KEY, serving, wait_for

HEADERS = {"Authorization": f"Bearer {KEY}"}
QUIET = ("--no-facts", "--no-summaries")
FIRST_CHUNK_DELAY_S = 0.3


def _chunk(text: str) -> bytes:
    return ("data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}) + "\n\n").encode()


class OddUpstream:
    """A loopback chat server whose reply depends on a word of the last user message: STRMSG (a message
    that is a plain string), DROP (SSE chunks, then the socket closes without [DONE]), SLOW (a stream whose
    first chunk comes after FIRST_CHUNK_DELAY_S), EMPTY (a stream that ends before any line), HOLD (no
    answer until :attr:`release` is set); else a well-formed answer ("ok"), streamed when asked."""

    def __init__(self) -> None:
        self.arrived = threading.Event()  # a HOLD request reached the server
        self.release = threading.Event()
        self.user_texts: list[str] = []
        odd = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                user = [m for m in body["messages"] if m.get("role") == "user"][-1]["content"]
                odd.user_texts.append(user)
                odd.answer(self, user, bool(body.get("stream")))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def answer(self, h: BaseHTTPRequestHandler, user: str, stream: bool) -> None:
        if "HOLD" in user:
            self.arrived.set()
            self.release.wait(60)
        if "STRMSG" in user:
            self._json(h, {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": "plain"}]})
            return
        if not stream:
            message = {"role": "assistant", "content": "ok"}
            self._json(h, {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message}]})
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        if "EMPTY" in user:
            return
        if "SLOW" in user:
            time.sleep(FIRST_CHUNK_DELAY_S)
        for word in ("Half ", "an ", "answer"):
            h.wfile.write(_chunk(word))
            h.wfile.flush()
        if "DROP" in user:
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        h.wfile.write(b"data: [DONE]\n\n")

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, obj: Any) -> None:
        raw = json.dumps(obj).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        h.end_headers()
        h.wfile.write(raw)

    def close(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def odd() -> Iterator[OddUpstream]:
    server = OddUpstream()
    try:
        yield server
    finally:
        server.close()


def _ask(text: str, cid: str = "default", **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], "conversation_id": cid, **extra}


def _listening(url: str) -> bool:
    host, port = httpx.URL(url).host, httpx.URL(url).port
    try:
        socket.create_connection((host, port or 80), timeout=5).close()
    except OSError:
        return False
    return True


def _stream_events(r: httpx.Response) -> list[str]:
    return [line[5:].strip() for line in r.text.splitlines() if line.startswith("data:")]


def test_malformed_reply_is_502_and_cut_stream_an_error_event_never_remembered(
    tmp_path: Path, odd: OddUpstream
) -> None:
    out = tmp_path / "out"
    with (
        serving(out, odd.base_url, *QUIET) as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=HEADERS) as http,
    ):
        r = http.post("/chat/completions", json=_ask("STRMSG please"))
        assert r.status_code == 502, r.text
        assert "malformed" in r.json()["error"]["message"]

        r = http.post("/chat/completions", json=_ask("DROP please", "cut", stream=True))
        events = _stream_events(r)
        assert "[DONE]" not in events
        assert "error" in json.loads(events[-1])  # the client learns the answer is incomplete

        r = http.post("/chat/completions", json=_ask("and now a whole answer", "cut"))
        assert r.status_code == 200
        answers = out / "conversations" / "cut" / "turns" / "assistant"
        wait_for(lambda: answers.is_dir() and any(answers.iterdir()))
        assert [p.read_text(encoding="utf-8") for p in answers.iterdir()]  # the later, whole exchange
        written = [p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*") if p.is_file()]
        assert not any("Half an" in text for text in written)  # the cut-off answer is no turn


def test_an_empty_stream_is_a_502_saying_so(tmp_path: Path, odd: OddUpstream) -> None:
    with (
        serving(tmp_path / "out", odd.base_url, *QUIET) as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=HEADERS) as http,
    ):
        r = http.post("/chat/completions", json=_ask("EMPTY please", stream=True))
        assert r.status_code == 502, r.text
        assert "without data" in r.json()["error"]["message"]


def test_streamed_server_timing_measures_the_wait_for_the_first_chunk(tmp_path: Path, odd: OddUpstream) -> None:
    with (
        serving(tmp_path / "out", odd.base_url, *QUIET) as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=HEADERS) as http,
    ):
        r = http.post("/chat/completions", json=_ask("SLOW please", stream=True))
        assert r.status_code == 200 and _stream_events(r)[-1] == "[DONE]"
        timing = dict(part.strip().split(";dur=") for part in r.headers["Server-Timing"].split(","))
        assert float(timing["upstream"]) >= FIRST_CHUNK_DELAY_S * 1000


def test_405_keeps_allow_header(tmp_path: Path, odd: OddUpstream) -> None:
    with (
        serving(tmp_path / "out", odd.base_url, *QUIET) as (url, _proc),
        httpx.Client(base_url=url, timeout=60, headers=HEADERS) as http,
    ):
        r = http.get("/chat/completions")
        assert r.status_code == 405 and r.json()["error"]["code"] == "405"
        assert "POST" in r.headers["Allow"]


def test_concurrency_and_rpm_hold_for_forwarded_chats(tmp_path: Path) -> None:
    upstream = FakeLLMServer(latency=0.3).start()
    try:
        args = (*QUIET, "--concurrency", "2", "--rpm", "120")  # one request every 0.5 s at most
        with (
            serving(tmp_path / "out", upstream.base_url, *args) as (url, _proc),
            httpx.Client(base_url=url, timeout=120, headers=HEADERS) as http,
        ):
            upstream.configure(reset_log=True)
            asks = [_ask(f"Question {i}", stream=i % 2 == 0) for i in range(6)]
            with ThreadPoolExecutor(6) as pool:
                statuses = [r.status_code for r in pool.map(lambda a: http.post("/chat/completions", json=a), asks)]
            assert statuses == [200] * 6
            assert upstream.peak_inflight <= 2
            arrivals = sorted(e.arrival for e in upstream.log)
            assert len(arrivals) == 6
            assert arrivals[-1] - arrivals[0] >= 5 * 0.5 - 0.1  # spaced by --rpm, never a burst
    finally:
        upstream.close()


def test_second_sigint_stops_at_once_while_a_request_waits(tmp_path: Path, odd: OddUpstream) -> None:
    with (
        serving(tmp_path / "out", odd.base_url, *QUIET, "--timeout", "120") as (url, proc),
        ThreadPoolExecutor(1) as pool,
    ):
        pending = pool.submit(
            lambda: httpx.post(f"{url}/chat/completions", json=_ask("HOLD on"), headers=HEADERS, timeout=120)
        )
        assert odd.arrived.wait(60)
        proc.send_signal(signal.SIGINT)
        wait_for(lambda: not _listening(url))  # the first signal was handled: no new requests taken
        assert proc.poll() is None  # the request in flight is waited for
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130  # while the upstream still holds the request
        odd.release.set()
        with pytest.raises(httpx.HTTPError):
            pending.result()


def test_long_message_is_retrieved_by_its_ends_and_forwarded_whole(tmp_path: Path, odd: OddUpstream) -> None:
    words = [f"w{i}" for i in range(50_000)]
    text = " ".join(words)
    query = retrieval_query(text).split()
    assert len(query) <= QUERY_WORDS
    assert query[0] == words[0] and query[-1] == words[-1]
    assert retrieval_query("where do I live now?") == "where do I live now?"
    with (
        serving(tmp_path / "out", odd.base_url, *QUIET) as (url, _proc),
        httpx.Client(base_url=url, timeout=120, headers=HEADERS) as http,
    ):
        r = http.post("/chat/completions", json=_ask(text))
        assert r.status_code == 200
        assert odd.user_texts[-1] == text  # the upstream gets the whole message
