"""Digests: one summary per month and per year of dated sources (per folder for undated ones), made
from the finals of the period's files with the run's backend, like a file's final is made from its
parts (a ``meta`` request: extractive by default, the LLM when one is configured).

A month (or folder) digest merges the finals of its files, a year digest the digests of its months
(an extractive year month by month, :func:`by_month`); an extractive month names the day of each
paragraph (:func:`batchsum.digest_pages.digest_body`). Each period is redone only when what it is made from changed: its
files' final keys (a month or a folder) or its months' (a year), with the backend, the word budget
and the layout. So appending to one entry
redoes that entry, its month and its year; deleting an entry redoes its periods; an unchanged night
redoes nothing and reads no final. What each period was made from, and each file's one-line summary
and date (cached by its final's key), are kept in ``.batchsum/digests.json``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.backends.budget import TOKENS_PER_WORD, output_budget, tokens_per_word
from batchsum.backends.registry import make_backends
from batchsum.backends.units import units_from_text
from batchsum.digest_entries import entries_whole, input_tokens, per_day
from batchsum.digest_pages import (
    digest_body,
    source_dated,
)
from batchsum.digest_state import (
    DigestState,
    Final,
    PeriodState,
    digest_input,
    digest_text,
    final_link,
    final_of,
    is_stale,
    links_block,
    load_state,
    mixed,
    relative_link,
    remove_empty_folders,
    save_state,
    signatures,
    state_path,
    target_words,
)
from batchsum.digest_year import Compute, by_month
from batchsum.engine.changes import backend_identity
from batchsum.engine.executor_choice import executor_for
from batchsum.errors import AbortRun, SummarizationError
from batchsum.model import ContentType, NodeRecord, SummaryLevel, SummaryOutput, SummaryRequest, node_id
from batchsum.navigation import escape_html
from batchsum.own_pages import digests_folder, foreign_digest
from batchsum.periods import (
    MONTH_NAMES,
    ONE_LINE_WORDS,
    FileFacts,
    Period,
    digest_settings,
    digest_words,
    group,
    members_of,
    period_language,
    years_of,
)
from batchsum.state import NODE_FORMAT, node_key
from batchsum.text import DATE_LABEL
from batchsum.tree import link_target, node_path, read_node, write_node

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.model import Backend
    from batchsum.state import ManifestEntry, StateStore
    from batchsum.tokens import Tokenizer

log = logging.getLogger(__name__)

MONTH_WORDS = 300
YEAR_WORDS = 600


@dataclass
class Digest:
    """One period's digest as this run leaves it."""

    period: Period
    path: str
    text: str
    members: list[FileFacts]  # the files of the period (a year: of all its months)
    redone: bool  # remade this run (its inputs changed), not kept from an earlier run
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class DigestRun:
    """What updating the digests did."""

    digests: dict[Period, Digest] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)  # digest paths of periods that no longer have files
    records: list[NodeRecord] = field(default_factory=list)  # metrics of the periods made this run
    folder: str = "digests"
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # files batchsum did not write where a digest goes
    failed: list[Period] = field(default_factory=list)  # periods whose page could not be written

    @property
    def redone(self) -> list[Period]:
        """The periods remade this run."""
        return [p for p, d in self.digests.items() if d.redone]


def file_facts(
    out: Path, entry: ManifestEntry, cached: FileFacts | None, finals: dict[str, Final] | None = None
) -> FileFacts | None:
    """A summarized source's facts: the cached ones while its final is unchanged and not rewritten, else its
    final's.

    ``finals``: the finals at hand by relpath (those the run just wrote); a final read from its file
    here is added, so :func:`final_text` does not read it again."""
    if entry.final_id is None or entry.final_key is None:
        return None
    final = (finals or {}).get(entry.relpath)
    # A final the run wrote is read as written: the same summary may now be dated otherwise (a new reader).
    if (
        final is None
        and cached is not None
        and cached.final_key == entry.final_key
        and cached.language == entry.language
    ):
        return cached
    if final is None or final.facts.final_key != entry.final_key:
        try:
            meta, body = read_node(node_path(out, entry.relpath, 3, None))
        except (OSError, ValueError) as exc:
            log.warning("%s: final unreadable, left out of its digests (%s)", entry.relpath, exc)
            return None
        final = final_of(entry, meta, body)
        if finals is not None:
            finals[entry.relpath] = final
    return final.facts


