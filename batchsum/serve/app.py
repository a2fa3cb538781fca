"""The OpenAI-compatible HTTP endpoint (aiohttp): ``POST /v1/chat/completions``, ``GET /v1/models``.

A request: validate it (OpenAI-style 4xx JSON errors), retrieve context for the last user message and
inject it (:mod:`batchsum.serve.context`), forward to the upstream server (:mod:`batchsum.serve.upstream`),
return its answer as is, plain or streamed. The finished exchange is spooled and the background writer
(:mod:`batchsum.serve.writer`) turns it into turn files, facts and the conversation's summary. Each
response carries ``Server-Timing`` (retrieval, upstream, total) so the overhead over the upstream can be
measured from outside.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from batchsum import jsonio
from batchsum.errors import BatchsumError, ConfigError
from batchsum.serve.config import ServeConfig, watch_run
from batchsum.serve.context import Context, inject, last_user_text, retrieve
from batchsum.serve.conversations import Exchange, check_conversation_id, spool
from batchsum.serve.guard import ChromaGuard
from batchsum.serve.upstream import Upstream, UpstreamError, delta_text
from batchsum.serve.writer import MemoryWriter
from batchsum.watch import PROBLEM_LINES, Watcher, watch_config

log = logging.getLogger(__name__)

ROLES = frozenset({"system", "user", "assistant", "tool", "developer", "function"})
MAX_BODY_BYTES = 8 * 1024 * 1024
# Fields of ours that clients may send (the upstream never sees them).
CONVERSATION_FIELDS = ("conversation_id", "memory_id")

CONFIG: web.AppKey[ServeConfig] = web.AppKey("config", ServeConfig)
UPSTREAM: web.AppKey[Upstream] = web.AppKey("upstream", Upstream)
WRITER: web.AppKey[MemoryWriter] = web.AppKey("writer", MemoryWriter)
GUARD: web.AppKey[ChromaGuard] = web.AppKey("guard", ChromaGuard)


class WatchState:
    """Whether ``--watch``'s watcher stopped, and why (for ``/health``)."""

    def __init__(self) -> None:
        self.stopped: str | None = None


WATCH: web.AppKey[WatchState] = web.AppKey("watch", WatchState)


def error(status: int, message: str, *, kind: str = "invalid_request_error", code: str | None = None,
          param: str | None = None, headers: dict[str, str] | None = None) -> web.Response:  # fmt: skip
    """An OpenAI-style error response."""
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def upstream_error(exc: UpstreamError) -> web.Response:
    """The client's answer to an upstream failure (a 429 with the upstream's Retry-After)."""
    log.warning("%s", exc)
    return error(exc.status, str(exc), kind="upstream_error", code="upstream_failed", headers=exc.headers)


class _BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def validate(body: Any) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(body to forward, messages, conversation id) or _BadRequest naming the field."""
    if not isinstance(body, dict):
        raise _BadRequest("the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _BadRequest("'messages' must be a non-empty list of {role, content} objects", "messages")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise _BadRequest(f"messages[{i}] must be an object", f"messages[{i}]")
        if m.get("role") not in ROLES:
            raise _BadRequest(f"messages[{i}].role must be one of {', '.join(sorted(ROLES))}", f"messages[{i}].role")
        _check_content(m.get("content"), f"messages[{i}].content")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise _BadRequest("'stream' must be true or false", "stream")
    raw_id = next((body[f] for f in CONVERSATION_FIELDS if body.get(f) is not None), None)
    if raw_id is not None and not isinstance(raw_id, str):
        raise _BadRequest("'conversation_id' must be a string", "conversation_id")
    try:
        cid = check_conversation_id(raw_id)
    except ConfigError as exc:
        raise _BadRequest(str(exc), "conversation_id") from None
    forward = {k: v for k, v in body.items() if k not in CONVERSATION_FIELDS}
    return forward, messages, cid


def _check_content(content: Any, where: str) -> None:
    """_BadRequest unless ``content`` is absent, a string, or a list of parts as OpenAI's schema has them:
    each an object with a string "type"; a "text" part's "text" a string. Other parts (image_url,
    input_audio...) pass through to the upstream, carrying no text for retrieval."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _BadRequest(f"{where} must be a string or a list of parts", where)
    for j, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise _BadRequest(f"{where}[{j}] must be an object with a 'type' (a content part)", f"{where}[{j}]")
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            raise _BadRequest(f"{where}[{j}].text must be a string (a text part)", f"{where}[{j}].text")


