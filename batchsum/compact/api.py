"""``compact()``: replace the old part of a conversation with one summary message, keep the tail verbatim.

The result is ``[leading system prompt] + [summary system message] + tail``. The summary is built
by rules (tool-result extractors, the extractive summarizer with the conversation profile, and
rule-based facets), or by an LLM when a backend is given, falling back to the rules when the
model fails. Its budget is ``min(max_summary_tokens, max(128, dropped_tokens // 2))`` and never
more than the replaced messages cost, so every compaction reduces tokens; when that is impossible
the input comes back unchanged with the reason. Nothing here recurses.

A chained compaction (the conversation already starts with one of our summary messages, or
``history`` is given) integrates the previous summary and goes one level deeper; a compaction
that would pass ``max_summary_chain_depth`` starts a fresh chain at depth 0 from ``originals``
(the full conversation) when the caller still has it, else from the previous summary.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from batchsum.backends.budget import trim_to_sentence_boundary
from batchsum.backends.extractive import summarize_text
from batchsum.compact.config import DEFAULT_CONFIG, MIN_SUMMARY_TOKENS, CompactConfig
from batchsum.compact.entities import session_entities
from batchsum.compact.extractors import (
    SUMMARY_MARK,
    Turn,
    classify_turns,
    command_line,
    format_summary,
    most_specific,
    summarize_tool_result,
    touched_paths,
    turn_prose,
    without_standing_orders,
    without_viewer_lines,
)
from batchsum.compact.messages import MESSAGE_OVERHEAD, Message, as_message, message_ids, message_tokens, to_dict
from batchsum.compact.record import (
    MAX_CONTEXT_ITEMS,
    SummaryContext,
    SummaryRecord,
    new_record_id,
    now_ms,
    parse_summary_header,
    parse_summary_message,
    render_summary_message,
)
from batchsum.compact.trigger import TriggerDecision, TriggerState, should_compact
from batchsum.config import LLMConfig
from batchsum.errors import ConfigError
from batchsum.facets import ActionItem, ExtractedFacets, extract_facets
from batchsum.options import count, number
from batchsum.tokens import Tokenizer, get_tokenizer

log = logging.getLogger(__name__)

NARRATIVE_SHARE = 0.4  # of the summary budget; the rest goes to facets and key points
MAX_KEY_POINTS = MAX_CONTEXT_ITEMS
MAX_FILES_AND_COMMANDS = 300  # files and commands are what a coding session needs back; cap only runaways


@dataclass
class CompactionResult:
    """What a compaction produced, or why it left the conversation unchanged."""

    messages: list[dict[str, Any]]
    record: SummaryRecord | None
    tokens_before: int
    tokens_after: int
    compacted: bool
    reason: str
    mode: str = "rule-based"  # "rule-based", "llm", or "rule-based (LLM failed)"
    dropped_messages: int = 0
    preserved_messages: int = 0
    notes: list[str] = field(default_factory=list)
    llm_error: str | None = None

    @property
    def summary(self) -> str:
        """The summary message's text ("" when nothing was compacted)."""
        if not self.compacted or self.record is None:
            return ""
        for m in self.messages:
            if m.get("role") == "system" and str(m.get("content", "")).startswith(SUMMARY_MARK):
                return str(m["content"])
        return ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {
            "compacted": self.compacted,
            "reason": self.reason,
            "mode": self.mode,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "dropped_messages": self.dropped_messages,
            "preserved_messages": self.preserved_messages,
            "summary": self.summary,
            "record": self.record.to_dict() if self.record else None,
            "messages": self.messages,
            "notes": list(self.notes),
            "llm_error": self.llm_error,
        }


@dataclass
class _Parent:
    """The summary a chained compaction builds on."""

    id: str
    depth: int
    narrative: str
    key_points: list[str]
    context: SummaryContext
    task: str = ""


def _dedupe(items: Sequence[str], limit: int | None = None) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        item = item.strip()
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out[:limit]


def _full_forms(commands: Sequence[str]) -> list[str]:
    """``commands`` without a summary message's clipped display form ("pytest tests/test_x.py -k lo…") of a
    command also listed whole: read back from the message, it is the same command, not another."""
    return [
        c for c in commands if not (c.endswith("…") and any(o != c and o.startswith(c[:-1].rstrip()) for o in commands))
    ]