def final_text(out: Path, facts: FileFacts, finals: Mapping[str, Final] | None = None) -> str:
    """The summary text of a file's final (its extracted sections left out), "" when unreadable: the
    one at hand in ``finals`` when it is that final, else read from its file."""
    final = (finals or {}).get(facts.relpath)
    if final is not None and final.facts.final_key == facts.final_key:
        return final.text
    try:
        meta, body = read_node(node_path(out, facts.relpath, 3, None))
    except (OSError, ValueError):
        return ""
    return digest_input(meta, body)


def month_languages(groups: Mapping[Period, list[FileFacts]], months: list[Period]) -> list[str | None]:
    """The language of each of a year's months (:func:`period_language`): its digest's part languages."""
    return [period_language(groups.get(m, [])) for m in months]


def digest_request(
    cfg: RunConfig,
    identity: tuple[str, str | None],
    period: Period,
    parts: list[str],
    input_tokens: int,
    labels: list[str] | None = None,
    language: str | None = None,
    part_languages: list[str | None] | None = None,
) -> tuple[SummaryRequest, str]:
    """The backend request of one period's digest and the key its output is stored under (the run
    sends it; ``plan`` sizes it). ``labels``: an extractive year's month names, one per part (its
    digest is written month by month, :func:`by_month`); ``language``: its files' (:func:`period_language`);
    ``part_languages``: each part's, kept only when they differ."""
    target = max(1, round(target_words(cfg, period) * tokens_per_word(language)))
    max_tokens = output_budget(max(input_tokens, 2), target)
    parts = _unlabelled(identity, parts)
    text = "\n\n".join(parts)
    read = parts
    if identity[0] == "extractive" and period.kind != "year":
        langs = mixed(part_languages or []) or [language] * len(parts)
        share = target_words(cfg, period) // max(1, len(parts))
        read = [whole_lines(p, "document" if period.kind == "folder" else "journal", share, lang)
                for p, lang in zip(parts, langs, strict=True)]  # fmt: skip
    req = SummaryRequest(
        node_id=node_id(period.path(), 4, None),
        kind="meta",
        content_type="journal" if period.kind != "folder" else "document",
        text=text,
        input_tokens=input_tokens,
        target_tokens=target,
        max_tokens=max_tokens,
        parts=read,
        summary_level=SummaryLevel.HIERARCHICAL,
        peers=period.kind != "year",  # a month's entries, a folder's files; a year's months are written in order
        language=language,
        part_languages=mixed(part_languages or []),
    )
    layout = [BY_MONTH, *labels] if labels is not None else []
    # English is the default every key had before languages were told apart: its keys stay valid.
    lang = [language] if language and language != "en" else []
    key = node_key(
        NODE_FORMAT, "digest", *identity, "meta", req.content_type, text, target, max_tokens, *layout, *lang,
        *([req.part_languages] if req.part_languages else []),
        *(["whole-lines", *read] if read != parts else []),
    )  # fmt: skip
    return req, key


# A sentence that trails off: "…" (the cleaner's mark of a phrase left open) or "...", before closing marks.
_TRAILS_OFF = re.compile(r"(?:…|\.\.\.)[\"'”’»)\]]*$")


