"""A loopback OpenAI-compatible chat server for tests and benchmarks.

Real HTTP on 127.0.0.1 (a threading server, so 64+ slow requests can be in flight at once),
deterministic replies, and injectable faults: latency, 429 + Retry-After, 5xx, hangs, malformed
JSON (facets or the whole body), unknown models (404 ``model_not_found``). Every chat request is
logged server-side (arrival/finish time, model, status, prompt hash, in-flight count) so tests
assert on what the server actually saw, never on client-side bookkeeping.

Faults are *rules*, matched in order against each request::

    {"match": "NODE-7", "model": "fake", "times": 2,          # which requests (all optional)
     "fraction": 0.2,                                          # this share of them (by prompt hash)
     "status": 429, "retry_after": "1", "hang": 5.0,          # what to do (pick any)
     "latency": 0.5, "content": "text", "malformed_json": true, "bad_body": true}

``times`` counts down per match (None = forever). Configure with constructor arguments, the
``configure()`` method, or ``POST /_control`` with the same JSON keys; read ``GET /_log``.

CLI (used by the bench and kill -9 tests): ``python -m tests.fakeserver --port 0 --latency 0.2``
prints ``READY <base_url>`` once listening.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

MAX_HANG_S = 60.0  # a "hang" never outlives this, so server threads always end
_WORD = re.compile(r"\S+")
_CAPITALIZED = re.compile(r"\b[A-Z][a-z]{2,}\b")


@dataclass
class Rule:
    """One injected behaviour; see the module docstring."""

    match: str | None = None
    model: str | None = None
    times: int | None = None
    status: int | None = None
    retry_after: str | None = None
    hang: float | None = None
    latency: float | None = None
    content: str | None = None
    malformed_json: bool = False
    bad_body: bool = False
    error_code: str | None = None
    fraction: float | None = None  # applies to this share of matching requests (deterministic, see applies)
    _seen: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        """Build a rule from JSON; unknown keys are an error so typos do not pass silently."""
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown rule keys: {sorted(unknown)}")
        rule = cls(**data)
        if rule.retry_after is not None:
            rule.retry_after = str(rule.retry_after)
        return rule

    def applies(self, model: str, prompt: str) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.model is not None and self.model != model:
            return False
        if self.match is not None and self.match not in prompt:
            return False
        if self.fraction is None:
            return True
        # Decided by the prompt and how often this rule has seen it: the same requests fail whatever the
        # arrival order, and a retry of a failed one gets a fresh draw.
        n = self._seen.get(prompt, 0)
        self._seen[prompt] = n + 1
        draw = int(hashlib.sha256(f"{n}:{prompt}".encode()).hexdigest()[:8], 16) / 2**32
        return draw < self.fraction


@dataclass
class LogEntry:
    """What the server saw for one chat request."""

    seq: int
    arrival: float  # time.time() at arrival
    finish: float | None
    model: str
    status: int | None
    prompt_sha256: str
    max_tokens: int | None
    inflight_at_arrival: int
    messages: list[dict[str, Any]] = field(default_factory=list)
    authorized: bool = False  # an Authorization header was present (its value is never kept)
    stream: bool = False  # the request asked for an SSE stream
    prompt_tokens: int = 0
    completion_tokens: int = 0
    released: bool = False  # no longer counted in flight: its reply is being written

    def as_dict(self, with_messages: bool = True) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("released")
        if not with_messages:
            d.pop("messages")
        return d

    @property
    def prompt_text(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages)


class FakeLLMServer:
    """The server plus its configuration and request log; thread-safe."""

    def __init__(
        self,
        *,
        port: int = 0,
        latency: float = 0.0,
        models: list[str] | None = None,
        rules: list[dict[str, Any]] | None = None,
        malformed_json: bool = False,
        log_file: str | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.latency = latency
        self.models = models  # None: any model name is served
        self.rules: list[Rule] = [Rule.from_dict(r) for r in rules or []]
        self.malformed_json = malformed_json
        self.require_key: str | None = None  # when set, other keys get 401 (chat and /v1/models)
        self._log: list[LogEntry] = []
        self._inflight = 0
        self._peak = 0
        self._log_file = open(log_file, "a", encoding="utf-8") if log_file else None  # noqa: SIM115
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self), bind_and_activate=False)
        self._httpd.daemon_threads = True
        # The default listen backlog (5) drops bursts of new connections; 64+ clients connect at once.
        self._httpd.request_queue_size = 1024
        self._httpd.server_bind()
        self._httpd.server_activate()
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread: threading.Thread | None = None

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeLLMServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and wake any hanging request."""
        self._stop.set()
        if self._thread is not None:
            self._httpd.shutdown()  # only valid while serve_forever runs in our thread
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- configuration ---------------------------------------------------------------------
    def configure(
        self,
        *,
        latency: float | None = None,
        models: list[str] | None = None,
        any_model: bool = False,
        rules: list[dict[str, Any]] | None = None,
        add_rules: list[dict[str, Any]] | None = None,
        malformed_json: bool | None = None,
        reset_log: bool = False,
        require_key: str | None = None,
    ) -> None:
        """Change behaviour at runtime (same keys as ``POST /_control``)."""
        with self._lock:
            if latency is not None:
                self.latency = float(latency)
            if any_model:
                self.models = None
            elif models is not None:
                self.models = list(models)
            if rules is not None:
                self.rules = [Rule.from_dict(r) for r in rules]
            if add_rules:
                self.rules.extend(Rule.from_dict(r) for r in add_rules)
            if malformed_json is not None:
                self.malformed_json = bool(malformed_json)
            if require_key is not None:
                self.require_key = require_key or None
            if reset_log:
                self._log.clear()
                self._peak = self._inflight

    # ---- observations ----------------------------------------------------------------------
    @property
    def log(self) -> list[LogEntry]:
        """A snapshot of every chat request so far, in arrival order."""
        with self._lock:
            return list(self._log)

    @property
    def peak_inflight(self) -> int:
        """Most chat requests the server ever held at once."""
        with self._lock:
            return self._peak

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self._log)

    def requests(self, *, model: str | None = None, match: str | None = None) -> list[LogEntry]:
        """Logged requests, optionally only those for ``model`` or whose prompt contains ``match``."""
        return [
            e for e in self.log if (model is None or e.model == model) and (match is None or match in e.prompt_text)
        ]

    def log_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "count": len(self._log),
                "peak_inflight": self._peak,
                "requests": [e.as_dict(with_messages=False) for e in self._log],
            }

    # ---- request handling (called from handler threads) ------------------------------------
    def _begin(self, model: str, messages: list[dict[str, Any]], max_tokens: int | None, authorized: bool) -> LogEntry:
        prompt = json.dumps(messages, sort_keys=True, ensure_ascii=False)
        with self._lock:
            self._inflight += 1
            self._peak = max(self._peak, self._inflight)
            entry = LogEntry(
                seq=len(self._log),
                arrival=time.time(),
                finish=None,
                model=model,
                status=None,
                prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest(),
                max_tokens=max_tokens,
                inflight_at_arrival=self._inflight,
                messages=messages,
                authorized=authorized,
            )
            self._log.append(entry)
            return entry

    def _release(self, entry: LogEntry) -> None:
        """The request leaves the in-flight count once, before its reply is written: a client that reads the
        reply frees its slot and may send the next request before this handler thread finishes (counted
        after the write, a limit of 8 had read as a peak of 9)."""
        with self._lock:
            if not entry.released:
                entry.released = True
                self._inflight -= 1

    def _end(self, entry: LogEntry, status: int) -> None:
        self._release(entry)
        with self._lock:
            entry.finish = entry.finish or time.time()
            entry.status = status
            if self._log_file is not None:
                self._log_file.write(json.dumps(entry.as_dict(with_messages=False)) + "\n")
                self._log_file.flush()

    def _pick_rule(self, model: str, prompt: str) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.applies(model, prompt):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule
        return None

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(min(seconds, MAX_HANG_S))


