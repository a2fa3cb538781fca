"""``batchsum plan``: what a run would do now, computed without writing anything.

Nodes are walked as the run walks them: a node whose key is in the node store (every leaf of an
unchanged chunk, and a group or final whose inputs are all stored and whose own output is too)
costs nothing. With an LLM, a node whose inputs are all known is built into the very requests the
backend would send (:class:`~batchsum.backends.llm_requests.CachedAnswers`) and looked up in the
response cache the run would use: answered there, it costs nothing and its output is known (its
parent's requests are built from it). Every other node is one request. A request's prompt is its
template (counted once per shape, as the LLM backend does) plus its input: a leaf's tokens, or its
children's outputs (their known length, else their target length). Output tokens are the nodes'
targets. The finals this plan knows (kept whole, stored, or made from the cache) are handed to the
digests' plan as the run hands them its finals, so a digest over them is looked up too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from batchsum import remembered
from batchsum.backends.budget import count_message_tokens
from batchsum.backends.llm_requests import SOURCE_KINDS, CachedAnswers, as_sent
from batchsum.backends.prompts import PromptSet
from batchsum.backends.registry import response_cache_dir
from batchsum.digest_plan import PeriodPlan, plan_digests
from batchsum.digest_state import Final, digest_input, load_state, many_days, state_path
from batchsum.engine.changes import (
    EDITED,
    FELL_BACK,
    REDATED,
    backend_identity,
    change_reason,
    config_signature,
    diff,
    earlier_summarizer,
    fell_back_note,
    known_content,
    moved_note,
    moved_sources,
    passed_over_note,
    read_anew,
    redated_note,
    redone_note,
    reread_note,
    source_path,
)
from batchsum.engine.kept_whole import kept_whole_output
from batchsum.engine.nodes import heights, make_job
from batchsum.engine.prepare import attach_prior, prepare_file
from batchsum.engine.records import NodeResult
from batchsum.lazy import load
from batchsum.lock import running_holder
from batchsum.memory.manifest import FactsPlan  # at run time: typing.get_type_hints(PlanSummary) resolves it
from batchsum.model import SummaryOutput
from batchsum.periods import FileFacts, real_date
from batchsum.state import StateStore
from batchsum.summary_files import written_body
from batchsum.tokens import get_tokenizer
from batchsum.walk import Problem

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.planning import FilePlan
    from batchsum.tokens import Tokenizer


@dataclass
class PlanSummary:
    """What a run would do now."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    # Of ``changed``, the files whose bytes did not change but which this version reads as another text (a
    # reader upgrade: walk.READER_VERSION), as the run warns (files_reread).
    reread: list[str] = field(default_factory=list)
    # Of ``changed``, why each is planned again (changes.change_reason): "edited" is the user's doing, the rest
    # this batchsum's (an upgrade's summarizer or reader, settings, a damaged tree).
    reasons: dict[str, str] = field(default_factory=dict)
    redone: Counter[int] = field(default_factory=Counter)  # files an earlier summarizer made, by its version
    fell_back: int = 0  # of ``changed``, the nodes of unedited files that had fallen back to extractive
    # Of ``new`` and ``changed``, those whose source is the file a deleted tree was made from (relpath -> the deleted
    # one): summaries that move.
    moved: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)  # files that are no source (an export's metadata)
    passed_over: dict[str, int] = field(default_factory=dict)  # files of types never read, by extension
    levels: Counter[str] = field(default_factory=Counter)
    chunks: int = 0
    nodes: int = 0
    nodes_stored: int = 0  # nodes whose output is already in the node store
    llm_calls: int = 0  # requests the run will send (LLM backend)
    llm_cached: int = 0  # requests the run will find answered in the response cache (not sent, not counted above)
    # requests that ask for facets: each may cost one plain-text retry more, when the model's JSON is invalid
    llm_facet_requests: int = 0
    input_tokens: int = 0  # tokens of the files to summarize
    prompt_tokens: int = 0  # tokens of those requests' prompts (LLM backend)
    prompt_tokens_estimated: int = 0  # the part of them that are outputs of this run, taken at their targets
    est_output_tokens: int = 0
    est_cost: float | None = None  # at the configured price (--price-per-1k); None without one
    backend: str = "extractive"
    periods: PeriodPlan | None = None  # the month, year and folder digests it would redo
    # The remembered settings this plan's options change ("type auto -> document"): why files it would
    # otherwise leave alone are planned again.
    settings_changed: list[str] = field(default_factory=list)
    held_by: str | None = None  # another run working on the folder now: the state read may change under it
    facts: FactsPlan | None = None  # --facts: the facts pass's requests, not counted in llm_calls (an estimate)

    def passed_over_note(self) -> str | None:
        """The line naming the files of types a run never reads, or None."""
        return passed_over_note(Counter(self.passed_over))

    def reread_note(self) -> str | None:
        """The line naming how many unchanged files a reader upgrade reads as another text, or None."""
        return reread_note(len(self.reread)) if self.reread else None

    def change_notes(self) -> list[str]:
        """The lines saying why unedited files are planned again: an upgrade's summarizer, a date read otherwise."""
        notes = [redone_note(self.redone)] if self.redone else []
        if redated := sum(r == REDATED for r in self.reasons.values()):
            notes.append(redated_note(redated))
        if self.fell_back:
            notes.append(fell_back_note(sum(r == FELL_BACK for r in self.reasons.values()), self.fell_back))
        if self.moved:
            notes.append(moved_note(self.moved))
        return notes

    def cost(self, input_per_million: float, output_per_million: float | None = None) -> float:
        """Cost of the planned requests at a price per million prompt (and completion) tokens; the
        completion price defaults to the prompt's. A backend that sends no LLM request costs nothing:
        its output tokens are no completions (the report of its run prices it at 0 too)."""
        if self.backend != "llm":
            return 0.0
        out = input_per_million if output_per_million is None else output_per_million
        return (self.prompt_tokens * input_per_million + self.est_output_tokens * out) / 1e6

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``plan --json`` prints; ``as_dict()`` is the older name of it."""
        return {
            "new": self.new,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "reread": self.reread,
            "reasons": self.reasons,
            "change_notes": self.change_notes(),
            "moved": self.moved,
            "held_by": self.held_by,
            "problems": [{"path": p.path, "reason": p.reason} for p in self.problems],
            "skipped": [{"path": p.path, "reason": p.reason} for p in self.skipped],
            "passed_over": self.passed_over,
            "levels": dict(self.levels),
            "chunks": self.chunks,
            "nodes": self.nodes,
            "nodes_already_stored": self.nodes_stored,
            "llm_calls": self.llm_calls,
            "llm_cached": self.llm_cached,
            "llm_facet_requests": self.llm_facet_requests,
            "input_tokens": self.input_tokens,
            "prompt_tokens": self.prompt_tokens,
            "prompt_tokens_estimated": self.prompt_tokens_estimated,
            "est_output_tokens": self.est_output_tokens,
            "cost": self.est_cost,
            "backend": self.backend,
            "periods": asdict(self.periods) if self.periods is not None else None,
            "settings_changed": self.settings_changed,
            "facts": asdict(self.facts) if self.facts is not None else None,
        }

    as_dict = to_dict  # the name before every result object had to_dict()


class _PromptSizer:
    """Prompt tokens of a request: its template, counted once per shape, plus its input as sent (a
    source text cleaned as the backend cleans it, ``as_sent``: a transcript's markup costs nothing)."""

    def __init__(self, prompts: PromptSet, tokenizer: Tokenizer) -> None:
        self.prompts = prompts
        self.tokenizer = tokenizer
        self._templates: dict[tuple[Any, ...], int] = {}

    def size(self, request: Any, input_tokens: int) -> int:
        n = len(request.parts)
        shape = (request.kind, request.content_type, request.facets, n, request.prior_context)
        if shape not in self._templates:
            messages = self.prompts.build_messages(
                request, text="", parts=[""] * n, prior=request.prior_context, max_tokens=request.max_tokens,
                facets=request.facets,
            )  # fmt: skip
            self._templates[shape] = count_message_tokens(messages, self.tokenizer)
        if request.kind in SOURCE_KINDS and not n:
            sent = as_sent(request.text, request.content_type, request.language)
            # Counted again only when cleaning changed it: the caller's count is of the text as read.
            input_tokens = input_tokens if sent == request.text else self.tokenizer.count(sent)
        return self._templates[shape] + input_tokens + 2 * n


def _walk(
    plan: FilePlan,
    cfg: RunConfig,
    state: StateStore,
    tokenizer: Tokenizer,
    sizer: _PromptSizer | None,
    answers: CachedAnswers | None,
    summary: PlanSummary,
) -> NodeResult | None:
    """Count ``plan``'s stored nodes, requests (sent, and answered by the response cache) and their
    prompt and output tokens into ``summary``; returns the final's result when its output is known."""
    identity = backend_identity(cfg)
    height = heights(plan)
    done: dict[str, NodeResult | None] = {}  # None: computed by the run, output unknown yet
    for node in plan.nodes:
        estimated = 0
        children = [done[c] for c in node.inputs]
        known = [c for c in children if c is not None]
        if len(known) == len(children):
            job = make_job(identity, cfg.llm, plan, node, known, height[node.node_id], cfg.final_words)
            stored = state.get_node(job.key)
            if stored is not None:
                count = tokenizer.count(stored.text)  # as the run counts it: part of the parent's key
                done[node.node_id] = NodeResult(node, stored, job.key, job.request.input_tokens, count, True)
                summary.nodes_stored += 1
                continue
            if answers is not None:
                looked = answers.look(job.request)
                summary.llm_cached += looked.served
                if not looked.sent:  # all answered by the cache (or left to the fallback without a request)
                    answer = looked.answer
                    done[node.node_id] = None if answer is None else NodeResult(
                        node, SummaryOutput(text=answer.text, backend="llm", trimmed=answer.trimmed,
                                            facets=answer.facets),
                        job.key, job.request.input_tokens, tokenizer.count(answer.text), False,
                    )  # fmt: skip
                    continue
        else:  # some input is made by this run: the prompt's size is estimated from the targets
            stand_in = [
                c or NodeResult(plan_node, SummaryOutput(text="-", backend=""), "", 0, plan_node.target_tokens, False)
                for c, plan_node in zip(children, _nodes(plan, node.inputs), strict=True)
            ]
            job = make_job(identity, cfg.llm, plan, node, stand_in, height[node.node_id], cfg.final_words)
            estimated = sum(c.output_tokens for c, known in zip(stand_in, children, strict=True) if known is None)
        done[node.node_id] = None
        summary.est_output_tokens += node.target_tokens
        if sizer is not None:
            summary.llm_calls += 1
            summary.llm_facet_requests += bool(job.request.facets)
            summary.prompt_tokens += sizer.size(job.request, job.request.input_tokens)
            summary.prompt_tokens_estimated += estimated
    return done.get(plan.final_id) if plan.final_id is not None else None


def _kept_whole(plan: FilePlan) -> NodeResult:
    """The final of a file kept whole, as the run commits it (``RunDriver.keep_whole``): its one node,
    reused when the manifest's final already has its key."""
    doc = plan.doc
    output, key = kept_whole_output(plan)
    return NodeResult(plan.nodes[0], output, key, doc.tokens, doc.tokens, reused=False)


def _final(cfg: RunConfig, plan: FilePlan, result: NodeResult) -> Final:
    """What the digests take of a final this plan knows, as from the final the run writes."""
    doc = plan.doc
    meta = {"kept_whole": True} if plan.kept_whole else {}
    date = real_date(doc.doc_date, doc.date_source)
    facts = FileFacts(doc.relpath, result.key, date, "", result.output_tokens, doc.content_type, doc.language,
                      many_days(doc.relpath, doc.date_source))  # fmt: skip
    return Final(facts, digest_input(meta, written_body(cfg.out, plan, result)))


def _nodes(plan: FilePlan, ids: list[str]) -> list[Any]:
    by_id = {n.node_id: n for n in plan.nodes}
    return [by_id[i] for i in ids]


@dataclass
class _Tools:
    """What counting a plan's requests takes: the tokenizer and, with an LLM, the prompt sizer and the
    response cache's answers. Made on first use: an unchanged night needs none of them."""

    tokenizer: Tokenizer
    sizer: _PromptSizer | None = None
    answers: CachedAnswers | None = None

    @classmethod
    def make(cls, cfg: RunConfig) -> _Tools:
        tokenizer = get_tokenizer(cfg.encoding)
        if not cfg.llm.enabled:
            return cls(tokenizer)
        prompts = PromptSet.load(cfg.llm.prompts_dir)
        answers = CachedAnswers(cfg.llm, tokenizer, response_cache_dir(cfg), prompts)
        return cls(tokenizer, _PromptSizer(prompts, tokenizer), answers)


def preview(cfg: RunConfig) -> PlanSummary:
    """What ``run`` would do now with ``cfg``: reads sources and state, writes nothing, takes no lock."""
    if cfg.executor == "ray":  # checked as a run checks it (Ray installed, its address answering), no cluster started
        load("batchsum.engine.ray_probe:require_ray")(cfg.ray_address)
    identity = backend_identity(cfg)
    sig = config_signature(cfg)
    state = StateStore(cfg.state_dir)
    manifest = state.load_manifest()
    d = diff(cfg, manifest, sig)
    summary = PlanSummary(backend=identity[0], problems=list(d.problems), passed_over=dict(d.passed_over))
    summary.held_by = running_holder(cfg.out)
    old = remembered.load(cfg.out)
    summary.settings_changed = [str(c) for c in remembered.changes(old, cfg)] if old else []
    summary.deleted = [e.relpath for e in d.deleted]
    summary.unchanged = [e.relpath for e in d.unchanged]
    gone = {e.relpath: path for e in d.deleted if (path := source_path(e)) is not None}
    tools: _Tools | None = None
    touched: dict[str, tuple[str | None, int, str | None]] = {}  # what the digests need of each file to summarize
    finals: dict[str, Final] = {}  # of those, the finals known now (kept whole, stored, or from the cache)
    emptied: list[str] = []  # files with summaries that are no source now: out of the digests, as if deleted
    arrived: dict[str, str] = {}  # new files, by relpath: a gone source may be one of them under another name
    for ref in d.todo:
        entry = manifest.get(ref.relpath)
        tools = tools or _Tools.make(cfg)
        # As a run prepares it (agent sessions are planned from their digest), extras included.
        prepared = prepare_file(ref, cfg, tools.tokenizer, known_content(entry, sig, cfg.out))
        doc, plan = prepared.doc, prepared.plan
        if isinstance(doc, Problem):
            if not doc.failure and entry is not None and entry.final_id is not None:
                # No source now (emptied): the run moves its summaries aside (RunDriver.forget).
                doc = replace(doc, reason=f"{doc.reason}; its earlier summaries moved to deleted/")
                emptied.append(ref.relpath)
            (summary.problems if doc.failure else summary.skipped).append(doc)
            continue
        if plan is None:
            summary.unchanged.append(ref.relpath)
            continue
        (summary.changed if entry is not None else summary.new).append(ref.relpath)
        if entry is None:  # a file summarized before is no summary moved to its path
            arrived[ref.relpath] = ref.fspath
        attach_prior(plan, entry, cfg, d.roots.get(ref.relpath))  # the final's request as the run sends it
        if read_anew(entry, doc.sha256, doc.text_sha, sig):
            summary.reread.append(ref.relpath)
        if entry is not None:
            summary.reasons[ref.relpath] = reason = change_reason(entry, doc, cfg, sig)
            if reason != EDITED and (made_by := earlier_summarizer(entry, cfg, sig)) is not None:
                summary.redone[made_by] += 1
            summary.fell_back += entry.fallback_nodes if reason == FELL_BACK else 0
        summary.levels[plan.level.value] += 1
        summary.chunks += len(plan.chunks)
        summary.input_tokens += doc.tokens
        final = next((n.target_tokens for n in plan.nodes if n.level == 3), doc.tokens)
        date = real_date(doc.doc_date, doc.date_source)
        touched[ref.relpath] = (date, doc.tokens if plan.kept_whole else final, doc.language)
        summary.nodes += len(plan.nodes)
        if plan.kept_whole:  # written as it is: no summary to make, but one node the run records
            kept = _kept_whole(plan)
            summary.nodes_stored += entry is not None and entry.final_key == kept.key
            result: NodeResult | None = kept
        else:
            result = _walk(plan, cfg, state, tools.tokenizer, tools.sizer, tools.answers, summary)
        if result is not None and cfg.digests:
            finals[ref.relpath] = _final(cfg, plan, result)
    if gone and arrived:  # once: each call stats every gone source
        summary.moved = moved_sources(gone, arrived)
    if cfg.digests:
        tools = tools or _Tools.make(cfg)
        size = tools.sizer.size if tools.sizer is not None else None
        periods = plan_digests(
            cfg, manifest, touched, summary.deleted + emptied, state, tools.tokenizer, size, finals, tools.answers
        )
        # The digests' requests and tokens are the run's: counted in the totals (and shown apart).
        summary.periods = periods
        summary.llm_calls += periods.llm_calls
        summary.llm_cached += periods.llm_cached
        summary.prompt_tokens += periods.prompt_tokens
        summary.prompt_tokens_estimated += periods.prompt_tokens_estimated
        summary.est_output_tokens += periods.est_output_tokens
    elif retired := sorted(load_state(state_path(cfg)).periods):
        summary.periods = PeriodPlan(removed=retired)  # a run with --no-digests removes every digest left
    if cfg.facts and cfg.llm.enabled:  # the pass a run --facts makes after its summaries (pydantic: loaded here only)
        summary.facts = load("batchsum.memory.ingest:plan_facts")(cfg)
    if cfg.price_per_1k is not None:  # one price per 1,000 tokens of either kind, as the report takes it
        summary.est_cost = round(summary.cost(cfg.price_per_1k * 1000), 6)
    return summary