def whole_lines(part: str, content_type: ContentType, share: int, language: str | None = None) -> str:
    """``part`` (a file's final in a month's or folder's digest) as the extractive summarizer is given it:
    without its sentences that trail off ("You can have a look at it…"), nor, when its ``share`` of the
    digest's words holds a one-line summary, those longer than that share, as long as it holds a whole
    sentence that is neither. The summarizer picks whole sentences; a file that gets one line had been given
    a trailing-off one, or a sentence of 110 words that left another file without a line."""
    cap = share if share >= ONE_LINE_WORDS else None
    if cap is None and "…" not in part and "..." not in part:
        return part  # nothing to pass over: a folder of thousands of files is not read twice
    units = [u for u in units_from_text(part, content_type, language=language) if u.candidate]

    def fits(body: str) -> bool:
        return not _TRAILS_OFF.search(body) and (cap is None or digest_words(body) <= cap)

    passed = [u.body for u in units if not fits(u.body)]
    if not passed or len(passed) == len(units):
        return part  # a file with no whole sentence that fits keeps what it has
    lines = []
    for line in part.split("\n"):
        flat = " ".join(line.split())
        rest = flat
        for body in passed:
            rest = rest.replace(body, "", 1)
        if rest == flat:
            lines.append(line)
        elif not _LABEL_ONLY.fullmatch(rest.strip()):
            lines.append(" ".join(rest.split()))  # the turn's other sentences, under its speaker's label
    return "\n".join(lines)


_LABEL_ONLY = re.compile(r"(?:[^\s:][^:]{0,40}:)?")


def _unlabelled(identity: tuple[str, str | None], parts: list[str]) -> list[str]:
    """A digest's parts as its backend reads them (an extractive one: without their lines' day labels)."""
    if identity[0] != "extractive":
        return parts
    # A week file's "2024-03-06: " line labels go: the digest labels each day itself (digest_body, on top of
    # its cap), and to the summarizer they cost each pick room for a label, so a month of 12 files left 3
    # out for a week's second line. An LLM keeps them: they tell it the days.
    return [DATE_LABEL.sub("", p) for p in parts]


# An extractive year's layout in its key: a stored year written before a month's days were summarized without
# their labels, each month in its own language, a chat's sentence without its speaker, or a journal's "Lunch:"
# opener written before a later sentence as if a speaker's, is not reused.
BY_MONTH = "by-month-4"


def month_labels(identity: tuple[str, str | None], period: Period, months: list[Period]) -> list[str] | None:
    """The month names an extractive year's digest is written under (None for any other digest: an
    LLM writes a year as it sees fit)."""
    if period.kind != "year" or identity[0] != "extractive":
        return None
    return [MONTH_NAMES[int(m.key[5:7]) - 1] for m in months]