# A speaker label a narrative's sentences carry ("Assistant: ..."): on one line, the summarizer would read
# every label after the first as words of the first speaker's turn, and label it again.
_NARRATIVE_LABEL = re.compile(r"\s+(?=(?:User|Assistant|System|Tool|Function|Developer): )")


def _find_parent(summary_turn: Turn | None, history: Sequence[SummaryRecord] | None) -> _Parent | None:
    last = history[-1] if history else None
    header = parse_summary_header(summary_turn.message.content) if summary_turn else None
    if last is not None and (header is None or header["id"] == last.id):
        return _Parent(last.id, last.depth, last.summary, list(last.key_points), last.context, last.task)
    if header is not None and summary_turn is not None:
        narrative, key_points, ctx, task = parse_summary_message(summary_turn.message.content)
        return _Parent(header["id"], header["depth"], narrative, key_points, ctx, task)
    return None


@dataclass
class _Material:
    """What the rules gathered from the messages to replace."""

    conversation: list[str] = field(default_factory=list)  # "User: ..." lines for the extractive summarizer
    speaker_turns: list[tuple[str | None, str]] = field(default_factory=list)
    key_points: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    prior_text: str = ""  # a previous summary read as plain text (chain restart without originals)
    task: str = ""  # the first user turn: what the session is about
    agentic: bool = False  # tool results present: a coding/agent session


def _gather(turns: Sequence[Turn], cfg: CompactConfig, tok: Tokenizer) -> _Material:
    mat = _Material()
    task_pending = False  # the task turn held only a demonstration or instructions
    for t in turns:
        m = t.message
        if m.role not in mat.roles and t.kind != "summary":
            mat.roles.append(m.role)
        if t.kind == "summary":
            narrative, key_points, ctx, task = parse_summary_message(m.content)
            mat.prior_text = narrative
            mat.task = mat.task or task
            mat.key_points.extend(key_points)
            mat.files.extend(ctx.files_touched)
            mat.commands.extend(ctx.commands_run)
            mat.errors.extend(ctx.errors)
            continue
        if t.kind == "tool_result":
            mat.agentic = True
            s = summarize_tool_result(t, tok, keep_errors=cfg.preserve_error_details, excerpt_tokens=cfg.excerpt_tokens)
            mat.key_points.append(format_summary(s))
            mat.files.extend(s.files)
            mat.errors.extend(s.errors)
            if t.tool_name and t.tool_name not in mat.tools:
                mat.tools.append(t.tool_name)
            continue
        if t.kind == "assistant":
            if t.command:
                mat.commands.append(command_line(t.command))
                mat.files.extend(touched_paths(t.command))
            for call in m.tool_calls:
                if call.name not in mat.tools:
                    mat.tools.append(call.name)
        # A user turn's worked example of another task and its standing instructions say nothing of this
        # session: "Task: Here is a demonstration of how to ..." hid the real task.
        content = m.content if t.kind == "assistant" else without_standing_orders(m.content)
        prose = turn_prose(content)
        # The task is the first user turn with words of its own (after a demonstration-only turn, the next).
        if (t.kind == "task" or (t.kind == "user" and task_pending)) and not mat.task:
            task_pending = not prose
            if prose:
                mat.task = prose
                mat.speaker_turns.append(("User", without_viewer_lines(content)))
            continue
        if prose:
            label = {"task": "User", "user": "User", "assistant": "Assistant"}.get(t.kind, m.role.capitalize())
            mat.conversation.append(f"{label}: {prose}")
            mat.speaker_turns.append((label, without_viewer_lines(content)))
    return mat


def _head(text: str, budget: int, tok: Tokenizer) -> str:
    """The start of ``text`` within ``budget`` tokens, cut at a sentence or word end."""
    head, cut = trim_to_sentence_boundary(text, budget, tok)
    return head if not cut or head.endswith("…") else head + " …"