def _key_matches(sent: str, key: str) -> bool:
    """Whether an Authorization header carries ``key`` as a Bearer credential: the scheme is
    case-insensitive (RFC 7235 section 2.1), the token compared exactly and in constant time."""
    scheme, _, token = sent.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), key.encode())


@web.middleware
async def _errors(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """OpenAI-style JSON for every error, the client key check, no stack traces to clients."""
    key = request.app[CONFIG].client_key
    if key and request.path != "/health":
        sent = request.headers.get("Authorization", "")
        if not _key_matches(sent, key):
            return error(401, "invalid or missing API key (send 'Authorization: Bearer <key>')", code="invalid_api_key")
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        # Its own headers go with it (a 405's Allow); the body and its type are ours.
        kept = {k: v for k, v in exc.headers.items() if k.lower() not in ("content-type", "content-length")}
        return error(exc.status, http_error_message(request, exc), code=str(exc.status), headers=kept)
    except Exception as exc:
        log.exception("internal error on %s", request.path)
        return error(500, f"internal error: {type(exc).__name__}", kind="server_error")


def http_error_message(request: web.Request, exc: web.HTTPException) -> str:
    """The message of an error aiohttp raised before a handler ran (no such endpoint, a wrong method, a body
    over the limit), naming what was sent and what the server takes: its bare reason phrase ("Not Found")
    leaves a script's author to guess which part of the request was wrong."""
    where = f"{request.method} {request.path}"
    if exc.status == 404:
        return f"no endpoint {where}: this server answers {_endpoints(request.app)}"
    if exc.status == 405:
        return f"{where} is not allowed: {request.path} takes {exc.headers.get('Allow', 'another method')}"
    if exc.status == 413:
        sent = f" ({request.content_length:,} bytes)" if request.content_length else ""
        return (
            f"the request body{sent} is over the {MAX_BODY_BYTES:,} bytes ({MAX_BODY_BYTES // 2**20} MiB) "
            "serve accepts: send a shorter conversation"
        )
    return exc.reason or "error"


def _endpoints(app: web.Application) -> str:
    """The routes as "POST /v1/chat/completions, GET /v1/models and GET /health" (HEAD, which aiohttp
    adds to every GET, left out)."""
    found = [f"{r.method} {r.resource.canonical}" for r in app.router.routes() if r.method != "HEAD" and r.resource]
    if len(found) < 2:
        return "".join(found) or "nothing"
    return ", ".join(found[:-1]) + " and " + found[-1]


def _timing(ctx: Context, upstream_ms: float, t0: float) -> dict[str, str]:
    total = (time.perf_counter() - t0) * 1000
    return {
        "Server-Timing": f"retrieval;dur={ctx.retrieval_ms:.1f}, upstream;dur={upstream_ms:.1f}, total;dur={total:.1f}"
    }


async def chat_completions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/chat/completions``."""
    t0 = time.perf_counter()
    scfg = request.app[CONFIG]
    raw = await request.read()
    if not raw.strip():  # "not valid JSON" would send the client looking for a syntax error
        return error(400, "the request body is empty: send a JSON object with 'messages'")
    try:
        body = jsonio.loads(raw)  # depth-safe: a deeply nested body is a 400, not a 500
    except jsonio.TooDeep as exc:
        return error(400, f"the request body is not valid JSON: {exc}")
    except UnicodeDecodeError as exc:  # a ValueError too: first, so the client learns it is the encoding
        where = f"byte {exc.object[exc.start]:#04x} at offset {exc.start}"
        return error(400, f"the request body is not UTF-8 ({where}): JSON is sent as UTF-8 (RFC 8259)")
    except ValueError as exc:  # the parser's line and column: where the syntax error is
        return error(400, f"the request body is not valid JSON: {exc}")
    try:
        forward, messages, cid = validate(body)
    except _BadRequest as exc:
        return error(400, str(exc), param=exc.param)
    query = last_user_text(messages)
    ctx = await asyncio.to_thread(retrieve, scfg, query, cid, request.app[GUARD])
    forward["messages"] = inject(messages, ctx)
    forward["model"] = scfg.run.llm.model
    upstream = request.app[UPSTREAM]
    if forward.get("stream"):
        return await _stream(request, upstream, forward, ctx, query, cid, t0)
    u0 = time.perf_counter()
    try:
        data = await upstream.complete(forward)
    except UpstreamError as exc:
        return upstream_error(exc)
    upstream_ms = (time.perf_counter() - u0) * 1000
    choice = data["choices"][0] if data["choices"] else {}
    answer = str(((choice or {}).get("message") or {}).get("content") or "")
    _remember(request.app, cid, query, answer)
    return web.json_response(data, headers=_timing(ctx, upstream_ms, t0))


async def _stream(
    request: web.Request, upstream: Upstream, forward: dict[str, Any], ctx: Context, query: str, cid: str, t0: float
) -> web.StreamResponse:
    u0 = time.perf_counter()
    lines = upstream.stream(forward)
    try:
        first = await anext(lines)  # an empty stream raises UpstreamError too, never StopAsyncIteration
    except UpstreamError as exc:
        return upstream_error(exc)
    first_ms = (time.perf_counter() - u0) * 1000  # the wait for the answer to begin: all that is known now
    headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **_timing(ctx, first_ms, t0)}
    response = web.StreamResponse(status=200, headers=headers)
    await response.prepare(request)
    parts: list[str] = []
    done = False
    try:
        line: bytes | None = first
        while line is not None:
            await response.write(line + b"\n\n")
            piece = delta_text(line)
            if piece is None:
                done = True
                break
            parts.append(piece)
            line = await anext(lines, None)
    except UpstreamError as exc:
        event = {"error": {"message": str(exc), "type": "upstream_error", "code": "upstream_failed"}}
        await response.write(f"data: {json.dumps(event)}\n\n".encode())
    finally:
        await lines.aclose()
    if done:  # a stream cut off (an error event sent) is no answer to remember
        _remember(request.app, cid, query, "".join(parts))
    log.debug("stream for %s: upstream %.0f ms", cid, (time.perf_counter() - u0) * 1000)
    await response.write_eof()
    return response


def _remember(app: web.Application, cid: str, user: str, assistant: str) -> None:
    """Spool the exchange for the writer (the tree itself is written under the output's lock)."""
    if not user.strip():
        return
    try:
        spool(app[CONFIG].out, Exchange.new(cid, user, assistant))
    except OSError as exc:
        log.error("could not save the exchange of %s (%s)", cid, exc)
        return
    app[WRITER].notify()


async def models(request: web.Request) -> web.Response:
    """``GET /v1/models``: the one model this endpoint serves."""
    model = request.app[CONFIG].run.llm.model
    return web.json_response(
        {"object": "list", "data": [{"id": model, "object": "model", "created": 0, "owned_by": "batchsum"}]}
    )


async def health(request: web.Request) -> web.Response:
    """``GET /health``: ``ok``, or ``degraded`` with the reasons when the last retrieval could not use
    the configured Chroma server (still 200: requests are served, from the local copy of the index) or
    the ``--watch`` watcher stopped (changed sources are no longer summarized)."""
    problems = {"retrieval": request.app[GUARD].degraded, "watcher": request.app[WATCH].stopped}
    found = {k: v for k, v in problems.items() if v}
    return web.json_response({"status": "degraded", **found} if found else {"status": "ok"})


def create_app(scfg: ServeConfig) -> web.Application:
    """The application with its upstream session and background writer (started with the app)."""
    llm = scfg.run.llm
    if not llm.base_url or not llm.model:
        raise ConfigError("serve needs the upstream server: --base-url URL and --model NAME")
    app = web.Application(middlewares=[_errors], client_max_size=MAX_BODY_BYTES)
    app[CONFIG] = scfg
    app[UPSTREAM] = Upstream(
        llm.base_url, llm.api_key, llm.timeout, llm.max_attempts, concurrency=llm.concurrency, rpm=llm.rpm
    )
    app[GUARD] = ChromaGuard(scfg.run)
    app[WRITER] = MemoryWriter(scfg, app[GUARD])
    app[WATCH] = WatchState()
    app.router.add_post("/v1/chat/completions", chat_completions)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/health", health)
    app.on_startup.append(_startup)
    app.on_cleanup.append(_cleanup)
    return app


async def _startup(app: web.Application) -> None:
    _say_no_output(app[CONFIG])
    app[WRITER].start()
    if app[CONFIG].run.index:
        # Ready when it says so: the embedder, Chroma (the facts) and the index files are loaded before the
        # server listens, so the first request costs what any other does, not a second or two of loading.
        await asyncio.to_thread(_warm_up, app[CONFIG], app[GUARD])


def _say_no_output(scfg: ServeConfig) -> None:
    """Warn when OUT holds no batchsum output (a mistyped --out): serve would answer without any summary."""
    if scfg.watch or scfg.run.state_dir.is_dir():
        return
    log.warning(
        "%s holds no batchsum output (no %s folder): no summaries to inject, only what this server's own "
        "conversations write there; check --out, or fill it with `batchsum run SOURCES --out %s` (or --watch SOURCES)",
        scfg.out, scfg.run.state_dir.name, scfg.out,
    )  # fmt: skip


def _warm_up(scfg: ServeConfig, guard: ChromaGuard) -> None:
    try:
        retrieve(scfg, "warm up", "warm-up", guard)
    except Exception as exc:  # only an optimization: the first request loads what is missing
        log.debug("warm-up failed: %s", exc)


async def _cleanup(app: web.Application) -> None:
    await _stopped(app[WRITER], 30.0)
    await app[UPSTREAM].close()


def _watch_report(line: str) -> None:
    """The watcher's lines in the server's log: problems as warnings."""
    problem = line.startswith(PROBLEM_LINES)
    log.log(logging.WARNING if problem else logging.INFO, "watch: %s", line)


def _start_watcher(app: web.Application) -> Watcher:
    """``--watch``'s watcher in a background thread, with the output folder's own settings."""
    scfg, guard, state = app[CONFIG], app[GUARD], app[WATCH]
    cfg = watch_config(watch_run(scfg), scfg.watch)
    llm = f"{cfg.llm.model} at {cfg.llm.base_url}" if cfg.llm.enabled else "extractive"
    log.info("watch: summarizing %s with the settings of %s (%s)", ", ".join(map(str, scfg.watch)), scfg.out, llm)
    watcher = Watcher(
        cfg, debounce_ms=scfg.debounce_ms, around=lambda: guard.use(own_writes=True), report=_watch_report
    )

    def stopped(exc: Exception) -> None:
        # /health and one log line say the watcher stopped; the traceback only at debug level
        state.stopped = str(exc) if isinstance(exc, BatchsumError) else f"{type(exc).__name__}: {exc}"
        log.error("watcher stopped, changed sources are no longer summarized: %s", state.stopped)
        log.debug("watcher stopped", exc_info=exc)

    return watcher.start_thread(on_error=stopped)


def run_server(scfg: ServeConfig, announce: Callable[[str], None] = print) -> None:
    """Serve until SIGINT or SIGTERM; ``announce`` gets the base URL once listening."""
    asyncio.run(_serve(scfg, announce))


async def _serve(scfg: ServeConfig, announce: Callable[[str], None]) -> None:
    app = create_app(scfg)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    watching = None
    stop, now = asyncio.Event(), asyncio.Event()
    try:
        site = web.TCPSite(runner, scfg.host, scfg.port)
        try:
            await site.start()
        except OSError as exc:
            raise ConfigError(f"cannot listen on {scfg.host}:{scfg.port} ({exc.strerror or exc})") from None
        addresses = runner.addresses  # the bound (host, port, ...) of each listening socket
        port = addresses[0][1] if addresses else scfg.port
        if scfg.watch:
            watching = _start_watcher(app)
        announce(f"http://{scfg.host}:{port}/v1")
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, _on_signal, stop, now)
        await stop.wait()
    finally:
        at_once = await _shut_down(runner, watching, now)
    if at_once:
        raise SystemExit(130)


def _on_signal(stop: asyncio.Event, now: asyncio.Event) -> None:
    """The first SIGINT/SIGTERM stops cleanly (requests in flight are answered, a run finishes); a
    second one stops at once."""
    if stop.is_set():
        now.set()
        return
    log.info("stopping (requests in flight are answered first; signal again to stop at once)")
    stop.set()


async def _shut_down(runner: web.AppRunner, watching: Watcher | None, now: asyncio.Event) -> bool:
    """Stop the watcher and the server, unless ``now`` is set first; True when it was (stopped at once:
    what is spooled is written at the next start, a watch run resumes there)."""

    async def clean() -> None:
        if watching is not None:
            await _stopped(watching, 60.0)  # a run in progress finishes first
        await runner.cleanup()

    shutdown = asyncio.ensure_future(clean())
    interrupt = asyncio.ensure_future(now.wait())
    await asyncio.wait({shutdown, interrupt}, return_when=asyncio.FIRST_COMPLETED)
    interrupt.cancel()
    if shutdown.done():
        shutdown.result()
        return False
    shutdown.cancel()
    log.warning("stopped at once")
    return True


async def _stopped(worker: Watcher | MemoryWriter, timeout: float) -> None:
    """Ask ``worker``'s thread to stop and wait up to ``timeout`` s for it without blocking the loop
    (a thread joined in the executor would keep the process alive after a stop at once)."""
    worker.stop(0)
    deadline = time.monotonic() + timeout
    while worker.alive and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