class _Builder:
    """One update of an output's digests."""

    def __init__(
        self, cfg: RunConfig, store: StateStore, tokenizer: Tokenizer, run_id: str, compute: Compute | None = None
    ) -> None:
        self.cfg = cfg
        self.out = cfg.out
        self.store = store
        self.tokenizer = tokenizer
        self.run_id = run_id
        self.identity = backend_identity(cfg)
        self.created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.backend: Backend | None = None
        # The run's executor's: an LLM run's backend and limits, an extractive run's worker processes.
        self.compute = compute
        self.executor: Any = None  # the executor built for an LLM run's digests under Ray (when not handed one)
        self.labels: dict[str, list[str]] = {}  # node id -> month names of an extractive year (by_month)
        self.talks: dict[str, list[bool]] = {}  # node id -> which of its months hold a conversation (by_month)
        self.finals: dict[str, list[str]] = {}  # node id -> its parts before whole_lines (quoted whole when they fit)
        self.failed: set[str] = set()  # node ids of the digests the LLM failed (--on-error fail)
        self.stopped: AbortRun | None = None  # what stopped the pass (--on-error abort, Ctrl-C)

    def _backend(self) -> Backend:
        if self.backend is None:
            self.backend = make_backends(self.cfg, self.tokenizer)[0]
        return self.backend

    async def _summarize(self, req: SummaryRequest) -> SummaryOutput:
        """One digest's output from the LLM through the run's executor, or from the backend here."""
        if self.compute is None and self.cfg.llm.enabled and self.cfg.executor == "ray":
            # A run with no file to summarize built no executor: the digests' requests still go through
            # the cluster's limiter (a named one is the one other runs share).

            backend, fallback = make_backends(self.cfg, self.tokenizer)
            self.executor = executor_for(self.cfg)(backend, fallback)
            self.compute = self.executor.compute
        if self.compute is not None:
            return await self.compute(req)
        return await self._backend().summarize(req)

    def request(
        self,
        period: Period,
        parts: list[str],
        input_tokens: int,
        labels: list[str] | None = None,
        language: str | None = None,
        part_languages: list[str | None] | None = None,
        talks: list[bool] | None = None,
    ) -> tuple[SummaryRequest, str]:
        """The backend request of one period's digest and the key its output is stored under; ``talks``: an
        extractive year's months, whether each holds a conversation (:func:`by_month`)."""
        req, key = digest_request(
            self.cfg, self.identity, period, parts, input_tokens, labels, language, part_languages
        )
        # Finals that fit are quoted as they are, lines that trail off too: only a pick is a whole sentence.
        self.finals[req.node_id] = _unlabelled(self.identity, parts)
        if labels is not None:
            self.labels[req.node_id] = labels
            self.talks[req.node_id] = talks if talks is not None else [True] * len(labels)
        return req, key

    def _quoted_whole(self, req: SummaryRequest) -> SummaryOutput | None:
        """An extractive digest of finals that fit its cap in tokens and its budget in words: the finals
        themselves. A summary, always shorter than its input, could only cut one (a month of one short
        entry read "That can bothe…"). None when they do not fit, or for an LLM."""
        if self.identity[0] != "extractive":
            return None
        whole = "\n\n".join(p.strip() for p in self.finals.get(req.node_id, req.parts) if p.strip())
        n = self.tokenizer.count(whole)
        if n > req.max_tokens or len(whole.split()) * TOKENS_PER_WORD > req.target_tokens:
            return None
        return SummaryOutput(text=whole, backend=self.identity[0], completion_tokens=n, llm_calls=0)

    async def summarize(self, jobs: list[tuple[SummaryRequest, str]]) -> list[tuple[SummaryOutput, bool]]:
        """Outputs of ``jobs`` (stored ones reused), at most the LLM's concurrency at a time."""
        gate = asyncio.Semaphore(max(1, self.cfg.llm.concurrency))

        async def one(req: SummaryRequest, key: str) -> tuple[SummaryOutput, bool]:
            stored = self.store.get_node(key)
            if stored is not None:
                return stored, True
            async with gate:
                if not req.parts or self.stopped is not None:  # nothing to summarize; the pass stopped: none sent
                    return SummaryOutput(text="", backend="none", llm_calls=0), False
                labels = self.labels.get(req.node_id)
                try:
                    if labels is not None:
                        talks = self.talks.get(req.node_id)
                        output = await by_month(self._summarize, self.identity[0], self.tokenizer, req, labels, talks)
                    else:
                        output = self._quoted_whole(req) or await self._summarize(req)
                except SummarizationError as exc:
                    # One digest failed (--on-error fail): the others are still made; under abort, none is sent
                    # after. What it spent is the run's (its requests sent, failed ones included).
                    if isinstance(exc, AbortRun):
                        self.stopped = self.stopped or exc
                    else:
                        self.failed.add(req.node_id)
                    spent = exc.output if isinstance(exc.output, SummaryOutput) else None
                    return spent or SummaryOutput(text="", backend=self.identity[0], llm_calls=0, error=str(exc)), False
            if "fallback" not in output.backend and output.text.strip():
                self.store.put_node(key, output)
            return output, False

        return list(await asyncio.gather(*(one(r, k) for r, k in jobs)))

    async def aclose(self) -> None:
        if self.executor is not None:
            await self.executor.aclose()
        if self.backend is not None:
            await self.backend.aclose()


def update_digests(
    cfg: RunConfig,
    manifest: dict[str, ManifestEntry],
    store: StateStore,
    tokenizer: Tokenizer,
    run_id: str,
    finals: Mapping[str, Final] | None = None,
) -> DigestRun:
    """Bring ``digests/`` in line with the finals the manifest names; see the module's docstring.
    ``finals``: the finals the run just wrote, by relpath (any other is read from its file)."""
    return asyncio.run(aupdate_digests(cfg, manifest, store, tokenizer, run_id, finals=finals))


