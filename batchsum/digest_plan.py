"""``batchsum plan``'s digests: which periods a run would redo, with their requests and tokens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from batchsum.digest_pages import digest_body
from batchsum.digest_state import DigestState, Final, digest_text, load_state, state_path
from batchsum.digests import (
    digest_request,
    file_facts,
    final_text,
    is_stale,
    month_labels,
    signatures,
)
from batchsum.engine.changes import backend_identity
from batchsum.model import SummaryRequest
from batchsum.periods import (
    FileFacts,
    Period,
    digests_dir,
    group,
    members_of,
    period_language,
    years_of,
)

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.state import ManifestEntry, StateStore
    from batchsum.tokens import Tokenizer


@dataclass
class PeriodPlan:
    """The digests a run would redo (``batchsum plan``), with their requests and tokens."""

    periods: list[str] = field(default_factory=list)  # ids: month:1826-05, year:1826, folder:notes
    removed: list[str] = field(default_factory=list)  # ids of periods left without files: their digests go
    llm_calls: int = 0
    input_tokens: int = 0  # of the finals (a year: of its months' digests) the digests are made from
    prompt_tokens: int = 0  # of the LLM requests (template and input)
    prompt_tokens_estimated: int = 0  # the part of them that are outputs of this run, taken at their budgets
    est_output_tokens: int = 0


def plan_digests(
    cfg: RunConfig,
    manifest: dict[str, ManifestEntry],
    touched: dict[str, tuple[str | None, int, str | None]],
    deleted: list[str],
    store: StateStore | None = None,
    tokenizer: Tokenizer | None = None,
    size: Callable[[SummaryRequest, int], int] | None = None,
) -> PeriodPlan:
    """Which periods a run would redo and what they cost, given the files it would summarize
    (``touched``: relpath -> (real date or None, the final's planned tokens, language)) and the ones it would
    delete. The same staleness test as the run (:func:`signatures`, :func:`is_stale`): a period with a
    file to summarize is redone, any other only when its signature, its file or its backend says so.
    A redone period whose inputs are all known (no file of it summarized, a year none of whose months
    is redone) costs nothing when its output is in ``store``, as in the run. ``size`` gives an LLM
    request's prompt tokens from the request and its input tokens."""
    state = load_state(state_path(cfg))
    identity = backend_identity(cfg)
    out = cfg.out
    gone = set(deleted)
    files: dict[str, FileFacts] = {}
    finals: dict[str, Final] = {}  # those read for their facts, not read again for their text
    for rel, entry in manifest.items():
        if rel in gone or rel in touched:
            continue
        # The facts the run will use: cached by the final's key, else read from the final itself.
        facts = file_facts(out, entry, state.files.get(rel), finals)
        if facts is not None:
            files[rel] = facts
    for rel, (date, tokens, language) in touched.items():
        files[rel] = FileFacts(rel, "", date, "", tokens, language=language)  # its final's key is known once made
    groups = group(files.values())
    years = years_of(p for p in groups if p.kind == "month")
    folder = digests_dir([*files, *(rel for rel in manifest if rel not in gone)])
    sigs = signatures(cfg, identity, groups, years)
    plan = PeriodPlan()

    def language_of(period: Period) -> str | None:
        return period_language(members_of(period, groups, years))

    def stored_tokens(
        period: Period,
        parts: list[str],
        input_tokens: int,
        labels: list[str] | None = None,
        owners: list[FileFacts] | None = None,
    ) -> int | None:
        if store is None or tokenizer is None:
            return None
        langs = [f.language for f in owners] if owners else None
        _, key = digest_request(cfg, identity, period, parts, input_tokens, labels, language_of(period), langs)
        output = store.get_node(key)
        if output is None:
            return None
        return tokenizer.count(digest_body(period, output.text.strip(), parts, owners or []))

    made: dict[Period, int] = {}  # output tokens of the months redone (at their budgets when not stored)
    for period in sorted(groups, key=lambda p: p.id):
        if not is_stale(out, state, folder, period, sigs[period]):
            continue
        members = groups[period]
        inputs = [f.tokens for f in members]
        known = None
        if sigs[period] is not None:
            owned = [(f, t) for f, t in ((f, final_text(out, f, finals)) for f in members) if t]
            parts = [t for _, t in owned]
            known = stored_tokens(period, parts, sum(inputs), owners=[f for f, _ in owned])
        fresh = sum(f.tokens for f in members if not f.final_key)
        made[period] = _plan_one(cfg, identity, plan, period, inputs, fresh, known, size, language_of(period))
    for year in sorted(years, key=lambda p: p.id):
        if not is_stale(out, state, folder, year, sigs[year]):
            continue
        months = years[year]
        inputs = [made.get(m, _kept_tokens(state, m)) for m in months]
        known = None
        if not any(m in made for m in months):
            written = [(m, t) for m in months if (t := digest_text(out / m.path(folder)))]
            parts = [t for _, t in written]
            labels = month_labels(identity, year, [m for m, _ in written])
            known = stored_tokens(year, parts, sum(tokenizer.count(p) for p in parts) if tokenizer else 0, labels)
        fresh = sum(made[m] for m in months if m in made)
        _plan_one(cfg, identity, plan, year, inputs, fresh, known, size, language_of(year))
    live = {p.id for p in groups} | {y.id for y in years}
    plan.removed = sorted(pid for pid in state.periods if pid not in live)
    return plan


def _kept_tokens(state: DigestState, period: Period) -> int:
    prev = state.periods.get(period.id)
    return prev.output_tokens if prev is not None else 0


def _plan_one(
    cfg: RunConfig,
    identity: tuple[str, str | None],
    plan: PeriodPlan,
    period: Period,
    inputs: list[int],
    fresh: int,
    stored: int | None,
    size: Callable[[SummaryRequest, int], int] | None,
    language: str | None = None,
) -> int:
    """Count one redone digest (made from parts of ``inputs`` tokens, ``fresh`` of them written by this
    run; ``stored``: its output's tokens when the node store has it) into ``plan``; returns its output
    tokens (a digest to make: its budget)."""
    plan.periods.append(period.id)
    if stored is not None:
        return stored  # written from the node store: no request
    req, _ = digest_request(cfg, identity, period, [""] * len(inputs), sum(inputs), language=language)
    plan.input_tokens += req.input_tokens
    plan.est_output_tokens += req.max_tokens
    if cfg.llm.enabled:
        plan.llm_calls += 1
        if size is not None:
            plan.prompt_tokens += size(req, req.input_tokens)
            plan.prompt_tokens_estimated += fresh
    return req.max_tokens
