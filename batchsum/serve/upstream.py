"""Forwarding chat requests to the upstream OpenAI-compatible server, plain or streamed.

Every failure becomes :class:`UpstreamError` with a message safe to show (the upstream key is never
part of it): connection refused, timeouts (connect and per read, so a hung server never hangs a
client), non-JSON bodies, HTTP errors. A 4xx of the upstream keeps its status (the request was bad);
everything else is a 502.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import aiohttp

from batchsum import jsonio
from batchsum.backends.llm import sanitize_for_log

CONNECT_TIMEOUT_S = 10.0
SSE_FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")  # the lines an event stream is made of


class UpstreamError(Exception):
    """The upstream server failed; ``status`` is what the client gets."""

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


class Upstream:
    """One HTTP session to the upstream ``/v1`` base URL."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
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
        status = resp.status if 400 <= resp.status < 500 and resp.status not in (401, 403, 408, 429) else 502
        return UpstreamError(f"upstream server answered HTTP {resp.status}: {detail}", status)

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
        """A non-streamed completion as the upstream's JSON."""
        try:
            async with self.session.post(self.url, json=body, headers=self._headers) as resp:
                if resp.status != 200:
                    raise await self._error(resp)
                data = await resp.json(content_type=None, loads=jsonio.loads)
        except UpstreamError:
            raise
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise UpstreamError(f"upstream server {self.url} failed: {self._describe(exc)}") from None
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise UpstreamError("upstream server sent a reply without choices")
        return data

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[bytes, None]:
        """The upstream's SSE lines (``data: ...``), as they arrive. Errors before the first line raise
        UpstreamError; later ones too (the caller turns them into an SSE error event)."""
        try:
            async with self.session.post(self.url, json=body, headers=self._headers) as resp:
                if resp.status != 200:
                    raise await self._error(resp)
                if "json" in resp.headers.get("Content-Type", ""):
                    raise await self._not_sse(resp, b"")
                async for line in resp.content:
                    if line.strip():
                        if not line.startswith(SSE_FIELDS):
                            raise await self._not_sse(resp, line)
                        yield line.rstrip(b"\r\n")
        except UpstreamError:
            raise
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise UpstreamError(f"upstream server {self.url} failed: {self._describe(exc)}") from None


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