async def aupdate_digests(
    cfg: RunConfig,
    manifest: dict[str, ManifestEntry],
    store: StateStore,
    tokenizer: Tokenizer,
    run_id: str,
    compute: Compute | None = None,
    finals: Mapping[str, Final] | None = None,
) -> DigestRun:
    """:func:`update_digests` on a running event loop. ``compute``: the run's executor's (``compute`` of
    :class:`~batchsum.engine.executor.LocalExecutor`), so an LLM run's digests share its backend and
    limits (with ``--executor ray``, the cluster-wide limiter) and an extractive run's are summarized
    by its worker processes; without it, an LLM run under Ray builds the run's kind of executor for
    them, any other run its own backend."""
    t0 = time.perf_counter()
    builder = _Builder(cfg, store, tokenizer, run_id, compute)
    try:
        result = await _update(builder, manifest, dict(finals or {}))
    finally:
        await builder.aclose()
    result.seconds = time.perf_counter() - t0
    return result


async def _update(b: _Builder, manifest: dict[str, ManifestEntry], finals: dict[str, Final]) -> DigestRun:
    cfg, out = b.cfg, b.out
    spath = state_path(cfg)
    old = load_state(spath)
    identity = b.identity
    if not cfg.remember and len(old.settings) >= 2:
        # A run over batchsum's own files (serve's conversations) is not the folder's: it redoes only the
        # digests whose files it changed, signed with the folder's backend, so the next nightly run keeps
        # them and the others. Signed with its own, it had redone every digest with the chat model, and
        # the nightly every one again.
        identity = (old.settings[0], old.settings[1])
    new = DigestState(settings=digest_settings(cfg, identity))
    for rel, entry in manifest.items():
        facts = file_facts(out, entry, old.files.get(rel), finals)
        if facts is not None:
            new.files[rel] = facts
    groups = group(new.files.values())
    years = years_of(p for p in groups if p.kind == "month")
    folder, clash = digests_folder(out, manifest, [*groups, *years])
    if folder is None:  # no folder is batchsum's to write: nothing written, and the next run tries again
        return DigestRun(folder="", warnings=[clash or "digests not written"])
    run = DigestRun(folder=folder, warnings=[clash] if clash else [])
    sigs = signatures(cfg, identity, groups, years)

    def stale(period: Period) -> bool:
        return is_stale(out, old, folder, period, sigs[period])

    # Months and folders first (from the finals), then years (from their months' digests).
    lower = [p for p in sorted(groups, key=lambda p: p.id) if stale(p)]
    roots = manifest if b.identity[0] == "extractive" else {}  # an LLM's: as planned
    jobs = []
    owners: dict[Period, list[FileFacts]] = {}  # the file of each part
    finals_of: dict[Period, list[str]] = {}  # the text of each part as its final has it, days' labels and all
    for period in lower:
        members = groups[period]
        words = target_words(cfg, period)
        said = [(f, final_text(out, f, finals)) for f in members]
        owned = [
            (f, t) for f, x in said if (t := entries_whole(f, x, roots, cfg, words) or source_dated(x, f, roots, cfg))
        ]
        extractive = b.identity[0] == "extractive"
        owned = per_day(owned) if extractive else owned  # an LLM's prompt and cap as planned
        owners[period] = [f for f, _ in owned]
        tokens = input_tokens(members, owned, b.tokenizer.count) if extractive else sum(f.tokens for f in members)
        parts, langs = [t for _, t in owned], [f.language for f, _ in owned]
        finals_of[period] = parts
        jobs.append(b.request(period, parts, tokens, None, period_language(members), langs))
    outputs = await b.summarize(jobs)
    _stop_if_aborted(b, run, zip(lower, jobs, outputs, strict=True))
    texts: dict[Period, str] = {}
    for period, (req, key), (output, reused) in zip(lower, jobs, outputs, strict=True):
        if req.node_id in b.failed:
            _failed(b, run, period, req, output)
            continue
        texts[period] = digest_body(period, output.text.strip(), finals_of[period], owners[period])  # as written
        _settle(b, run, new, folder, period, groups[period], req, key, output, reused, sigs[period] or "",
                body=texts[period])  # fmt: skip
    upper = [y for y in sorted(years, key=lambda p: p.id) if stale(y)]
    jobs = []
    for year in upper:
        written = [(m, texts.get(m) or digest_text(out / m.path(folder))) for m in years[year]]
        written = [(m, t) for m, t in written if t]
        parts = [t for _, t in written]
        tokens = sum(b.tokenizer.count(p) for p in parts)
        labels = month_labels(b.identity, year, [m for m, _ in written])
        language = period_language(members_of(year, groups, years))
        langs = month_languages(groups, [m for m, _ in written])
        # Whether a month's "Label: text" line can be a speaker's is its files' content type, known here.
        talks = [any(f.content_type == "conversation" for f in groups.get(m, [])) for m, _ in written]
        jobs.append(b.request(year, parts, tokens, labels, language, langs, talks))
    outputs = await b.summarize(jobs)
    _stop_if_aborted(b, run, zip(upper, jobs, outputs, strict=True))
    for year, (req, key), (output, reused) in zip(upper, jobs, outputs, strict=True):
        if req.node_id in b.failed:
            _failed(b, run, year, req, output)
            continue
        members = members_of(year, groups, years)
        # Made from a month's earlier page when that month failed: provisional, redone by the next run.
        sig = "" if any(m in run.failed for m in years[year]) else sigs[year] or ""
        _settle(b, run, new, folder, year, members, req, key, output, reused, sig, months=years[year])
    for period in [*groups, *years]:
        if period in run.digests or period in run.failed:
            continue
        prev = old.periods[period.id]
        new.periods[period.id] = prev
        members = members_of(period, groups, years)
        run.digests[period] = Digest(period, prev.path, "", members, redone=False)
    live = {d.path for d in run.digests.values()} | {p.path(folder) for p in run.failed}
    for prev in old.periods.values():
        if prev.path not in live and not foreign_digest(out / prev.path):  # another's file took its place
            run.removed.append(prev.path)
            try:
                (out / prev.path).unlink()
            except OSError:
                pass
            remove_empty_folders(out, prev.path)
    save_state(spath, new)
    return run


