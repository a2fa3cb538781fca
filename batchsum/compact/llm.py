"""LLM mode of compaction: one structured-JSON request per compaction, validated, with a safe fallback.

The model sees the replaced messages as a canonical transcript in which tool results are already
reduced to their rule-based one-liners (tool output is noise to a summarizer, and it is most of
the tokens), trimmed from the oldest side to fit. Its answer must be one JSON object with
``summary``, ``key_points``, ``decisions``, ``action_items``, ``unresolved`` and ``entities``.

Requests go through the one LLM client (:class:`batchsum.backends.llm_client.LLMClient`), so failures
follow the run's rules: transport errors (connection, timeout, 408/409/425/429, 5xx, a garbled body)
are retried with exponential backoff honouring ``Retry-After``; anything else - other 4xx, output
that is not valid JSON for the schema - is not retried. The caller then keeps the rule-based record,
so nothing is lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from batchsum.backends.budget import count_message_tokens, prompt_budget, trim_to_sentence_boundary
from batchsum.backends.llm_client import CallFailed, CallStats, ChatTransport, LLMClient, Prompt
from batchsum.backends.llm_output import clean_output, parse_facets, sanitize_for_log
from batchsum.compact.config import CompactConfig
from batchsum.compact.extractors import Turn, format_summary, summarize_tool_result
from batchsum.compact.record import MAX_CONTEXT_ITEMS, SummaryRecord
from batchsum.config import LLMConfig
from batchsum.errors import ConfigError, LLMSummaryError, LLMUnavailable
from batchsum.event_loop import off_the_loop
from batchsum.facets import ActionItem
from batchsum.secrets import redact, redact_by_default
from batchsum.tokens import Tokenizer

log = logging.getLogger(__name__)

SYSTEM_PROMPT = """You are an expert conversation summarizer. \
Produce a STRICT JSON object ONLY matching the provided schema. No markdown, no commentary.
Preserve:
- Technical identifiers (filenames, class names, function signatures) verbatim.
- Concrete numbers, dates, versions.
If an element is absent, use an empty array instead of fabricating.
Do NOT add information not present in the source."""

SCHEMA_PROMPT = """Summarize the conversation below so it can replace it in the context window of an ongoing session.
Return ONLY one JSON object with exactly these keys:
{"summary": "narrative paragraph, at most {max_words} words: \
what the task is, what was done, what failed, the current state",
 "key_points": ["short highlight", "..."],
 "decisions": ["decision that was made", "..."],
 "action_items": [{"owner": "who or null", "task": "what is still to do", "due": "when or null"}],
 "unresolved": ["open question", "..."],
 "entities": ["files, classes, functions, commands and APIs, verbatim"]}"""

MAX_ERROR_CHARS = 300
MIN_TRANSCRIPT_TOKENS = 32  # of the conversation in the request: less is too little to summarize


def _request(
    words: int, messages: int, tokens: int, depth: int, omitted: int, body: Sequence[str]
) -> list[dict[str, str]]:
    """The chat request: system prompt, then schema (``words`` for the narrative) + meta header + transcript."""
    instructions = SCHEMA_PROMPT.replace("{max_words}", str(words))
    meta = f"<meta total_messages={messages} total_tokens={tokens} depth={depth} omitted_oldest={omitted} />"
    user = f"{instructions}\n\n{meta}\n\nConversation:\n" + "\n\n".join(body)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _words(cap: int) -> int:
    return max(20, int(cap * 0.4 * 0.75))  # the narrative's words: 40% of the budget, 0.75 words a token


def reply_tokens(cap: int, window: int) -> int:
    """The reply a request reserves for a summary of ``cap`` tokens in a ``window``-token model: the summary
    and as much again for the JSON around it (at least 128), at most half the window. :meth:`LLMSummarizer.improve`
    asks for it and :func:`min_context_window` counts with it, so the minimum is the request's own."""
    return max(64, min(cap + max(128, cap), window // 2))


def min_context_window(tokenizer: Tokenizer, cap: int = CompactConfig.max_summary_tokens, largest: int = 10**11) -> int:
    """The smallest window of the summarizing model in which :meth:`LLMSummarizer.build_messages` accepts a
    request for a summary of at most ``cap`` tokens whose figures (messages, tokens, depth) are at most ``largest``.

    The window less the reply's reservation (:func:`reply_tokens`) and the tokenizer margin must hold the request's
    fixed part and ``MIN_TRANSCRIPT_TOKENS`` of transcript. The fixed part is counted with ``largest`` for every
    figure, an upper bound of the real request's (the defaults: any session, the default summary budget).
    """
    need = count_message_tokens(_request(_words(cap), largest, largest, largest, largest, []), tokenizer)
    need += MIN_TRANSCRIPT_TOKENS
    window = need
    # The prompt's share of the window never shrinks as the window grows: the first window that holds it is least.
    while prompt_budget(window, reply_tokens(cap, window)) < need:
        window += 1
    return window


@dataclass
class LLMSummarizer:
    """An OpenAI-compatible chat endpoint used for compaction summaries."""

    base_url: str
    model: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_attempts: int = 2  # transport errors: the first try plus one retry
    context_window: int = 8192  # of the summarizing model
    temperature: float = 0.2
    retry_initial: float = 0.25
    retry_max: float = 8.0
    transport: ChatTransport | None = None  # how requests travel (default: HTTP through aiohttp)
    requests_sent: int = field(default=0, init=False)
    retries: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not self.base_url:
            raise ConfigError("LLM compaction needs --base-url")
        if self.max_attempts < 1:
            raise ConfigError(f"--max-attempts must be at least 1 (got {self.max_attempts})")

    # ---- prompt --------------------------------------------------------------------------------
    def _transcript(self, turns: Sequence[Turn], config: CompactConfig, tokenizer: Tokenizer) -> list[str]:
        lines: list[str] = []
        for t in turns:
            m = t.message
            if t.kind == "tool_result":
                s = summarize_tool_result(t, tokenizer, excerpt_tokens=config.excerpt_tokens)
                lines.append(f"[tool] {format_summary(s)}")
            elif t.kind == "summary":
                lines.append(f"[previous summary]\n{m.content}")
            else:
                text = m.content.strip()
                if t.kind == "assistant" and m.tool_calls and not text:
                    text = "; ".join(f"calls {c.name}({c.arguments[:200]})" for c in m.tool_calls)
                lines.append(f"[{m.role}] {text}")
        return lines

    def build_messages(
        self,
        turns: Sequence[Turn],
        *,
        cap: int,
        max_tokens: int,
        config: CompactConfig,
        tokenizer: Tokenizer,
        depth: int = 0,
    ) -> list[dict[str, str]]:
        """The chat request: system prompt, then schema + meta header + transcript (oldest trimmed)."""
        lines = self._transcript(turns, config, tokenizer)
        # The run's rule and code (batchsum.secrets): the transcript is the only source text sent.
        on = config.redact_secrets if config.redact_secrets is not None else redact_by_default(self.base_url, None)
        if on:
            lines = [redact(line)[0] for line in lines]
        total_tokens = sum(tokenizer.count(t.message.content) for t in turns)
        words = _words(cap)

        def build(body: list[str], omitted: int) -> list[dict[str, str]]:
            return _request(words, len(turns), total_tokens, depth, omitted, body)

        budget = min(config.llm_max_transcript_tokens, prompt_budget(self.context_window, max_tokens))
        overhead = count_message_tokens(build([], 0), tokenizer)
        room = budget - overhead
        if room < MIN_TRANSCRIPT_TOKENS:
            raise LLMSummaryError(
                f"context window {self.context_window} leaves no room for the transcript "
                f"(LLM compaction needs at least {min_context_window(tokenizer, cap)} tokens)"
            )
        costs = [tokenizer.count(line) + 1 for line in lines]
        first = 0
        total = sum(costs)
        while first < len(lines) - 1 and total > room:
            total -= costs[first]
            first += 1
        body = lines[first:]
        if total > room and body:  # one huge line left: keep its end, where the latest state is
            ids = tokenizer.encode(body[-1])
            body = [tokenizer.decode(ids[-max(1, room - 8) :])]
        return build(body, first)

    # ---- call ----------------------------------------------------------------------------------
    def _config(self) -> LLMConfig:
        # One request at a time and no pacing: compaction sends one request per compaction.
        return LLMConfig(
            base_url=self.base_url,
            api_key=self.api_key,
            model=self.model,
            timeout=self.timeout,
            max_attempts=self.max_attempts,
            rpm=None,
            tpm=None,
            concurrency=1,
            cache=False,
            temperature=self.temperature,
        )

    def complete(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        """The raw reply text, through the shared LLM client: transport errors retried up to
        ``max_attempts``, others raised at once (as :class:`LLMSummaryError`)."""
        # Called from async code too (an agent's own loop), where asyncio.run is refused.
        return off_the_loop(lambda: asyncio.run(self._complete(messages, max_tokens)))

    async def _complete(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        # quiet_stops: a refused connection is the result's llm_error, which the caller reports (once).
        client = LLMClient(
            self._config(), retry_initial=self.retry_initial, retry_max=self.retry_max, transport=self.transport,
            quiet_stops=True,
        )  # fmt: skip
        try:
            return await client.complete("compaction", Prompt(messages, max_tokens, 0), CallStats())
        except (CallFailed, LLMUnavailable, ConfigError) as exc:
            raise LLMSummaryError(sanitize_for_log(str(exc), client.secrets, limit=MAX_ERROR_CHARS)) from None
        finally:
            self.requests_sent += client.requests_sent
            self.retries += client.retries
            self.model = self.model or client.model
            await client.aclose()

    # ---- the record ----------------------------------------------------------------------------
    def improve(
        self, record: SummaryRecord, turns: Sequence[Turn], *, cap: int, config: CompactConfig, tokenizer: Tokenizer
    ) -> SummaryRecord:
        """``record`` with the model's narrative and facets; files, commands and errors stay rule-based.

        Raises LLMSummaryError when the call fails or the reply is not valid JSON for the schema.
        """
        send_max = reply_tokens(cap, self.context_window)
        messages = self.build_messages(
            turns, cap=cap, max_tokens=send_max, config=config, tokenizer=tokenizer, depth=record.depth
        )
        raw = self.complete(messages, send_max)
        facets = parse_facets(raw)
        if facets is None:
            raise LLMSummaryError(f"reply is not valid summary JSON; it began: {sanitize_for_log(raw, limit=200)!r}")
        narrative, _ = trim_to_sentence_boundary(
            " ".join(clean_output(str(facets["summary"])).split()), max(16, int(cap * 0.4)), tokenizer
        )
        if not narrative:
            raise LLMSummaryError("reply has an empty summary")
        ctx = record.context
        llm_actions = [
            ActionItem(str(a["task"]), a.get("owner") or None, a.get("due") or None) for a in facets["action_items"]
        ]
        entities = list(ctx.domain_entities)
        entities += [e for e in facets["entities"] if e not in entities]
        context = replace(
            ctx,
            decisions=list(facets["decisions"]) or ctx.decisions,
            action_items=llm_actions or ctx.action_items,
            unresolved=list(facets["unresolved"]) or ctx.unresolved,
            domain_entities=entities[: len(ctx.domain_entities) + MAX_CONTEXT_ITEMS],
            source="llm",
        )
        key_points = [*record.key_points, *facets["key_points"]][-MAX_CONTEXT_ITEMS:]
        return replace(record, summary=narrative, key_points=key_points, context=context, mode="llm")


def as_summarizer(backend: Any) -> LLMSummarizer:
    """An :class:`LLMSummarizer` from itself, an ``LLMConfig`` or the run's ``LLMBackend``."""
    if isinstance(backend, LLMSummarizer):
        return backend
    cfg = getattr(backend, "cfg", backend)
    if isinstance(cfg, LLMConfig):
        if not cfg.base_url:
            raise ConfigError("LLM compaction needs --base-url")
        return LLMSummarizer(
            base_url=cfg.base_url,
            model=cfg.model,
            api_key=cfg.api_key,
            timeout=cfg.timeout,
            max_attempts=cfg.max_attempts,
            context_window=cfg.context_window,
            temperature=cfg.temperature,
        )
    raise ConfigError(f"backend must be an LLMSummarizer, LLMConfig or LLMBackend (got {type(backend).__name__})")
