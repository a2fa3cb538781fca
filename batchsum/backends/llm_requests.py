"""The chat requests one summary takes and what their answers make of it: the one way the LLM backend
builds them (:class:`~batchsum.backends.llm.LLMBackend` sends them) and ``batchsum plan`` builds them
too, to look them up in the response cache without sending anything (:class:`CachedAnswers`).

A summary is one request; with facets asked for, the first asks for JSON, and an answer that is not
valid JSON is asked again once for plain text (:meth:`RequestMaker.asks`). Light on purpose: no event
loop, no HTTP client, so ``plan`` imports none of them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.backends.budget import (
    count_message_tokens,
    fit_parts,
    middle_truncate,
    prompt_budget,
    trim_to_sentence_boundary,
)
from batchsum.backends.cache import ResponseCache
from batchsum.backends.llm_output import clean_output, parse_facets
from batchsum.backends.prompts import PromptSet
from batchsum.backends.units import cleaned_turns
from batchsum.cleanup import fix_spacing
from batchsum.readers.note_syntax import outside_code

if TYPE_CHECKING:
    from batchsum.config import LLMConfig
    from batchsum.model import SummaryRequest
    from batchsum.tokens import Tokenizer

log = logging.getLogger(__name__)

SOURCE_KINDS = frozenset({"brief", "standard", "chunk"})  # kinds whose text is the source, not summaries

ESTIMATE_SLACK = 16  # tokens added to template + input_tokens for merges across their boundary
TEMPLATE_MEMO = 256  # prompt templates whose size is remembered


class CallFailed(Exception):
    """The node cannot be produced by the LLM; ``on_error`` decides what happens."""


def as_sent(text: str, content_type: str, language: str | None = None) -> str:
    """A source text as the model is sent it, cleaned as the extractive summarizer cleans what it reads
    (:mod:`batchsum.cleanup`), none of what is said left out: a conversation's turns as the summarizer
    reads them (:func:`~batchsum.backends.units.cleaned_turns`), one a line as ``Speaker: text``, without
    transcript markup (``{disfmarker}``, known cues such as "[laughter]"), fillers, stutters or tokenizer
    spacing, but with the speakers' own brackets and inline code (a turn with nothing said but markup
    goes, label and all); other text without tokenizer spacing ("word ,", "we 're"), its code (inline,
    fenced, indented) as written. The same text gives the same prompt, so the response cache keeps
    answering it."""
    if content_type != "conversation":
        return outside_code(text, lambda part: "\n".join(fix_spacing(line, language) for line in part.split("\n")))
    turns = cleaned_turns(text, cues_only=True)
    return "\n".join(f"{who}: {said}" if who else said for who, said in turns if said.strip())


@dataclass
class Prompt:
    """One chat request's messages, its max_tokens and its prompt size in our tokens."""

    messages: list[dict[str, str]]
    max_tokens: int
    prompt_tokens: int