_INSTRUCTION = re.compile(r"^(Summarize|Distill|Synthesize|Update an existing|Return ONLY|Previous summary)", re.I)


def _main_paragraph(user_content: str) -> str:
    # The content is the longest blank-line-separated block that is not an instruction; a leading
    # "Content:"-style label line is dropped.
    blocks = [b.strip() for b in re.split(r"\n\s*\n", user_content) if b.strip()]
    blocks = [b for b in blocks if not _INSTRUCTION.match(b) and '"key_points"' not in b] or blocks
    if not blocks:
        return ""
    best = max(blocks, key=len)
    first, _, rest = best.partition("\n")
    return rest if first.rstrip().endswith(":") and rest.strip() else best


def reply_text(user_content: str, max_tokens: int | None) -> str:
    """The deterministic reply: the first max_tokens/2 words of the content, as one sentence."""
    words = _WORD.findall(_main_paragraph(user_content))
    n = max(1, (max_tokens or 256) // 2)
    text = " ".join(words[:n]).rstrip(".,;:!?") or "Empty"
    return text + "."


def facets_reply(user_content: str, max_tokens: int | None) -> str:
    """A valid facets JSON object derived from the user message."""
    summary = reply_text(user_content, max(16, (max_tokens or 256) // 3))
    words = _WORD.findall(_main_paragraph(user_content))
    entities = sorted(set(_CAPITALIZED.findall(_main_paragraph(user_content))))[:5]
    return json.dumps(
        {
            "summary": summary,
            "key_points": [" ".join(words[i : i + 6]) for i in range(0, min(len(words), 18), 6)],
            "decisions": ["Proceed as discussed."],
            "action_items": [{"owner": entities[0] if entities else None, "task": "Follow up.", "due": None}],
            "unresolved": [],
            "entities": entities,
        }
    )


def _asks_for_json(messages: list[dict[str, Any]]) -> bool:
    return any('"key_points"' in str(m.get("content", "")) for m in messages)


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the structured log is ours; stderr noise is not

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout); nothing to tell it

        def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(obj).encode(), headers)

        def _reply(self, entry: LogEntry, status: int, obj: Any, headers: dict[str, str] | None = None) -> int:
            # Stamp finish and status before writing: the client may act on the reply before we log it.
            entry.finish = time.time()
            entry.status = status
            server._release(entry)
            self._json(status, obj, headers)
            return status

        def _read_json(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            return json.loads(raw or b"{}")

        def _key_rejected(self) -> bool:
            if server.require_key is None or self.headers.get("Authorization") == f"Bearer {server.require_key}":
                return False
            error = {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
            self._json(401, {"error": error})
            return True

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                if self._key_rejected():
                    return
                names = server.models if server.models is not None else ["fake"]
                self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in names]})
            elif self.path.rstrip("/") == "/_log":
                self._json(200, server.log_json())
            else:
                self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

        def do_POST(self) -> None:
            if server._stop.is_set():  # closed: a kept-alive connection dies like a stopped server's
                self.close_connection = True
                return
            path = self.path.rstrip("/")
            try:
                body = self._read_json()
            except (ValueError, UnicodeDecodeError):
                self._json(400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
                return
            if path == "/_control":
                try:
                    server.configure(**body)
                except (TypeError, ValueError) as exc:
                    self._json(400, {"error": {"message": str(exc)}})
                    return
                self._json(200, {"ok": True})
            elif path == "/v1/chat/completions":
                if self._key_rejected():
                    return
                self._chat(body)
            else:
                self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

        def _chat(self, body: dict[str, Any]) -> None:
            model = str(body.get("model", ""))
            messages = body.get("messages") or []
            max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
            entry = server._begin(model, messages, max_tokens, authorized=bool(self.headers.get("Authorization")))
            entry.stream = bool(body.get("stream"))
            status = 500
            try:
                status = self._chat_reply(entry, model, messages, max_tokens)
            finally:
                server._end(entry, status)

        def _chat_reply(self, entry: LogEntry, model: str, messages: list[dict[str, Any]], max_tokens: Any) -> int:
            rule = server._pick_rule(model, entry.prompt_text)
            server._sleep(rule.latency if rule and rule.latency is not None else server.latency)
            if rule and rule.hang:
                server._sleep(rule.hang)
            if server.models is not None and model not in server.models:
                return self._reply(
                    entry,
                    404,
                    {
                        "error": {
                            "message": f"The model '{model}' does not exist",
                            "type": "invalid_request_error",
                            "code": "model_not_found",
                        }
                    },
                )
            if rule and rule.status and rule.status >= 400:
                headers = {"Retry-After": rule.retry_after} if rule.retry_after is not None else {}
                return self._reply(
                    entry,
                    rule.status,
                    {"error": {"message": f"injected {rule.status}", "type": "server_error", "code": rule.error_code}},
                    headers,
                )
            if rule and rule.bad_body:
                entry.finish = time.time()
                server._release(entry)
                self._send(200, b'{"id": "chatcmpl-broken", "choices": [ {"message": ')
                return 200
            user = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
            if rule and rule.content is not None:
                content = rule.content
            elif _asks_for_json(messages):
                malformed = server.malformed_json or (rule is not None and rule.malformed_json)
                content = (
                    "Sure! Here is the JSON:\n{summary: 'unterminated" if malformed else facets_reply(user, max_tokens)
                )
            else:
                content = reply_text(user, max_tokens)
            prompt_tokens = max(1, len(entry.prompt_text) // 4)
            completion_tokens = max(1, len(content) // 4)
            entry.prompt_tokens, entry.completion_tokens = prompt_tokens, completion_tokens
            if entry.stream:
                return self._stream(entry, model, content)
            return self._reply(
                entry,
                200,
                {
                    "id": f"chatcmpl-{entry.seq}",
                    "object": "chat.completion",
                    "created": int(entry.arrival),
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                },
            )

        def _stream(self, entry: LogEntry, model: str, content: str) -> int:
            """``stream: true``: the reply as SSE chunks of a few words each, then ``[DONE]``."""
            words = content.split(" ")
            pieces = [" ".join(words[i : i + 3]) + (" " if i + 3 < len(words) else "") for i in range(0, len(words), 3)]
            base = {"id": f"chatcmpl-{entry.seq}", "object": "chat.completion.chunk", "created": int(entry.arrival),
                    "model": model}  # fmt: skip
            events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
            events += [{**base, "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
            events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            entry.finish = time.time()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for ev in events:
                    self.wfile.write(f"data: {json.dumps(ev)}\n\n".encode())
                    self.wfile.flush()
                server._release(entry)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return 200

    return Handler


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A fresh loopback server per test (any model name accepted; no latency)."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def upstream(fake_llm: FakeLLMServer) -> FakeLLMServer:
    """The serve tests' name for :func:`fake_llm`: the upstream ``batchsum serve`` forwards to."""
    return fake_llm


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.fakeserver``: serve until interrupted; print READY <base_url>."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakeserver", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each chat request takes")
    parser.add_argument("--log", default=None, help="append one JSON line per chat request to this file")
    parser.add_argument("--model", action="append", default=None, help="served model name (repeatable; default any)")
    args = parser.parse_args(argv)
    server = FakeLLMServer(port=args.port, latency=args.latency, log_file=args.log, models=args.model)
    print(f"READY {server.base_url}", flush=True)
    try:
        server._httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
