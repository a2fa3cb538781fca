"""Forwarding chat requests to the upstream OpenAI-compatible server, plain or streamed.

Every failure becomes :class:`UpstreamError` with a message safe to show (the upstream key is never
part of it): connection refused, timeouts (connect and per read, so a hung server never hangs a
client), non-JSON bodies, HTTP errors. A 4xx of the upstream keeps its status (the request was bad);
everything else is a 502.

A 429, a 5xx or a refused connection is retried as the run's LLM client retries (``--max-attempts`` in
all, exponential backoff with jitter, never earlier than the upstream's ``Retry-After``), but a chat
client is waiting, so no single wait is longer than :data:`RETRY_MAX_S`: a longer ``Retry-After`` is
passed on at once. A 429 that outlasts the retries reaches the client as a 429 with its ``Retry-After``
(the client may wait and ask again); anything else that does is a 502.

``--concurrency`` and ``--rpm`` hold as they do for ``run``: at most that many requests are at the
upstream at once (a stream holds its slot until it ends), and attempts are spaced by the run's own
limiter (:func:`batchsum.throttle.acquire`), a retry included.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import aiohttp
from aiolimiter import AsyncLimiter

from batchsum import jsonio, throttle
from batchsum.backends.llm import sanitize_for_log
from batchsum.backends.llm_client import RETRYABLE_STATUS, parse_retry_after

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
RETRY_INITIAL_S = 0.5  # the first backoff, doubled at each retry (the run's LLM client's)
RETRY_MAX_S = 30.0  # the longest a chat client is kept waiting before one retry
_T = TypeVar("_T")
SSE_FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")  # the lines an event stream is made of
RATE_PERIOD_S = 60.0  # the window --rpm counts requests in


class UpstreamError(Exception):
    """The upstream server failed; ``status`` is what the client gets."""

    def __init__(
        self, message: str, status: int = 502, *, retryable: bool = False, retry_after: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after  # the upstream's Retry-After header, as sent

    @property
    def headers(self) -> dict[str, str]:
        """Headers the client gets with the error (a 429's Retry-After)."""
        return {"Retry-After": self.retry_after} if self.status == 429 and self.retry_after else {}

    def wait_s(self, attempt: int) -> float:
        """Seconds before retry ``attempt`` (1 for the first): the upstream's Retry-After, else the backoff."""
        asked = parse_retry_after(self.retry_after)
        if asked is not None:
            return asked + random.uniform(0, 0.25)  # never earlier than asked; jitter spreads a crowd
        backoff = min(RETRY_MAX_S, RETRY_INITIAL_S * 2 ** (attempt - 1))
        return backoff + random.uniform(0, backoff / 2)


class Upstream:
    """One HTTP session to the upstream ``/v1`` base URL."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        timeout: float,
        max_attempts: int = 1,
        *,
        concurrency: int | None = None,
        rpm: float | None = None,
    ) -> None:
        """``concurrency``: requests at the upstream at once; ``rpm``: requests per minute (None or
        <= 0: no limit)."""
        self.max_attempts = max(1, max_attempts)
        self._slots = asyncio.Semaphore(concurrency) if concurrency and concurrency > 0 else None
        # Capacity 1 spaces requests evenly, as the run's LLM client does: no burst at start.
        self._rpm = AsyncLimiter(1, RATE_PERIOD_S / rpm) if rpm and rpm > 0 else None
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._secrets = [api_key] if api_key else []
        self._timeout = aiohttp.ClientTimeout(total=None, connect=min(CONNECT_TIMEOUT_S, timeout), sock_read=timeout)
        self.timeout = timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    @asynccontextmanager
    async def _slot(self) -> AsyncGenerator[None, None]:
        """One of ``--concurrency``'s places at the upstream, held while inside."""
        if self._slots is None:
            yield
            return
        async with self._slots:
            yield

    async def _paced(self) -> None:
        """Wait for ``--rpm`` before one attempt (inside a slot, so a slot taken late is no burst)."""
        if self._rpm is not None:
            await throttle.acquire(self._rpm, 1, "--rpm")

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, TimeoutError):
            return f"no answer within {self.timeout:g} s"
        return sanitize_for_log(str(exc) or type(exc).__name__, self._secrets, limit=200)

    async def _error(self, resp: aiohttp.ClientResponse) -> UpstreamError:
        raw = await resp.text(errors="replace")
        try:
            detail = jsonio.loads(raw).get("error", {}).get("message") or raw
        except (ValueError, AttributeError):
            detail = raw
        detail = sanitize_for_log(str(detail), self._secrets, limit=300)
        kept = 400 <= resp.status < 500 and resp.status not in (401, 403, 408)
        return UpstreamError(
            f"upstream server answered HTTP {resp.status}: {detail}",
            resp.status if kept else 502,
            retryable=resp.status in RETRYABLE_STATUS or resp.status >= 500,
            retry_after=resp.headers.get("Retry-After"),
        )

    async def _retrying(self, attempt: Callable[[], Awaitable[_T]]) -> _T:
        """``attempt()``, again after a retryable failure, up to :attr:`max_attempts` in all."""
        for n in range(1, self.max_attempts + 1):
            try:
                return await attempt()
            except UpstreamError as exc:
                wait = exc.wait_s(n)
                if not exc.retryable or n == self.max_attempts or wait > RETRY_MAX_S:
                    raise
                log.info("%s; retrying in %.1f s (attempt %d of %d)", exc, wait, n + 1, self.max_attempts)
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    async def _not_sse(self, resp: aiohttp.ClientResponse, first: bytes) -> UpstreamError:
        """A stream request answered with something other than server-sent events (a JSON body, an HTML
        error page): an error, never relayed as a 200 stream."""
        rest = await resp.content.read(300)
        begins = sanitize_for_log((first + rest).decode("utf-8", "replace"), self._secrets, limit=120)
        kind = resp.headers.get("Content-Type") or "no Content-Type"
        return UpstreamError(
            f"upstream server answered a stream request without server-sent events ({kind}): {begins!r}"
        )

    async def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streamed completion as the upstream's JSON (retried, see the module's docstring)."""
        async with self._slot():
            return await self._retrying(lambda: self._complete_once(body))

    async def _complete_once(self, body: dict[str, Any]) -> dict[str, Any]:
        await self._paced()
        try:
            async with self.session.post(self.url, json=body, headers=self._headers) as resp:
                if resp.status != 200:
                    raise await self._error(resp)
                data = await resp.json(content_type=None, loads=jsonio.loads)
        except UpstreamError:
            raise
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise self._failed(exc) from None
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise UpstreamError("upstream server sent a reply without choices")
        for i, choice in enumerate(data["choices"]):
            problem = _choice_problem(choice)
            if problem:
                raise UpstreamError(f"upstream server sent a malformed reply: choices[{i}] {problem}")
        return data

    def _failed(self, exc: BaseException) -> UpstreamError:
        """A failure to get an answer; a refused or dropped connection is retried, a timeout is not (the
        client already waited that long)."""
        retryable = isinstance(exc, aiohttp.ClientConnectionError) and not isinstance(exc, TimeoutError)
        return UpstreamError(f"upstream server {self.url} failed: {self._describe(exc)}", retryable=retryable)

    async def _open(self, body: dict[str, Any]) -> aiohttp.ClientResponse:
        """The response to a stream request, its status and type checked (nothing of its body read yet)."""
        await self._paced()
        try:
            resp = await self.session.post(self.url, json=body, headers=self._headers)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise self._failed(exc) from None
        try:
            if resp.status != 200:
                raise await self._error(resp)
            if "json" in resp.headers.get("Content-Type", ""):
                raise await self._not_sse(resp, b"")
        except BaseException:
            resp.release()
            raise
        return resp

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[bytes, None]:
        """The upstream's SSE lines (``data: ...``), as they arrive. Errors before the first line raise
        UpstreamError (after the retries the response's status allows); later ones too, never retried:
        part of the answer is sent (the caller turns them into an SSE error event). A stream that ends
        without ``data: [DONE]`` was cut off (a dropped connection reads as a plain end), one without any line
        empty: an error too."""
        async with self._slot():
            resp = await self._retrying(lambda: self._open(body))
            finished = sent = False
            try:
                async with resp:
                    async for line in resp.content:
                        if line.strip():
                            if not line.startswith(SSE_FIELDS):
                                raise await self._not_sse(resp, line)
                            finished = finished or delta_text(line) is None
                            sent = True
                            yield line.rstrip(b"\r\n")
            except UpstreamError:
                raise
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise UpstreamError(f"upstream server {self.url} failed: {self._describe(exc)}") from None
            if not finished:
                end = "before its end ([DONE])" if sent else "without data"
                raise UpstreamError(f"upstream server {self.url} closed the stream {end}")


def _choice_problem(choice: Any) -> str | None:
    """What is wrong with one choice of a completion (None: a message object with string or null
    content, as the OpenAI format has it)."""
    if not isinstance(choice, dict):
        return "is not an object"
    message = choice.get("message")
    if not isinstance(message, dict):
        return "has no message object"
    if message.get("content") is not None and not isinstance(message["content"], str):
        return "has a message whose content is not a string"
    return None


def delta_text(line: bytes) -> str | None:
    """The content delta of one SSE ``data:`` line ('' for chunks without text, None for [DONE])."""
    if not line.startswith(b"data:"):
        return ""
    payload = line[5:].strip()
    if payload == b"[DONE]":
        return None
    try:
        data = jsonio.loads(payload)
        choices = data.get("choices") or []
        return str((choices[0].get("delta") or {}).get("content") or "") if choices else ""
    except (ValueError, AttributeError, IndexError, TypeError):
        return ""
