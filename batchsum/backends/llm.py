"""The LLM backend: any OpenAI-compatible ``/v1/chat/completions`` server.

One instance serves every node task of a run, so the limits live here and are shared: a
semaphore caps requests in flight (``concurrency``), one limiter paces requests (``rpm``) and
another meters tokens (``tpm``: prompt + max output tokens, corrected by the ``usage`` the server
reports). Each request is retried with exponential backoff and jitter on 429, 5xx, timeouts and
connection errors, honouring ``Retry-After``; other 4xx and invalid output are never retried.
Models are tried in order (``model`` then ``fallback_models``) when one is missing or keeps failing.
When everything fails, ``on_error`` decides: extractive fallback, a per-file failure, or abort.

Successful completions are cached on disk (see :mod:`batchsum.backends.cache`), so re-runs and
resumed runs never pay twice. The API key never appears in logs, errors or cache files.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from batchsum.backends.budget import count_message_tokens
from batchsum.backends.llm_client import (
    CallStats,
    ChatTransport,
    LLMCallError,
    LLMClient,
    RequestGate,
    check_server,
)
from batchsum.backends.llm_output import sanitize_for_log
from batchsum.backends.llm_requests import Answer, CallFailed, Prompt, RequestMaker
from batchsum.config import LLMConfig
from batchsum.errors import AbortRun, ConfigError, SummarizationError
from batchsum.model import Backend, SummaryOutput, SummaryRequest
from batchsum.settings import validate_llm
from batchsum.tokens import Tokenizer

log = logging.getLogger(__name__)

FALLBACK_BACKEND = "extractive (fallback)"


class LLMBackend:
    """Summaries from an OpenAI-compatible server, shared by every node task of a run."""

    name = "llm"

    def __init__(
        self,
        cfg: LLMConfig,
        *,
        tokenizer: Tokenizer,
        fallback: Backend,
        cache_dir: Path | None,
        rate_period: float = 60.0,
        retry_initial: float = 0.5,
        retry_max: float = 30.0,
        gate: RequestGate | None = None,
        transport: ChatTransport | None = None,
    ) -> None:
        """``rate_period``, ``retry_initial``, ``retry_max``, ``gate`` and ``transport``: see
        :class:`~batchsum.backends.llm_client.LLMClient`, which sends every request of this backend."""
        _validate(cfg)
        self.cfg = cfg
        self.client = LLMClient(
            cfg,
            cache_dir=cache_dir,
            rate_period=rate_period,
            retry_initial=retry_initial,
            retry_max=retry_max,
            gate=gate,
            transport=transport,
        )
        self._tokenizer = tokenizer
        self._fallback = fallback
        # How each summary becomes its requests, and their answers its text (shared with ``batchsum plan``).
        self.requests = RequestMaker(cfg, tokenizer)
        self._abort_reason: str | None = None
        self._secrets = self.client.secrets
        self.fallbacks = 0
        self.inputs_truncated = 0
        self.outputs_trimmed = 0

    @staticmethod
    def check_server(cfg: LLMConfig) -> None:
        """Raise :class:`~batchsum.errors.LLMUnavailable` when the server refuses connections or rejects the
        key (:func:`~batchsum.backends.llm_client.check_server`)."""
        check_server(cfg)

    @property
    def model(self) -> str | None:
        """The first model of the chain (known once the server was asked, when none was given)."""
        return self.client.model

    @model.setter
    def model(self, value: str | None) -> None:
        self.client.model = value

    @property
    def requests_sent(self) -> int:
        """Requests sent so far."""
        return self.client.requests_sent

    @property
    def retries(self) -> int:
        """Retries so far."""
        return self.client.retries

    @property
    def peak_inflight(self) -> int:
        """Most requests in flight at once so far."""
        return self.client.peak_inflight

    @property
    def stats(self) -> dict[str, int]:
        """Counters of this backend so far."""
        c = self.client
        return {
            "requests_sent": c.requests_sent,
            "retries": c.retries,
            "cache_hits": c.cache_hits,
            "fallbacks": self.fallbacks,
            "prompt_tokens": c.prompt_tokens,
            "completion_tokens": c.completion_tokens,
            "peak_inflight": c.peak_inflight,
            "inputs_truncated": self.inputs_truncated,
            "outputs_trimmed": self.outputs_trimmed,
        }

    async def preflight(self) -> None:
        """Fail fast before any work (see :meth:`LLMClient.preflight`)."""
        await self.client.preflight()

    async def aclose(self) -> None:
        """Close the HTTP clients."""
        await self.client.aclose()

    # ---- public entry point -------------------------------------------------------------------
    async def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """Produce one node; on final failure apply ``on_error`` (fallback, fail or abort)."""
        if self._abort_reason is not None:
            raise AbortRun(
                f"{request.node_id}: run aborted after an earlier LLM failure ({self._abort_reason})",
                node_id=request.node_id,
                cause=LLMCallError(self._abort_reason),
            )
        if self.client.unavailable is not None:
            raise self.client.unavailable
        stats = CallStats()
        try:
            return await self._summarize(request, stats)
        except CallFailed as exc:
            return await self._on_failure(request, str(exc), stats)

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        name: str,
        extra: dict[str, Any] | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> str:
        """The raw text of one chat completion of ``messages`` through this backend's model chain,
        limits, retries and response cache, for requests other than summaries (facts, ...).

        ``extra``: more request parameters (e.g. ``response_format``); they are part of the cache key.
        ``accept``: whether an answer may be cached (and a cached one used); a rejected answer is still
        returned, so the caller can ask again, but never replayed from the cache.
        No fallback: raises :class:`SummarizationError` naming ``name`` when every model fails.
        """
        request = SummaryRequest(
            node_id=name, kind="standard", content_type="document", text="", input_tokens=0,
            target_tokens=max_tokens, max_tokens=max_tokens,
        )  # fmt: skip
        prompt = Prompt(list(messages), max(1, max_tokens), count_message_tokens(messages, self._tokenizer))
        try:
            return await self.client.complete(name, prompt, CallStats(), priority=request.priority, extra=extra,
                                              accept=accept)  # fmt: skip
        except CallFailed as exc:
            cause = sanitize_for_log(str(exc), self._secrets, limit=300)
            raise SummarizationError(f"{name}: {cause}", node_id=name, cause=LLMCallError(cause)) from None

    async def _summarize(self, request: SummaryRequest, stats: CallStats) -> SummaryOutput:
        steps = self.requests.asks(request)
        ask = next(steps)
        while True:
            if ask.truncated_from is not None:
                self.inputs_truncated += 1
                log.warning(
                    "%s: %s input of %d tokens middle-truncated (head and tail kept) to fit --context-window %d",
                    request.node_id,
                    request.kind,
                    ask.truncated_from,
                    self.cfg.context_window,
                )
            if ask.rejected is not None:
                # A cached answer replayed (and its retry with it) was warned about the night it came.
                log.log(
                    logging.DEBUG if stats.cache_hit else logging.WARNING,
                    "%s: invalid facets JSON from model %s; asking once more for plain text. Output began: %r",
                    request.node_id,
                    stats.model,
                    sanitize_for_log(ask.rejected, self._secrets),
                )
            raw = await self._complete(request, ask.prompt, stats)
            try:
                ask = steps.send(raw)
            except StopIteration as stop:
                answer: Answer = stop.value
                break
        if not answer.text:
            log.warning(
                "%s: model %s returned no usable text. Output began: %r",
                request.node_id,
                stats.model,
                sanitize_for_log(answer.raw, self._secrets),
            )
            raise CallFailed(f"model {stats.model} returned an empty summary")
        if answer.trimmed or stats.cut:
            self.outputs_trimmed += 1
        return SummaryOutput(
            text=answer.text,
            backend=self.name,
            model=stats.model,
            prompt_tokens=stats.prompt_tokens,
            completion_tokens=stats.completion_tokens,
            attempts=stats.attempts,
            latency_ms=stats.http_s * 1000.0,
            cache_hit=stats.cache_hit,
            llm_calls=stats.sent,
            trimmed=answer.trimmed or stats.cut,
            facets=answer.facets,
        )

    async def _on_failure(self, request: SummaryRequest, cause: str, stats: CallStats) -> SummaryOutput:
        cause = sanitize_for_log(cause, self._secrets, limit=300)
        # The requests it sent are counted and its row recorded with its error, as a fallback's are.
        spent = SummaryOutput(text="", backend=self.name, model=stats.model, error=cause, **_spent(stats))
        if self.cfg.on_error == "abort":
            self._abort_reason = self._abort_reason or cause
            self.client.halted = self._abort_reason  # the requests queued behind the limits are not sent
            raise AbortRun(
                f"{request.node_id}: {cause}", node_id=request.node_id, cause=LLMCallError(cause), output=spent
            )
        if self.cfg.on_error == "fail":
            raise SummarizationError(
                f"{request.node_id}: {cause}", node_id=request.node_id, cause=LLMCallError(cause), output=spent
            )
        self.fallbacks += 1
        log.warning("%s: LLM failed (%s); using the extractive summarizer for this node", request.node_id, cause)
        out = await self._fallback.summarize(request)
        return dataclasses.replace(out, backend=FALLBACK_BACKEND, error=cause, **_spent(stats))

    async def _complete(
        self, request: SummaryRequest, prompt: Prompt, stats: CallStats, extra: dict[str, Any] | None = None
    ) -> str:
        return await self.client.complete(request.node_id, prompt, stats, priority=request.priority, extra=extra)


def _validate(cfg: LLMConfig) -> None:
    """Reject settings the backend cannot honour, with the option's name (bounds: the settings schema)."""

    if not cfg.base_url:
        raise ConfigError("the LLM backend needs --base-url (or OPENAI_BASE_URL)")
    validate_llm(cfg)
    if cfg.on_error not in ("fallback", "fail", "abort"):
        raise ConfigError(f"--on-error must be fallback, fail or abort (got {cfg.on_error!r})")


def _spent(stats: CallStats) -> dict[str, Any]:
    """What a failed node's requests cost, for its output row (an error's or a fallback's)."""
    return {
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "attempts": stats.attempts,
        "llm_calls": stats.sent,
        "latency_ms": stats.http_s * 1000.0,
    }
