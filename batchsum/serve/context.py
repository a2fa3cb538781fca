"""The read path: retrieve what the output folder knows about a message and inject it into the request.

Retrieved: the conversation's own summary (if it has one), the best facts of every scope plus this
conversation's earlier user turns (ranked by :func:`batchsum.memory.search.search_facts`), and the best
summary nodes (:func:`batchsum.index.search.search`, the ranking of ``batchsum search``). They go into
one system message placed just before the user's last message: summary first, then ``[role] content``
lines (scores are not shown). A file's summary goes in as its page reads (no facets section, headings or
emphasis marks) and, when long, by its sentences that hold the query's words
(:func:`batchsum.index.snippets.best_sentences`); when it lacks query words that the source passage
the search matched holds (a meeting's one-line summary, the decision asked about said further on),
that passage follows it, so what ``batchsum search`` finds reaches the model. A conversation whose
summary goes in first is not repeated among the summary hits. A period's digest (a month, a year, a
folder) is named as one, with its number of files, each of its paragraphs cut to a share of its room
so the whole period is represented.
With redaction on (``--redact``; the default when the upstream is not loopback) every secret in them
is replaced by ``[REDACTED:<kind>]`` first, as ``run`` does to sources.

With ``--chroma-host``, a Chroma server that fails (down, restarting) does not silence the context: the
summaries come from the output folder's own search files (the vectors and lexical copies every run
writes beside Chroma, what ``batchsum search`` without the host reads), the facts (kept in Chroma only)
are left out, and each such request logs a warning and leaves the problem in ``/health``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from batchsum.errors import BatchsumError, IndexError_
from batchsum.index.lexical import query_tokens
from batchsum.index.search import search
from batchsum.index.snippets import best_sentences, emphasis_as_text, node_body
from batchsum.memory.files import ROLE
from batchsum.memory.search import search_facts
from batchsum.navigation import period_context, strip_links
from batchsum.secrets import redact
from batchsum.serve.config import ServeConfig
from batchsum.serve.conversations import read_summary, scope_of
from batchsum.serve.guard import ChromaGuard
from batchsum.tree import parse_markdown

log = logging.getLogger(__name__)

SUMMARY_CHARS = 600  # of each summary hit injected (its sentences that best match the question, when longer)
# Of a period's digest (a month, a year): it stands for many files, each of its paragraphs gets a share.
DIGEST_CHARS = 3 * SUMMARY_CHARS
# A long message (a pasted document, a log) is searched by its first and last words only: the question
# asked about it is at one end, and ranking megabytes of it would stall the request (the upstream
# still gets the whole message).
QUERY_WORDS = 256
QUERY_SPAN_CHARS = 32 * QUERY_WORDS  # of each end, looked at for its words (bounds the work on one long "word")
CONTEXT_HEADER = (
    "Context from the user's notes and memory. Use it when it is relevant to the question; "
    "do not mention it otherwise. Later facts override earlier ones."
)


@dataclass
class Context:
    """What was retrieved for one request."""

    conversation_summary: str | None = None
    memories: list[tuple[str, str]] = field(default_factory=list)  # (role, content)
    retrieval_ms: float = 0.0
    degraded: list[str] = field(default_factory=list)  # what could not be retrieved as configured, and why

    @property
    def empty(self) -> bool:
        return not self.conversation_summary and not self.memories

    def render(self) -> str:
        """The injected system message."""
        parts = [CONTEXT_HEADER]
        if self.conversation_summary:
            parts.append("Summary of this conversation so far:\n" + self.conversation_summary)
        if self.memories:
            parts.append("Memories:\n" + "\n".join(f"[{role}] {text}" for role, text in self.memories))
        return "\n\n".join(parts)


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message (string content, or the text parts of a list)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """The last user message's text ('' when there is none)."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return message_text(m)
    return ""


def retrieval_query(text: str) -> str:
    """``text``, or of a long one its first and last :data:`QUERY_WORDS` / 2 words."""
    if len(text) <= QUERY_SPAN_CHARS and len(text.split()) <= QUERY_WORDS:
        return text
    half = QUERY_WORDS // 2
    head = text[:QUERY_SPAN_CHARS].split()[:half]
    tail = text[-QUERY_SPAN_CHARS:].split()[-half:]
    return " ".join([*head, *tail])


def retrieve(scfg: ServeConfig, query: str, conversation_id: str, guard: ChromaGuard) -> Context:
    """Everything worth injecting for ``query`` (blocking: Chroma and the embedder; run it in a thread);
    a long query is cut to :func:`retrieval_query`."""
    t0 = time.perf_counter()
    query = retrieval_query(query)
    ctx = Context(conversation_summary=read_summary(scfg.out, conversation_id))
    if query.strip() and scfg.run.index:
        guard.refresh()
        for attempt in range(2):
            try:
                with guard.use():
                    ctx.degraded = []
                    ctx.memories = _facts(scfg, query, conversation_id, ctx) + _summaries(
                        scfg, query, ctx, _own_transcript(conversation_id) if ctx.conversation_summary else None
                    )
                break
            except IndexError_ as exc:  # a client that missed another process's writes: reopen, once
                log.info("index read failed (%s); reopening it", exc)
                if attempt or not guard.refresh(force=True):
                    break
        guard.degraded = "; ".join(ctx.degraded) or None
    if scfg.run.redact_secrets:
        _redact(ctx)
    ctx.retrieval_ms = (time.perf_counter() - t0) * 1000
    return ctx