def request_params(cfg: LLMConfig, max_tokens: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parameters a request is sent with besides its model and messages (part of its cache key)."""
    return {"max_tokens": max_tokens, "temperature": cfg.temperature, **(extra or {})}


def configured_models(cfg: LLMConfig) -> list[str]:
    """``model`` then ``fallback_models``, deduplicated: the chain a run tries, when a model is given."""
    chain: list[str] = []
    for name in [cfg.model, *cfg.fallback_models]:
        if name and name not in chain:
            chain.append(name)
    return chain


@dataclass
class Ask:
    """One request of a summary: its prompt, and why it is what it is."""

    prompt: Prompt
    truncated_from: int | None = None  # the input's tokens when it was middle-truncated to fit the window
    rejected: str | None = None  # the answer this request asks again for (invalid facets JSON)


@dataclass
class Answer:
    """The summary the answers to a summary's requests make: its text (cut to its cap), its facets."""

    text: str  # "" when the model gave no usable text
    raw: str  # the last answer
    facets: dict[str, Any] | None = None
    trimmed: bool = False


# A summary's requests, one at a time: yields each request, is sent its answer, returns the summary.
Asks = Generator[Ask, str, Answer]


class RequestMaker:
    """The chat requests of summary requests, fitted into ``context_window``, for one configuration."""

    def __init__(self, cfg: LLMConfig, tokenizer: Tokenizer, prompts: PromptSet | None = None) -> None:
        self.cfg = cfg
        self.tokenizer = tokenizer
        self.prompts = prompts if prompts is not None else PromptSet.load(cfg.prompts_dir)
        self._template_sizes: dict[tuple[Any, ...], int] = {}

    def asks(self, request: SummaryRequest) -> Asks:
        """The requests of ``request`` and the summary their answers make: with facets, the JSON request
        and, when its answer is not valid facets JSON, one more for plain text. Raises
        :class:`CallFailed` when the input cannot be fitted into the context window."""
        facets: dict[str, Any] | None = None
        if request.facets:
            raw = yield self.ask(request, facets=True)
            facets = parse_facets(raw)
            if facets is None:
                raw = yield self.ask(request, facets=False, rejected=raw)
                text = clean_output(raw)
            else:
                text = clean_output(str(facets["summary"]))
        else:
            raw = yield self.ask(request, facets=False)
            text = clean_output(raw)
        if not text:
            return Answer("", raw)
        text, trimmed = trim_to_sentence_boundary(text, max(1, request.max_tokens), self.tokenizer)
        if facets is not None:
            facets["summary"] = text
        return Answer(text, raw, facets, trimmed)

    def ask(self, request: SummaryRequest, *, facets: bool, rejected: str | None = None) -> Ask:
        """The request of ``request`` (asking for facets JSON or for plain text), fitted into the window."""
        prompt, truncated_from = self.prepare(request, facets=facets)
        return Ask(prompt, truncated_from, rejected)

    def prepare(self, request: SummaryRequest, *, facets: bool) -> tuple[Prompt, int | None]:
        """Messages that fit ``context_window - max_tokens``, the max_tokens to send, the prompt size; and
        the input's tokens when it had to be middle-truncated (else None)."""
        cap = max(1, request.max_tokens)
        # JSON facets carry lists besides the summary; give them room, the summary is trimmed to cap anyway.
        send_max = cap + max(128, cap) if facets else cap
        send_max = max(1, min(send_max, self.cfg.context_window // 2))
        budget = prompt_budget(self.cfg.context_window, send_max)
        parts = list(request.parts)
        text = "\n\n".join(parts) if parts else request.text
        if request.kind in SOURCE_KINDS and not parts:
            text = as_sent(text, request.content_type, request.language)
        prior = request.prior_context

        def build(text_: str, parts_: list[str], prior_: str | None) -> list[dict[str, str]]:
            return self.prompts.build_messages(
                request, text=text_, parts=parts_, prior=prior_, max_tokens=cap, facets=facets
            )

        messages = build(text, parts, prior)
        # Counting a 3000-token chunk again costs more CPU than the rest of a call; the runner already
        # counted the input, so template + input_tokens is the size - trusted only when that count is
        # plausible (<= 6 chars/token) and the prompt is clearly inside the budget; close calls are counted.
        # A text cleaning shortened was counted before it was: its prompt is counted below, not estimated.
        if request.input_tokens * 6 >= len(text) and (parts or text == request.text):
            shape = (request.kind, request.content_type, facets, len(parts), prior)
            template = self._template_tokens(shape, lambda: build("", [""] * len(parts), prior))
            estimate = template + request.input_tokens + 2 * len(parts) + ESTIMATE_SLACK
            if estimate <= budget * 0.75:
                return Prompt(messages, send_max, estimate), None
        size = count_message_tokens(messages, self.tokenizer)
        if size <= budget:
            return Prompt(messages, send_max, size), None
        # Too big: measure the template alone, then shrink the previous summary and the input to fit.
        overhead = count_message_tokens(build("", [""] * len(parts), None), self.tokenizer)
        if prior:
            prior, _ = middle_truncate(prior, max(0, (budget - overhead) // 4), self.tokenizer)
        prior_cost = count_message_tokens(build("", [""] * len(parts), prior), self.tokenizer) - overhead
        room = budget - overhead - prior_cost
        if room <= 16:
            raise CallFailed(
                f"prompt template alone needs {overhead + prior_cost} tokens; "
                f"--context-window {self.cfg.context_window} leaves {budget} after the output budget"
            )
        for _ in range(6):
            if parts:
                fitted_parts, _ = fit_parts(parts, room, self.tokenizer)
                messages = build("\n\n".join(fitted_parts), fitted_parts, prior)
            else:
                fitted, _ = middle_truncate(text, room, self.tokenizer)
                messages = build(fitted, [], prior)
            size = count_message_tokens(messages, self.tokenizer)
            over = size - budget
            if over <= 0:
                break
            room -= over + 8
            if room <= 16:
                raise CallFailed(f"input cannot be fitted into --context-window {self.cfg.context_window}")
        else:
            raise CallFailed(f"input cannot be fitted into --context-window {self.cfg.context_window}")
        return Prompt(messages, send_max, size), self.tokenizer.count(text)

    def _template_tokens(self, shape: tuple[Any, ...], build: Callable[[], list[dict[str, str]]]) -> int:
        """Size of a prompt without its input, counted once per template shape: prompts of one shape
        differ only in numbers (chunk index, word budget), a few tokens that ``ESTIMATE_SLACK`` covers.
        Counting every call's template took 0.8 ms each at C=64 (tiktoken waits for the reading thread)."""
        size = self._template_sizes.get(shape)
        if size is None:
            if len(self._template_sizes) >= TEMPLATE_MEMO:
                self._template_sizes.clear()  # shapes with a previous final in them are one per file
            size = self._template_sizes[shape] = count_message_tokens(build(), self.tokenizer)
        return size


@dataclass
class Looked:
    """What the response cache does for one summary request of a run."""

    served: int = 0  # its requests the cache answers
    sent: int = 0  # its requests the run sends: 1 for the first the cache cannot answer, else 0
    answer: Answer | None = None  # the summary the cache's answers make; None when not all are cached


class CachedAnswers:
    """The answers a run's LLM backend would find in its response cache (``cache_dir``; None: the cache
    is off) for summary requests, read without sending anything (``batchsum plan``): each request built
    as the backend builds it (:class:`RequestMaker`) and looked up under every model of the chain, as
    the backend does. Without a model given (the server's first is asked for), nothing is found."""

    def __init__(
        self, cfg: LLMConfig, tokenizer: Tokenizer, cache_dir: Path | None, prompts: PromptSet | None = None
    ) -> None:
        self.cfg = cfg
        self.maker = RequestMaker(cfg, tokenizer, prompts)
        # No cache folder yet (a first night): nothing to find, no lookup for each request.
        self.cache = ResponseCache(cache_dir) if cache_dir is not None and cfg.cache and cache_dir.is_dir() else None
        self.models = configured_models(cfg)

    def look(self, request: SummaryRequest) -> Looked:
        """What the cache answers of ``request``'s requests, in the run's order. A facets answer that is
        not valid JSON is asked again for plain text: that request is looked up too. A request the cache
        cannot answer is sent (``sent`` 1), and what the run asks after it (a retry, if its answer turns
        out not to be JSON) cannot be known: it is left out."""
        if self.cache is None or not self.models:
            return Looked(sent=1)
        looked = Looked()
        steps = self.maker.asks(request)
        try:
            ask = next(steps)
            while True:
                params = request_params(self.cfg, ask.prompt.max_tokens)
                hit = self.cache.lookup(self.models, ask.prompt.messages, params)
                if hit is None:
                    looked.sent = 1
                    return looked
                looked.served += 1
                ask = steps.send(hit.content)
        except StopIteration as stop:
            answer: Answer = stop.value
            # An empty answer: the run falls back (``on_error``) without another request; its text is unknown.
            looked.answer = answer if answer.text else None
        except CallFailed:
            pass  # the input cannot be fitted: the run sends nothing for it and falls back
        return looked