def _narrative(text: str, prior: str, budget: int, tok: Tokenizer) -> str:
    if budget <= 0:
        return ""
    if not text.strip():  # nothing new to say: the previous narrative, within the budget
        return trim_to_sentence_boundary(prior, budget, tok)[0] if prior.strip() else ""
    kind = "rolling" if prior else "standard"
    out = summarize_text(
        text,
        target_tokens=budget,
        max_tokens=budget,
        kind=kind,  # type: ignore[arg-type]
        content_type="conversation",
        tokenizer=tok,
        prior_context=_NARRATIVE_LABEL.sub("\n", prior) or None,  # each labelled turn on its own line again
    )
    return " ".join(out.split())


def _dropped_facets(mat: _Material, tail_mat: _Material) -> ExtractedFacets:
    """The facets of the replaced turns; in an agent session, of its action items only those a batch run's
    digest of the whole session keeps (agent_transcript): the steps an agent narrates are taken as it goes on,
    so only the session's last three may be open, and none once it ends by submitting, as the verbatim tail
    may show. One rule for both: the replaced part alone never sees the session go on or end."""
    agentic = mat.agentic or tail_mat.agentic
    facets = extract_facets(mat.speaker_turns, agent=agentic)
    if agentic and facets.action_items:
        # Every item the rule keeps, not the few best: which of them to show is the replaced part's pick.
        turns = [*mat.speaker_turns, *tail_mat.speaker_turns]
        whole = extract_facets(turns, agent=True, max_items=sys.maxsize)
        kept = {a.task for a in whole.action_items}
        facets.action_items = [a for a in facets.action_items if a.task in kept]
    return facets