def _redact(ctx: Context) -> None:
    """Mask secrets in what is injected: it leaves the machine when the upstream is not loopback, and a
    summary or fact may quote a key from a note that was summarized without --redact."""
    total: dict[str, int] = {}

    def clean(text: str) -> str:
        new, counts = redact(text)
        for kind, n in counts.items():
            total[kind] = total.get(kind, 0) + n
        return new

    if ctx.conversation_summary:
        ctx.conversation_summary = clean(ctx.conversation_summary)
    ctx.memories = [(role, clean(text)) for role, text in ctx.memories]
    if total:
        log.info("redacted %s from the injected context", ", ".join(f"{n} {k}" for k, n in sorted(total.items())))


def _server_failed(exc: IndexError_, ctx: Context, what: str) -> None:
    """Log, and record for ``/health``, that the Chroma server failed a retrieval and what was done instead."""
    message = f"{what}: {exc}"
    log.warning("%s", message)
    ctx.degraded.append(message)


def _facts(scfg: ServeConfig, query: str, conversation_id: str, ctx: Context) -> list[tuple[str, str]]:
    where = {"$or": [{"role": ROLE}, {"$and": [{"role": "user"}, {"scope": scope_of(conversation_id)}]}]}
    try:
        hits = search_facts(scfg.run, query, k=scfg.top_facts, where=where)
    except IndexError_ as exc:
        if "no search index" in str(exc) or "does not exist" in str(exc):
            return []  # nothing indexed yet
        if scfg.run.chroma_host:  # the facts live in Chroma only: none this time
            _server_failed(exc, ctx, "no facts injected (they are kept in Chroma only)")
            return []
        raise
    except BatchsumError as exc:
        log.debug("no facts retrieved: %s", exc)
        return []
    return [(h.role, h.text) for h in hits]


def _own_transcript(conversation_id: str) -> str:
    """The source path of a conversation's transcript in the index (the summary run's folder layout)."""
    return f"{scope_of(conversation_id)}/transcript.md"


def _summaries(scfg: ServeConfig, query: str, ctx: Context, given: str | None = None) -> list[tuple[str, str]]:
    """The best summary hits' lines, without those of source ``given`` (a conversation whose summary is
    already injected first)."""
    # One more hit than shown when one may be left out, so the number injected stays --top-k's.
    k = scfg.top_summaries + (1 if given else 0)
    try:
        # The snippets too: a hit's summary may lack the words that its source passage holds.
        hits = search(scfg.run, query, k=k, snippets=True)
    except IndexError_ as exc:
        if "no search index" in str(exc) or "does not exist" in str(exc):
            return []
        if not scfg.run.chroma_host:
            raise
        _server_failed(exc, ctx, f"summaries retrieved from the local copy of the index in {scfg.run.state_dir}")
        try:
            local = dataclasses.replace(scfg.run, chroma_host=None, chroma_port=None)
            hits = search(local, query, k=k, snippets=True)
        except BatchsumError as local_exc:
            log.warning("no summaries retrieved from the local copy either: %s", local_exc)
            return []
    except BatchsumError as exc:
        log.debug("no summaries retrieved: %s", exc)
        return []
    hits = [h for h in hits if h.source_path != given][: scfg.top_summaries]
    return _summary_lines(hits, query)


def _terms(text: str, language: str | None) -> set[str]:
    """The search terms of ``text`` (stemmed as the query's are)."""
    return {t for group in query_tokens(text, (language,)) for t in group}


def _with_passage(text: str, hit: Any, groups: list[list[str]], language: str | None) -> str:
    """``text`` (a summary) and, when it lacks query words the matched source passage holds, that passage:
    within :data:`SUMMARY_CHARS`, the summary giving up room to it."""
    if hit.snippet_from != "source" or not hit.snippet:
        return text
    held, passage = _terms(text, language), _terms(hit.snippet, language)
    if not any(set(g) & passage and not set(g) & held for g in groups):
        return text
    line = f"From the source: {hit.snippet}"
    room = SUMMARY_CHARS - len(line) - 1
    if len(text) > room:  # the summary's sentences that hold the most query words, as many as fit
        text = best_sentences(text, groups, max(room, 0), language=language) if room > 0 else ""
    return f"{text}\n{line}" if text else line


def _summary_lines(hits: list[Any], query: str) -> list[tuple[str, str]]:
    """The hits' summaries to inject, each within :data:`SUMMARY_CHARS` (a digest within :data:`DIGEST_CHARS`)."""
    found = []
    for h in hits:
        try:
            page = h.summary_path.read_text(encoding="utf-8")
            meta, body = parse_markdown(page)
        except (OSError, ValueError):
            continue  # removed since it was indexed
        if meta.get("role") == "digest":  # a summary of a period, said so, its whole period represented
            # As a file's summary goes in: without bold and italic marks ("**12 March.**" reads "12 March.").
            found.append(("summary", period_context(meta, emphasis_as_text(strip_links(body)), DIGEST_CHARS)))
            continue
        # The summary as its reader sees it: no facets section (it repeats the body's open questions and
        # action items), headings or emphasis marks; a long one by the sentences that hold the question's
        # words, which may be its last (a lecture's closing line, not its opening mic check).
        language = meta.get("language")
        groups = query_tokens(query, (language,))
        text = best_sentences(node_body(page, headings=False), groups, SUMMARY_CHARS, language=language)
        found.append(("summary", f"{h.source_path}: {_with_passage(text, h, groups, language)}"))
    return found


def inject(messages: list[dict[str, Any]], ctx: Context) -> list[dict[str, Any]]:
    """``messages`` with the context as a system message just before the last user message."""
    if ctx.empty:
        return list(messages)
    block = {"role": "system", "content": ctx.render()}
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return [*messages[:i], block, *messages[i:]]
    return [*messages, block]