def _settle(
    b: _Builder,
    run: DigestRun,
    state: DigestState,
    folder: str,
    period: Period,
    members: list[FileFacts],
    req: SummaryRequest,
    key: str,
    output: SummaryOutput,
    reused: bool,
    sig: str,
    months: list[Period] | None = None,
    body: str | None = None,
) -> None:
    """Write one period's digest, record it in the state and in the run's metrics. ``body``: its text as
    :func:`~batchsum.digest_pages.digest_body` gives it when the caller made it already (a month's and a
    folder's were made twice), else made here."""
    path = period.path(folder)
    text = body if body is not None else digest_body(period, output.text.strip(), req.parts, [])
    out_tokens = b.tokenizer.count(text) if text else 0
    meta = digest_meta(b, period, path, members, req, output, out_tokens, key, months, folder)
    # The title opens the page and is indexed with the text: a search naming the period finds it.
    # A page with no text (its files' finals all empty) is its title alone, as read back from its file.
    page = f"# {escape_html(period.title_in(req.language))}" + (f"\n\n{text}" if text else "")
    try:
        write_node(b.out / path, meta, f"{page}\n\n{links_block(period, path, members, months, folder)}")
    except OSError as exc:  # one page's failure (a full disk, a name the file system refuses) is its own
        what = f"folder {period.title!r}" if period.kind == "folder" else period.title
        run.warnings.append(f"digest of {what} not written ({exc.strerror or exc}): {b.out / path}")
        run.failed.append(period)
        run.records.append(_record(b, path, req, output, reused, 0))  # its requests were sent all the same
        return
    words = digest_words(text)
    if "fallback" in output.backend:
        sig = ""  # made by the fallback, not the configured LLM: provisional, redone by the next run
    state.periods[period.id] = PeriodState(
        sig, key, path, len(members), req.input_tokens, out_tokens, words, target_words(b.cfg, period)
    )
    run.digests[period] = Digest(period, path, page, members, redone=True, meta=meta)
    run.records.append(_record(b, path, req, output, reused, out_tokens))


