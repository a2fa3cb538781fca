"""``batchsum plan``'s digests: which periods a run would redo, with their requests and tokens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    month_languages,
    signatures,
)
from batchsum.engine.changes import backend_identity
from batchsum.model import SummaryRequest
from batchsum.own_pages import digests_folder
from batchsum.periods import (
    FileFacts,
    Period,
    group,
    members_of,
    period_language,
    years_of,
)

if TYPE_CHECKING:
    from batchsum.backends.llm_requests import CachedAnswers
    from batchsum.config import RunConfig
    from batchsum.state import ManifestEntry, StateStore
    from batchsum.tokens import Tokenizer


@dataclass
class PeriodPlan:
    """The digests a run would redo (``batchsum plan``), with their requests and tokens."""

    periods: list[str] = field(default_factory=list)  # ids: month:1826-05, year:1826, folder:notes, folder:
    titles: list[str] = field(default_factory=list)  # of periods' digests, as the run titles them: "(top level)"
    removed: list[str] = field(default_factory=list)  # ids of periods left without files: their digests go
    # Of ``periods``, the digests the folder has that the run writes again with an LLM request: what another
    # backend or model costs beyond the files (a run refuses them unconfirmed, remembered.check).
    remade: list[str] = field(default_factory=list)
    llm_calls: int = 0
    llm_cached: int = 0  # requests the response cache answers (not sent, not in llm_calls)
    input_tokens: int = 0  # of the finals (a year: of its months' digests) the digests are made from
    prompt_tokens: int = 0  # of the LLM requests (template and input)
    prompt_tokens_estimated: int = 0  # the part of them that are outputs of this run, taken at their budgets
    est_output_tokens: int = 0

    def remade_names(self) -> list[str]:
        """``remade`` as ``plan`` names the digests (the top folder's by its title)."""
        return [period_name(pid) for pid in self.remade]


def plan_digests(
    cfg: RunConfig,
    manifest: dict[str, ManifestEntry],
    touched: dict[str, tuple[str | None, int, str | None]],
    deleted: list[str],
    store: StateStore | None = None,
    tokenizer: Tokenizer | None = None,
    size: Callable[[SummaryRequest, int], int] | None = None,
    known: Mapping[str, Final] | None = None,
    answers: CachedAnswers | None = None,
) -> PeriodPlan:
    """Which periods a run would redo and what they cost, given the files it would summarize
    (``touched``: relpath -> (real date or None, the final's planned tokens, language)) and the ones it would
    delete. ``known``: of ``touched``, the finals already known (kept whole, stored, or made from the
    response cache), as the run will write them. The same staleness test as the run (:func:`signatures`,
    :func:`is_stale`): a period with a file whose final is not known yet is redone, any other only when its
    signature, its file or its backend says so. A redone period whose inputs are all known costs nothing
    when its output is in ``store`` or, with an LLM (``answers``), when the response cache answers its
    request, as in the run; its output is then known, and so is the input of its year. ``size`` gives an
    LLM request's prompt tokens from the request and its input tokens."""
    state = load_state(state_path(cfg))
    identity = backend_identity(cfg)
    out = cfg.out
    gone = set(deleted)
    files: dict[str, FileFacts] = {}
    finals: dict[str, Final] = dict(known or {})  # those read for their facts, not read again for their text
    for rel, entry in manifest.items():
        if rel in gone or rel in touched:
            continue
        # The facts the run will use: cached by the final's key, else read from the final itself.
        facts = file_facts(out, entry, state.files.get(rel), finals)
        if facts is not None:
            files[rel] = facts
    for rel, (date, tokens, language) in touched.items():
        final = finals.get(rel)  # else its final's key is known once made
        files[rel] = final.facts if final is not None else FileFacts(rel, "", date, "", tokens, language=language)
    groups = group(files.values())
    years = years_of(p for p in groups if p.kind == "month")
    folder = digests_folder(out, [*files, *(rel for rel in manifest if rel not in gone)], [*groups, *years])[0]
    sigs = signatures(cfg, identity, groups, years)
    plan = PeriodPlan()
    if folder is None:
        return plan  # no digests folder is free: the run writes none

    def language_of(period: Period) -> str | None:
        return period_language(members_of(period, groups, years))

    output = _Outputs(cfg, identity, plan, store, answers)

    def remade(period: Period, free: bool) -> None:  # a digest the folder has, asked of the LLM again
        if cfg.llm.enabled and not free and period.id in state.periods:
            plan.remade.append(period.id)

    texts: dict[Period, str | None] = {}  # the bodies of the months redone (None: made by the run, unknown)
    made: dict[Period, int] = {}  # their output tokens (estimated when unknown)
    for period in sorted(groups, key=lambda p: p.id):
        if not is_stale(out, state, folder, period, sigs[period]):
            continue
        members = groups[period]
        inputs = [f.tokens for f in members]
        body, free = None, False
        if sigs[period] is not None:
            owned = [(f, t) for f, t in ((f, final_text(out, f, finals)) for f in members) if t]
            parts, owners = [t for _, t in owned], [f for f, _ in owned]
            body, free = output(period, parts, sum(inputs), language_of(period), owners=owners)
        fresh = sum(f.tokens for f in members if not f.final_key)
        estimate = _plan_one(cfg, identity, plan, period, inputs, fresh, free, size, language_of(period))
        remade(period, free)
        texts[period] = body
        made[period] = tokenizer.count(body) if body is not None and tokenizer is not None else estimate
    for year in sorted(years, key=lambda p: p.id):
        if not is_stale(out, state, folder, year, sigs[year]):
            continue
        months = years[year]
        body, free = None, False
        if all(texts[m] is not None for m in months if m in texts):  # its months' digests are all known
            written = [(m, t) for m in months if (t := texts.get(m) or digest_text(out / m.path(folder)))]
            parts = [t for _, t in written]
            inputs = [tokenizer.count(p) if tokenizer is not None else 0 for p in parts]
            labels = month_labels(identity, year, [m for m, _ in written])
            langs = month_languages(groups, [m for m, _ in written])
            body, free = output(year, parts, sum(inputs), language_of(year), labels, part_languages=langs)
        else:
            inputs = [made.get(m, _kept_tokens(state, m)) for m in months]
        fresh = sum(made[m] for m in months if m in texts and texts[m] is None)
        _plan_one(cfg, identity, plan, year, inputs, fresh, free, size, language_of(year))
        remade(year, free)
    live = {p.id for p in groups} | {y.id for y in years}
    plan.removed = sorted(pid for pid in state.periods if pid not in live)
    return plan


@dataclass
class _Outputs:
    """The outputs of a plan's redone digests that are known without the run: stored, or answered by
    the response cache."""

    cfg: RunConfig
    identity: tuple[str, str | None]
    plan: PeriodPlan
    store: StateStore | None
    answers: CachedAnswers | None

    def __call__(
        self,
        period: Period,
        parts: list[str],
        input_tokens: int,
        language: str | None,
        labels: list[str] | None = None,
        owners: list[FileFacts] | None = None,
        part_languages: list[str | None] | None = None,
    ) -> tuple[str | None, bool]:
        """(the body of ``period``'s digest made from ``parts`` as the run writes it, None when unknown;
        whether the run sends no request for it). The response cache's answers are counted into the plan.
        ``part_languages``: a year's months' (a month's are its ``owners``')."""
        langs = [f.language for f in owners] if owners else part_languages
        req, key = digest_request(self.cfg, self.identity, period, parts, input_tokens, labels, language, langs)
        stored = self.store.get_node(key) if self.store is not None else None
        text: str
        if stored is not None:
            text = stored.text
        elif not req.parts:
            text = ""  # nothing to summarize: an empty digest, no request
        elif self.answers is None:
            return None, False
        else:
            looked = self.answers.look(req)
            self.plan.llm_cached += looked.served
            if looked.sent or looked.answer is None:
                return None, not looked.sent
            text = looked.answer.text
        return digest_body(period, text.strip(), parts, owners or []), True


def period_name(pid: str) -> str:
    """How ``plan`` names a digest: by its period's id, the top folder's (``folder:``, no name) followed by
    the title its page has, ``folder:(top level)``."""
    kind, _, key = pid.partition(":")
    return pid if key or kind != "folder" else pid + Period("folder", "").title


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
    free: bool,
    size: Callable[[SummaryRequest, int], int] | None,
    language: str | None = None,
) -> int:
    """Count one redone digest (made from parts of ``inputs`` tokens, ``fresh`` of them written by this
    run, taken at their budgets; ``free``: the run sends no request for it, its output being in the node
    store or the response cache) into ``plan``; returns the tokens it is estimated to write."""
    plan.periods.append(period.id)
    plan.titles.append(period.title)
    req, _ = digest_request(cfg, identity, period, [""] * len(inputs), sum(inputs), language=language)
    # An extractive digest writes at most its input: finals under its cap are quoted whole. An LLM's
    # answer is known only once made, so its cap stands.
    made = min(req.max_tokens, req.input_tokens) if identity[0] == "extractive" else req.max_tokens
    if free:
        return made
    plan.input_tokens += req.input_tokens
    plan.est_output_tokens += made
    if cfg.llm.enabled:
        plan.llm_calls += 1
        if size is not None:
            plan.prompt_tokens += size(req, req.input_tokens)
            plan.prompt_tokens_estimated += fresh
    return req.max_tokens