def build_rule_record(
    dropped: Sequence[Turn],
    tail: Sequence[Turn],
    *,
    parent: _Parent | None,
    depth: int,
    parent_id: str | None,
    ids: Sequence[str],
    cap: int,
    cfg: CompactConfig,
    tok: Tokenizer,
) -> SummaryRecord:
    """The rule-based record of ``dropped`` (entities of ``tail`` included, so the record lists every
    file and command of the conversation so far)."""
    mat = _gather(dropped, cfg, tok)
    tail_mat = _gather(tail, cfg, tok)
    prior_narrative = parent.narrative if parent else mat.prior_text
    budget = max(16, int(cap * NARRATIVE_SHARE))
    # The opening request says what the session is for: its head is kept (and carried along the
    # chain), the rest of the conversation is summarized.
    task = parent.task if parent and parent.task else ""
    if not task and mat.task:
        task = _head(mat.task, max(12, budget // 3), tok)
        if not mat.conversation:
            mat.conversation.append(f"User: {mat.task}")
    if task:
        budget = max(16, budget - tok.count(task) - 3)
    narrative = _narrative("\n".join(mat.conversation), prior_narrative, budget, tok)
    facets = _dropped_facets(mat, tail_mat)
    pctx = parent.context if parent else SummaryContext()
    # A file once, by its fullest path ("chall.py" beside "/ctf/chall.py"), as a batch run lists it.
    files = _dedupe(most_specific(_dedupe([*pctx.files_touched, *mat.files, *tail_mat.files])), MAX_FILES_AND_COMMANDS)
    commands = _dedupe(_full_forms([*pctx.commands_run, *mat.commands, *tail_mat.commands]), MAX_FILES_AND_COMMANDS)
    entities = _dedupe([*files, *commands], MAX_FILES_AND_COMMANDS * 2)
    # The others as a batch run's digest lists them (compact.entities): no file twice, no folder of a file
    # listed, no command's name, no word of a language.
    named = session_entities([*files, *pctx.domain_entities, *facets.entities], commands)
    others = _dedupe([e for e in named if e not in entities], MAX_CONTEXT_ITEMS)
    decisions = _dedupe([*pctx.decisions, *facets.decisions], MAX_CONTEXT_ITEMS)
    actions: list[ActionItem] = []
    for a in [*pctx.action_items, *facets.action_items]:
        if all(a.task != b.task for b in actions):
            actions.append(a)
    participants = _dedupe([*pctx.participants, *mat.roles, *mat.tools], MAX_CONTEXT_ITEMS)
    key_points = [*(parent.key_points if parent else []), *mat.key_points]
    context = SummaryContext(
        participants=participants,
        decisions=decisions,
        action_items=actions[-MAX_CONTEXT_ITEMS:],
        unresolved=_dedupe([*pctx.unresolved, *facets.unresolved], MAX_CONTEXT_ITEMS),
        domain_entities=entities + others,
        files_touched=files,
        commands_run=commands,
        errors=_dedupe([*pctx.errors, *mat.errors], 20),
        source="extracted",
    )
    return SummaryRecord(
        id=new_record_id(parent_id, depth, ids),
        timestamp=now_ms(),
        depth=depth,
        parent_id=parent_id,
        summary=narrative,
        key_points=key_points[-MAX_KEY_POINTS:],
        context=context,
        original_message_ids=list(ids),
        mode="rule-based",
        task=task,
    )


def _unchanged(raw: list[dict[str, Any]], tokens: int, reason: str) -> CompactionResult:
    return CompactionResult(raw, None, tokens, tokens, False, reason, mode="none", preserved_messages=len(raw))


def _tail_start(msgs: Sequence[Message], start: int, keep: int) -> int:
    """Index where the verbatim tail begins (``len(msgs)`` when ``keep`` is 0: no tail); a tool result is never
    separated from its call."""
    cut = max(start, len(msgs) - keep)
    while start < cut < len(msgs) and msgs[cut].role == "tool" and msgs[cut].tool_call_id:
        cut -= 1  # pull the assistant turn that made the call into the tail with its results
    return cut


def _restart_source(
    originals: Sequence[Mapping[str, Any] | Message] | None, tail: Sequence[Message]
) -> list[Message] | None:
    """The original messages before the tail, when ``originals`` still holds them."""
    if not originals:
        return None
    orig = [as_message(m, f"original message {i + 1}") for i, m in enumerate(originals)]
    n = len(tail)
    if n and len(orig) > n:
        head, end = orig[: len(orig) - n], orig[len(orig) - n :]
        if [(m.role, m.content) for m in end] == [(m.role, m.content) for m in tail]:
            return head
    keys = {(m.role, m.content) for m in tail}
    head = [m for m in orig if (m.role, m.content) not in keys and not m.content.startswith(SUMMARY_MARK)]
    return head or None


def _with_options(config: CompactConfig, **given: Any) -> CompactConfig:
    """``config`` with the command's options that were given (a copy; the caller's config is left as it is)."""
    given = {name: value for name, value in given.items() if value is not None}
    for name, value in given.items():
        kind = bool if name == "abort_on_failure" else int
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(f"{name}={value!r}: give {'True or False' if kind is bool else 'a whole number'}")
    return dataclasses.replace(config, **given) if given else config


def _llm_config(
    context_window: int,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    timeout: float | None,
    max_attempts: int | None,
    least: int,
) -> LLMConfig:
    """The LLM backend of ``base_url``, the command's and the library's one: the session's window, the only one
    of that model we know, is the one it is asked to fit (below ``least``, the window its request needs: a
    ConfigError naming it, before any request); ``timeout`` and ``max_attempts`` None keep the defaults."""
    if not base_url:
        raise ConfigError("a model or an API key needs a server: base_url= (--base-url or OPENAI_BASE_URL)")
    if context_window < least:
        raise ConfigError(
            f"context_window={context_window} is too small for an LLM summary: the request alone needs a window "
            f"of at least {least} tokens; give the model's window, or no base_url for the rule-based summary"
        )
    llm = LLMConfig(base_url=base_url, model=model, api_key=api_key, context_window=context_window)
    timeout, max_attempts = _request_limits(timeout, max_attempts)
    if timeout is not None:
        llm.timeout = timeout
    if max_attempts is not None:
        llm.max_attempts = max_attempts
    return llm


def _request_limits(timeout: Any, max_attempts: Any) -> tuple[float | None, int | None]:
    """``timeout`` (finite seconds above 0) and ``max_attempts`` (a whole number above 0) checked as the
    command's options are; None keeps the default. Checked even with no server to use them: a bad value is
    a mistake in the call either way."""
    if timeout is not None and number("timeout", timeout) <= 0:
        raise ConfigError(f"timeout={timeout!r}: give a number of seconds above 0")
    return (None if timeout is None else float(timeout)), (
        None if max_attempts is None else count("max_attempts", max_attempts)
    )


def compact(
    messages: Sequence[Mapping[str, Any] | Message],
    *,
    context_window: int,
    config: CompactConfig | None = None,
    backend: Any = None,
    history: Sequence[SummaryRecord] | SummaryRecord | None = None,
    originals: Sequence[Mapping[str, Any] | Message] | None = None,
    tokenizer: Tokenizer | None = None,
    preserve_recent: int | None = None,
    max_summary_tokens: int | None = None,
    abort_on_failure: bool | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    max_attempts: int | None = None,
) -> CompactionResult:
    """Compact ``messages`` into one summary message plus the verbatim tail.

    ``backend``: an LLM for the summary (a :class:`batchsum.compact.llm.LLMSummarizer`, an
    ``LLMConfig`` or an ``LLMBackend``); None uses the rules. ``history``: the summary records so
    far, oldest first (the last is the parent). ``originals``: the full conversation, used to start a
    fresh chain at the depth cap. The command's options work as keywords too: ``preserve_recent``,
    ``max_summary_tokens`` and ``abort_on_failure`` set those fields of ``config``, and ``base_url``
    (with ``model``, ``api_key``; ``timeout``, ``max_attempts`` per request) is the LLM backend when none is
    given. Raises InputError for a message that is not a chat message, ConfigError for a bad setting.
    """
    cfg = _with_options(
        config or DEFAULT_CONFIG,
        preserve_recent=preserve_recent,
        max_summary_tokens=max_summary_tokens,
        abort_on_failure=abort_on_failure,
    )
    _request_limits(timeout, max_attempts)
    tok = tokenizer or get_tokenizer(cfg.encoding)
    cfg.validate()
    if isinstance(history, SummaryRecord):
        history = [history]
    if context_window < 64:
        raise ConfigError(f"context_window must be at least 64 tokens (got {context_window})")
    msgs = [as_message(m, f"message {i + 1}") for i, m in enumerate(messages)]
    raw = [dict(m) if isinstance(m, Mapping) else to_dict(m) for m in messages]
    costs = [message_tokens(m, tok) for m in msgs]
    tokens_before = sum(costs) + 3
    if backend is None and (base_url or model or api_key):
        from batchsum.compact.llm import min_context_window  # lazy, as in _improve_with_llm

        # The request's figures (messages, tokens, depth) are at most the session's tokens, or its originals'.
        orig = sum(message_tokens(as_message(m, "original message"), tok) for m in originals or ())
        least = min_context_window(tok, cfg.max_summary_tokens, max(tokens_before, orig, cfg.max_summary_chain_depth))
        backend = _llm_config(context_window, base_url, model, api_key, timeout, max_attempts, least)
    start = 0
    if cfg.keep_system:
        while start < len(msgs) and msgs[start].role == "system" and not msgs[start].content.startswith(SUMMARY_MARK):
            start += 1
    cut = _tail_start(msgs, start, cfg.preserve_recent)
    if cut <= start and start < len(msgs) and msgs[start].content.startswith(SUMMARY_MARK):
        cut = start + 1  # an earlier summary is never "recent": it can always be folded into a new one
    if cut <= start:
        kept = _unchanged(
            raw,
            tokens_before,
            f"nothing to compact: {len(msgs) - start} messages, preserve_recent {cfg.preserve_recent}",
        )
        return _said_if_over(kept, context_window, costs)
    result = _compact_at(msgs, raw, costs, tokens_before, start, cut, cfg, tok, backend, history, originals)
    if result.compacted and result.tokens_after > context_window:
        # Even compacted, the conversation overflows (a huge tail): keep a shorter tail, once.
        budget = context_window * cfg.trigger_token_ratio - (result.tokens_after - sum(costs[cut:]))
        keep = len(msgs) - cut
        while keep > cfg.min_preserve_recent and sum(costs[len(msgs) - keep :]) > budget:
            keep -= 1
        new_cut = _tail_start(msgs, start, keep)
        if new_cut > cut:
            retry = _compact_at(msgs, raw, costs, tokens_before, start, new_cut, cfg, tok, backend, history, originals)
            if retry.compacted:
                retry.notes.append(
                    f"tail shortened from {len(msgs) - cut} to {len(msgs) - new_cut} messages: "
                    f"the result still exceeded the {context_window}-token context window"
                )
                result = retry
    return _said_if_over(result, context_window, costs)


def _said_if_over(result: CompactionResult, context_window: int, costs: list[int]) -> CompactionResult:
    """``result`` with a note when it still exceeds ``context_window``: said whatever the tail's length, compacted
    or not, as a caller must not hand a model more than it can take unawares (``costs``: each message's tokens)."""
    if result.tokens_after > context_window:
        kept = sum(costs[len(costs) - result.preserved_messages :]) if result.preserved_messages else 0
        # Each part by its own cost, so the note names the one to cut (the summary, the tail or the system prompt).
        summary = result.record.token_estimate if result.compacted and result.record is not None else 0
        parts = [f"the summary costs {summary} tokens"] if summary else []
        parts.append(f"the {result.preserved_messages} messages kept verbatim cost {kept} tokens")
        front = result.tokens_after - 3 - summary - kept  # 3: the reply priming counted once per request
        if front > 0:
            parts.append(f"the system prompt kept in front costs {front} tokens")
        result.notes.append(
            f"the result ({result.tokens_after} tokens) exceeds the {context_window}-token context window: "
            + ", ".join(parts)
        )
    return result


def _improve_with_llm(
    record: SummaryRecord,
    backend: Any,
    dropped_turns: list[Turn],
    cap: int,
    cfg: CompactConfig,
    tok: Tokenizer,
    notes: list[str],
) -> tuple[SummaryRecord, str, str | None]:
    """The LLM's version of the rule-based record, or the record itself when the LLM fails: (record, mode, error)."""
    # Lazy: the LLM path loads pydantic and the HTTP client, which rule-based compaction never needs.
    from batchsum.compact.llm import LLMSummaryError, as_summarizer

    try:
        improved = as_summarizer(backend).improve(record, dropped_turns, cap=cap, config=cfg, tokenizer=tok)
    except LLMSummaryError as exc:
        if cfg.abort_on_failure:
            raise
        notes.append(f"LLM summary failed ({exc}); the rule-based summary was used")
        # Reported once, by the caller, from the result (llm_error, notes, mode), not also here.
        log.info("LLM compaction failed (%s); using the rule-based summary", exc)
        return record, "rule-based (LLM failed)", str(exc)
    return improved, "llm", None


def _compact_at(
    msgs: list[Message],
    raw: list[dict[str, Any]],
    costs: list[int],
    tokens_before: int,
    start: int,
    cut: int,
    cfg: CompactConfig,
    tok: Tokenizer,
    backend: Any,
    history: Sequence[SummaryRecord] | None,
    originals: Sequence[Mapping[str, Any] | Message] | None,
) -> CompactionResult:
    turns = classify_turns(msgs)
    dropped_turns = turns[start:cut]
    tail_turns = turns[cut:]
    dropped_tokens = sum(costs[start:cut])
    summary_turn = next((t for t in dropped_turns if t.kind == "summary"), None)
    parent = _find_parent(summary_turn, history)
    notes: list[str] = []
    depth = parent.depth + 1 if parent else 0
    parent_id = parent.id if parent else None
    ids = message_ids(msgs)[start:cut]
    if parent is not None and depth >= cfg.max_summary_chain_depth:
        fresh = _restart_source(originals, msgs[cut:])
        restarted_from = parent.id
        if fresh is not None:
            # A new chain from the original messages: no summary-of-summary drift.
            fresh_turns = classify_turns(fresh)
            fresh_turns = [t for t in fresh_turns if t.kind != "system" or not cfg.keep_system]
            dropped_turns = fresh_turns
            ids = message_ids(fresh)
            parent = None
            notes.append(
                f"depth cap {cfg.max_summary_chain_depth} reached: new chain from {len(fresh)} original messages"
            )
        else:
            # Only the summary is left: read it as plain material, keep its facets, start at depth 0.
            parent = _Parent(parent.id, -1, parent.narrative, parent.key_points, parent.context, parent.task)
            notes.append(f"depth cap {cfg.max_summary_chain_depth} reached: new chain from the previous summary")
        depth, parent_id = 0, None
    else:
        restarted_from = None
    cap = min(cfg.max_summary_tokens, max(cfg.summary_floor_tokens, dropped_tokens // 2))
    # Never more than the replaced messages cost (minus the summary message's own overhead).
    cap = min(cap, dropped_tokens - MESSAGE_OVERHEAD - 1)
    if cap < MIN_SUMMARY_TOKENS:
        return _unchanged(
            raw,
            tokens_before,
            f"cannot reduce: the {cut - start} messages to replace cost only {dropped_tokens} tokens",
        )
    record = build_rule_record(
        dropped_turns, tail_turns, parent=parent, depth=depth, parent_id=parent_id, ids=ids, cap=cap, cfg=cfg, tok=tok
    )
    if restarted_from:
        record.context.raw["restarted_from"] = restarted_from
    mode, llm_error = "rule-based", None
    if backend is not None:
        record, mode, llm_error = _improve_with_llm(record, backend, dropped_turns, cap, cfg, tok, notes)
    content = render_summary_message(record, cap, tok)
    if tok.count(content) > cap:
        return _unchanged(raw, tokens_before, f"cannot reduce: a summary needs more than the {cap}-token budget")
    summary_msg = {"role": "system", "content": content}
    record.token_estimate = message_tokens(as_message(summary_msg), tok)
    if record.token_estimate >= dropped_tokens:
        return _unchanged(raw, tokens_before, "cannot reduce: the summary would cost as much as what it replaces")
    new = [*raw[:start], summary_msg, *raw[cut:]]
    tokens_after = sum(costs[:start]) + record.token_estimate + sum(costs[cut:]) + 3
    log.info(
        "compaction: depth %d, %d messages compressed, %d -> %d tokens (%s)",
        record.depth,
        cut - start,
        tokens_before,
        tokens_after,
        mode,
    )
    return CompactionResult(
        messages=new,
        record=record,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        compacted=True,
        reason=(
            f"replaced {cut - start} messages ({dropped_tokens} tokens) with a {record.token_estimate}-token summary"
        ),
        mode=mode,
        dropped_messages=cut - start,
        preserved_messages=len(msgs) - cut,
        notes=notes,
        llm_error=llm_error,
    )


class Conversation:
    """A live conversation kept inside a context window: append messages, compaction happens on its own.

    ``append`` checks the trigger after each message and compacts when it fires; the summary chain
    is in ``history`` and every original message in ``archive`` (used for fresh chains at the depth cap).
    """

    def __init__(
        self,
        *,
        context_window: int,
        config: CompactConfig | None = None,
        backend: Any = None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.context_window = context_window
        self.config = config or DEFAULT_CONFIG
        self.config.validate()
        self.backend = backend
        self.tokenizer = tokenizer or get_tokenizer(self.config.encoding)
        self.messages: list[dict[str, Any]] = []
        self.archive: list[dict[str, Any]] = []
        self.history: list[SummaryRecord] = []
        self.state = TriggerState()
        self.last_decision: TriggerDecision | None = None

    def _chain(self) -> list[SummaryRecord]:
        """Records of the current chain (since the last depth-0 record)."""
        for i in range(len(self.history) - 1, -1, -1):
            if self.history[i].depth == 0:
                return self.history[i:]
        return []

    def append(self, message: Mapping[str, Any]) -> CompactionResult | None:
        """Add one message; return the compaction it caused, if any."""
        as_message(message, f"message {len(self.messages) + 1}")
        self.messages.append(dict(message))
        self.archive.append(dict(message))
        decision = should_compact(
            self.messages,
            context_window=self.context_window,
            config=self.config,
            state=self.state,
            history=self._chain(),
            tokenizer=self.tokenizer,
        )
        self.last_decision = decision
        if not decision:
            return None
        result = compact(
            self.messages,
            context_window=self.context_window,
            config=self.config,
            backend=self.backend,
            history=self._chain(),
            originals=self.archive,
            tokenizer=self.tokenizer,
        )
        self.state.compacted(len(result.messages), decision.ratio)
        if result.compacted and result.record is not None:
            self.history.append(result.record)
            self.messages = result.messages
        return result