def _failed(b: _Builder, run: DigestRun, period: Period, req: SummaryRequest, output: SummaryOutput) -> None:
    """A digest the LLM failed (``--on-error fail``): its earlier page is left as it was and redone by the
    next run (it keeps no state), and the requests it sent are recorded, as a failed file's are."""
    path = period.path(run.folder)
    what = f"folder {period.title!r}" if period.kind == "folder" else period.title
    run.warnings.append(f"digest of {what} not made: {output.error or 'the LLM failed'}")
    run.failed.append(period)
    run.records.append(_record(b, path, req, output, False, 0))


class DigestsAborted(AbortRun):
    """``--on-error abort`` (or Ctrl-C) stopped the digest pass; ``records``: the metrics rows of what it spent."""

    def __init__(self, cause: AbortRun, records: list[NodeRecord]) -> None:
        super().__init__(str(cause), node_id=cause.node_id, cause=cause, output=cause.output)
        self.records = records


def _stop_if_aborted(
    b: _Builder, run: DigestRun, made: Iterable[tuple[Period, tuple[SummaryRequest, str], tuple[SummaryOutput, bool]]]
) -> None:
    """Raise :class:`DigestsAborted` when the pass was stopped, with the requests its digests sent."""
    if b.stopped is None:
        return
    run.records += [
        _record(b, p.path(run.folder), req, out, False, 0) for p, (req, _), (out, reused) in made if not reused
    ]
    raise DigestsAborted(b.stopped, run.records)


def _record(
    b: _Builder, path: str, req: SummaryRequest, output: SummaryOutput, reused: bool, out_tokens: int
) -> NodeRecord:
    """The metrics row of one period's digest: what it spent unless reused."""
    return NodeRecord(
        run_id=b.run_id,
        relpath=path,
        node_id=req.node_id,
        level="period",
        index=None,
        parent=None,
        input_tokens=req.input_tokens,
        output_tokens=out_tokens,
        compression_ratio=round(min(1.0, out_tokens / req.input_tokens), 4) if req.input_tokens else 0.0,
        backend=output.backend,
        model=output.model,
        attempts=output.attempts,
        latency_ms=output.latency_ms,
        cache_hit=output.cache_hit,
        prompt_tokens=0 if reused else output.prompt_tokens,
        completion_tokens=0 if reused else output.completion_tokens,
        llm_calls=0 if reused else output.llm_calls,
        reused=reused,
        error=output.error,
    )


def digest_meta(
    b: _Builder,
    period: Period,
    path: str,
    members: list[FileFacts],
    req: SummaryRequest,
    output: SummaryOutput,
    out_tokens: int,
    key: str,
    months: list[Period] | None,
    folder: str,
) -> dict[str, Any]:
    """The front matter of a digest."""
    meta: dict[str, Any] = {
        "id": req.node_id,
        "title": period.title_in(req.language),
        "doc_id": path,
        "source_path": path,
        "role": "digest",
        "level": 4,
        "is_final": False,
        "period": period.key,
        "period_kind": period.kind,
        "files": len(members),
        "input_tokens": req.input_tokens,
        "output_tokens": out_tokens,
        "target_tokens": req.target_tokens,
        "compression_ratio": round(min(1.0, out_tokens / req.input_tokens), 4) if req.input_tokens else 0.0,
        "content_type": req.content_type,
        "backend": output.backend,
        "model": output.model,
        "created_at": b.created,
        "doc_date": period.start,
        "date_source": "period",
        "node_key": key,
    }
    if req.language:  # most of its files': the language it is written in, and read in by the index
        meta["language"] = req.language
    # Files in several (a month's, a year's months'): the index drops the function words of each. A year's
    # are its files', not its months' (a German month may hold an English day).
    spoken = sorted({f.language for f in members if f.language} | {lang for lang in req.part_languages if lang})
    if len(spoken) > 1:
        meta["languages"] = spoken
    if output.error:
        meta["error"] = output.error[:500]
    if months is not None:
        meta["months"] = [link_target(relative_link(m.path(folder), path)) for m in months]
    meta["finals"] = [link_target(final_link(f.relpath, path)) for f in members]
    return meta
