"""``batchsum eval``: summarize a folder, match summaries to references, score, aggregate, record.

Denominators are explicit. Every document found is in the evaluation set: a document without
a usable reference scores 0 (listed) unless ``only_present`` drops it; a document that could
not be read or summarized scores 0 for every method and is listed. References without a
document and empty references are listed too. Nothing shrinks the set silently.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from batchsum import run
from batchsum.config import STATE_DIR, RunConfig
from batchsum.errors import ConfigError, InputError, MetricsError
from batchsum.evaluate.baseline_runs import run_baselines
from batchsum.evaluate.baselines import BASELINES
from batchsum.evaluate.references import (
    find_references,
    match_references,
    no_match_message,
    reference_text,
)
from batchsum.evaluate.render import render_table as render_table  # the command's and bench's import
from batchsum.evaluate.scoring import ZERO, Scores, plain_text, score, truncate_words, word_count
from batchsum.evaluate.tree_lookup import final_index, lookup_final, require_tree
from batchsum.metrics.store import MetricsStore, default_db_path
from batchsum.model import Thresholds
from batchsum.navigation import summary_only
from batchsum.state import StateStore
from batchsum.tokens import get_tokenizer
from batchsum.walk import Problem, discover, read_document

log = logging.getLogger(__name__)

Budget = str | int | None  # "ref", a word count, or None (as produced)
Progress = Callable[[str], None]

BATCHSUM = "batchsum"
AS_IS = "batchsum (as-is)"
TREE_OUT = "batchsum-out"
EVAL_OUT = "batchsum-eval-out"


@dataclass
class EvalOptions:
    """What to evaluate and how."""

    docs_dir: Path
    refs_dir: Path
    out: Path | None = None  # see ``output``
    tree: bool = False  # read an existing output tree at ``out`` instead of summarizing
    budget: Budget = None
    baselines: bool = False
    methods: tuple[str, ...] = BASELINES
    only_present: bool = False
    case_insensitive: bool = False
    dataset: str | None = None
    metrics: bool = True
    metrics_db: Path | None = None  # default <out>/.batchsum/metrics.duckdb; Parquet goes next to it
    jobs: int = 1  # processes for the baselines
    cache: bool = True  # reuse cached baseline outputs (they are deterministic)
    limit: int | None = None  # only the first N documents (sorted by id), for quick runs
    skip: int = 0  # leave out the first N documents (sorted by id): documents no tuning looked at
    half: int | None = None  # 0 or 1: every other document (sorted by id), for a tuning / held-out split
    encoding: str = "cl100k_base"

    @property
    def output(self) -> Path:
        """``out``, or the default of the command and the library alike: ``batchsum-out`` (where ``batchsum
        run`` writes) to read with ``tree``, ``batchsum-eval-out`` to summarize into."""
        return self.out or Path(TREE_OUT if self.tree else EVAL_OUT)


# Kinds that mean a document went unmeasured; the others say how the set was read.
FAILURE_KINDS = frozenset({"unreadable", "no_summary", "stale_summary", "metrics"})


@dataclass
class EvalProblem(Problem):
    """A :class:`batchsum.Problem` of an evaluation: ``path`` absolute, ``relpath`` the document's name in
    the set (None for a reference or a folder), and what went wrong as ``kind``: no_reference |
    orphan_reference | empty_reference | duplicate_id | decode | unreadable | no_summary | stale_summary | ...
    """

    kind: str = ""

    @property
    def message(self) -> str:
        """``reason``, under the name the report's JSON gives it."""
        return self.reason

    def line(self) -> str:
        """``path: reason``."""
        return f"{self.path}: {self.reason}"


def _problem(kind: str, path: str | Path, reason: str, relpath: str | None = None) -> EvalProblem:
    return EvalProblem(os.path.abspath(path), reason, relpath, failure=kind in FAILURE_KINDS, kind=kind)


@dataclass
class EvalDoc:
    """One document of the evaluation set with its references."""

    doc_id: str
    relpath: str
    path: Path
    text: str | None = None  # None when unreadable
    tokens: int = 0
    refs: list[Path] = field(default_factory=list)
    ref_texts: list[str] = field(default_factory=list)
    error: str | None = None
    sha256: str | None = None  # of the bytes read: a tree's final of other bytes is stale

    @property
    def has_reference(self) -> bool:
        return bool(self.ref_texts)


@dataclass
class DocResult:
    """One method's outcome on one document."""

    doc_id: str
    scores: Scores | None  # None: not scored (no reference, or failed), counted as 0 unless excluded
    seconds: float | None
    compression_ratio: float | None
    summary_words: int
    status: str  # ok | no_reference | failed


@dataclass
class MethodResult:
    """Aggregate of one method over the evaluation set."""

    method: str
    budget: str  # "ref", "<N>", "none" (as produced) or "match" (batchsum's own length)
    docs: list[DocResult] = field(default_factory=list)
    rouge1: float = 0.0
    rouge2: float = 0.0
    rougeLsum: float = 0.0  # noqa: N815
    entity_recall: float | None = None
    number_recall: float | None = None
    compression_ratio: float | None = None
    seconds_per_doc: float | None = None
    n_docs: int = 0
    n_scored: int = 0
    n_zero: int = 0  # counted as 0: no reference or failed

    def as_dict(self) -> dict[str, Any]:
        """Summary figures (without per-document rows)."""
        return {
            "method": self.method,
            "budget": self.budget,
            "rouge1": self.rouge1,
            "rouge2": self.rouge2,
            "rougeLsum": self.rougeLsum,
            "entity_recall": self.entity_recall,
            "number_recall": self.number_recall,
            "compression_ratio": self.compression_ratio,
            "seconds_per_doc": self.seconds_per_doc,
            "n_docs": self.n_docs,
            "n_scored": self.n_scored,
            "n_zero": self.n_zero,
        }


@dataclass
class EvalReport:
    """Everything ``batchsum eval`` found and computed."""

    eval_id: str
    created_at: str
    dataset: str
    budget: str
    docs_dir: Path  # the three absolute, as a run's ``RunResult.out``
    refs_dir: Path
    out: Path
    n_documents: int
    n_with_reference: int
    methods: list[MethodResult]
    problems: list[EvalProblem]
    ranks: dict[str, int]  # metric -> batchsum's rank (1 = best) among methods at equal budget
    n_ranked: int
    metrics_recorded: bool
    failed: int  # documents that could not be read or summarized
    kept_whole: int = 0  # documents under the NONE threshold: their own text is batchsum's summary

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``eval --json`` prints (paths as str), per-document scores included."""
        return {
            "eval_id": self.eval_id,
            "created_at": self.created_at,
            "dataset": self.dataset,
            "budget": self.budget,
            "docs_dir": str(self.docs_dir),
            "refs_dir": str(self.refs_dir),
            "out": str(self.out),
            "n_documents": self.n_documents,
            "n_with_reference": self.n_with_reference,
            "failed": self.failed,
            "kept_whole": self.kept_whole,
            "ranks": self.ranks,
            "n_ranked": self.n_ranked,
            "metrics_recorded": self.metrics_recorded,
            "methods": [
                {
                    **m.as_dict(),
                    "docs": [
                        {
                            "doc_id": d.doc_id,
                            "status": d.status,
                            "seconds": d.seconds,
                            "compression_ratio": d.compression_ratio,
                            "summary_words": d.summary_words,
                            **(d.scores.as_dict() if d.scores else {}),
                        }
                        for d in m.docs
                    ],
                }
                for m in self.methods
            ],
            "problems": [{"kind": p.kind, "path": p.path, "message": p.reason} for p in self.problems],
        }

    as_dict = to_dict  # the name before every result object had to_dict()


# ----------------------------------------------------------------------------- matching


def parse_budget(value: str | int | None) -> Budget:
    """``"ref"``, a positive word count, or None; anything else is a ConfigError."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        if isinstance(value, int) and value <= 0:
            raise ConfigError(f"--budget must be 'ref' or a positive number of words, not {value}")
        return value
    text = str(value).strip().lower()
    if text == "ref":
        return "ref"
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ConfigError(f"--budget must be 'ref' or a positive number of words, not {value!r}")


def doc_id_for(relpath: str) -> str:
    """``sub/name.ext`` -> ``sub/name`` (the key of its references)."""
    p = Path(relpath)
    return p.with_suffix("").as_posix() if p.suffix else p.as_posix()


def _decoded(what: str, note: str) -> str:
    # The decoder's note may already say "decoded as ...".
    return f"{what} {note}" if note.startswith("decoded as") else f"{what} decoded as {note}"


def excluded_folders(opts: EvalOptions) -> list[str]:
    """Ignore patterns for the references' folder (and the output) when they lie inside the documents'
    folder: references and summaries are no documents to score."""
    docs = opts.docs_dir.resolve()
    patterns = []
    for folder in (opts.refs_dir, opts.output):
        inner = folder.resolve()
        if inner != docs and inner.is_relative_to(docs):
            patterns.append(f"/{inner.relative_to(docs).as_posix()}/")
    return patterns


def _select(opts: EvalOptions, ids: list[str]) -> list[str]:
    """The ids of the subset asked for (half, skip, limit), in that order."""
    if opts.half is not None:
        if opts.half not in (0, 1):
            raise ConfigError(f"half must be 0 or 1, not {opts.half}")
        ids = ids[opts.half :: 2]
    if opts.skip < 0:
        raise ConfigError(f"skip must be 0 or more, not {opts.skip}")
    if opts.skip:
        if opts.skip >= len(ids):
            raise ConfigError(f"skip {opts.skip} leaves none of the {len(ids)} documents in {opts.docs_dir}")
        ids = ids[opts.skip :]
    return ids[: opts.limit] if opts.limit is not None else ids


def _attach(doc: EvalDoc, ref_paths: list[Path], problems: list[EvalProblem]) -> None:
    for ref_path in ref_paths:
        try:
            text, note = reference_text(ref_path)
        except (OSError, ValueError) as exc:
            problems.append(_problem("unreadable", ref_path, f"reference unreadable ({exc}); skipped"))
            continue
        if note:
            problems.append(_problem("decode", ref_path, _decoded("reference", note)))
        if not text.strip():
            problems.append(_problem("empty_reference", ref_path, "empty reference; skipped"))
            continue
        doc.refs.append(ref_path)
        doc.ref_texts.append(text)


def collect(opts: EvalOptions, problems: list[EvalProblem]) -> list[EvalDoc]:
    """Find documents (as ``batchsum run`` would), read them and attach their references."""
    if not opts.docs_dir.is_dir():
        raise ConfigError(f"documents folder does not exist or is not a folder: {opts.docs_dir}")
    if not opts.refs_dir.is_dir():
        raise ConfigError(f"references folder does not exist or is not a folder: {opts.refs_dir}")
    walk = discover([opts.docs_dir], out=opts.output, extra_ignore=excluded_folders(opts))
    for prob in walk.problems:
        problems.append(_problem("unreadable", prob.path, prob.reason, prob.relpath))
    by_id: dict[str, EvalDoc] = {}
    for ref in walk.refs:
        did = doc_id_for(ref.relpath)
        if did in by_id:
            problems.append(
                _problem("duplicate_id", ref.path, f"same id {did!r} as {by_id[did].path.name}; skipped", ref.relpath)
            )
            continue
        by_id[did] = EvalDoc(doc_id=did, relpath=ref.relpath, path=ref.path)
    if not by_id:
        raise ConfigError(f"no documents (.md, .txt, .jsonl, .json, .vtt, .srt) found in {opts.docs_dir}")
    ids = _select(opts, sorted(by_id))
    refs = find_references(opts.refs_dir)
    matches, orphans = match_references(ids, refs)
    if opts.limit is None and opts.half is None and not opts.skip:
        for p in orphans:
            problems.append(_problem("orphan_reference", p, "reference without a document; not scored"))
    if not any(matches.values()):
        raise ConfigError(no_match_message(opts.docs_dir, opts.refs_dir, ids, refs))
    tok = get_tokenizer(opts.encoding)
    docs: list[EvalDoc] = []
    source_refs = {r.relpath: r for r in walk.refs}
    for did in ids:
        doc = by_id[did]
        _attach(doc, matches[did], problems)
        docs.append(doc)
    if not any(d.has_reference for d in docs):  # every matched reference was empty or unreadable
        raise ConfigError(
            f"no document in {opts.docs_dir} has a usable reference in {opts.refs_dir}: "
            "every reference found for them is empty or unreadable"
        )
    for doc in docs:
        try:
            document = read_document(source_refs[doc.relpath])
            doc.text, doc.sha256 = document.text, document.sha256
            doc.tokens = tok.count(document.text)
            if not document.text.strip():  # its own (empty) text is scored, as for a file under 100 tokens
                problems.append(
                    _problem("empty_document", doc.path, "empty document: nothing to summarize", doc.relpath)
                )
            if document.decode_note:
                problems.append(_problem("decode", doc.path, _decoded("document", document.decode_note), doc.relpath))
        except InputError as exc:
            doc.error = exc.reason
            problems.append(_problem("unreadable", doc.path, f"{exc.reason}; scored 0", doc.relpath))
        if not doc.has_reference and not opts.only_present:
            tried = " or ".join(f"{opts.refs_dir / doc.doc_id}{s}" for s in (".txt", ".md"))
            found = ", ".join(str(p) for p in matches[doc.doc_id]) or f"none of {tried}"
            message = f"no usable reference ({found}); scored 0 (use --only-present to exclude)"
            problems.append(_problem("no_reference", doc.path, message, doc.relpath))
    left_out = [d.doc_id for d in docs if not d.has_reference]
    if opts.only_present and left_out:  # asked for: one line, not one per document
        names = ", ".join(left_out[:3]) + (", …" if len(left_out) > 3 else "")
        message = f"{len(left_out)} document(s) without a usable reference left out (--only-present): {names}"
        problems.append(_problem("no_reference", opts.refs_dir, message))
    return docs


# ----------------------------------------------------------------------------- summaries


def _link(docs: list[EvalDoc], folder: Path) -> None:
    """Symlinks to ``docs`` under their relpaths in ``folder`` (the links already there are kept)."""
    for doc in docs:
        link = folder / doc.relpath
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() and link.resolve() == doc.path.resolve():
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(doc.path.resolve())


def _subset_paths(opts: EvalOptions, docs: list[EvalDoc]) -> list[Path]:
    """What a run of a subset is given. A run limited to files inside a folder the tree was built from
    leaves its other files' summaries alone (``engine.changes.within_recorded_roots``), so the files
    themselves when the documents' folder (or the subset folder of an earlier subset) is such a root;
    only a tree built from neither gets a fresh folder of links, so the subset keeps its relpaths."""
    import shutil

    recorded = {e.root for e in StateStore(opts.output / STATE_DIR).load_manifest().values()}
    mirror = opts.output / STATE_DIR / "eval-subset"
    if os.path.abspath(opts.docs_dir) in recorded:
        return [opts.docs_dir / d.relpath for d in docs]
    if os.path.abspath(mirror) in recorded:
        _link(docs, mirror)
        return [mirror / d.relpath for d in docs]
    if mirror.exists():  # links no run was built from: nothing of the tree depends on them
        shutil.rmtree(mirror)
    _link(docs, mirror)
    return [mirror]


def batchsum_summaries(
    opts: EvalOptions, docs: list[EvalDoc], problems: list[EvalProblem]
) -> tuple[dict[str, str], float | None]:
    """Summaries of the readable ``docs`` (source text for NONE-level files) and seconds per document."""
    readable = [d for d in docs if d.text is not None]
    seconds: float | None = None
    failures: dict[str, str] = {}
    if not opts.tree:
        subset = opts.limit is not None or opts.half is not None or bool(opts.skip)
        # The state folder is never walked, so a subset's links cannot be summarized twice.
        paths = _subset_paths(opts, readable) if subset else [opts.docs_dir]
        cfg = RunConfig(
            paths=paths,
            out=opts.output,
            follow_symlinks=subset,  # the subset is a folder of links to the documents
            ignore=excluded_folders(opts),
            index=False,
            metrics=False,
            quiet=True,
            progress=False,
            encoding=opts.encoding,
        )
        t0 = time.perf_counter()
        result = run(cfg)
        elapsed = time.perf_counter() - t0
        # The run covers every readable file of the folder, with or without a reference.
        seconds = elapsed / len(readable) if readable else None
        failures = {f.relpath: f.error for f in result.files if f.status == "failed" and f.error}
        failures.update({p.path: p.reason for p in result.problems})
        if result.run.files_unchanged:
            problems.append(
                _problem(
                    "reused",
                    opts.output,
                    f"{result.run.files_unchanged} document(s) unchanged since an earlier run were reused; "
                    "seconds per document measure the re-run (use a fresh --out to time a full run)",
                )
            )
    finals = final_index(opts.output)
    none_limit = Thresholds().none
    out: dict[str, str] = {}
    for doc in readable:
        final, why_not = lookup_final(finals, doc.relpath, opts.docs_dir)
        if final is not None and final.source_sha256 not in (None, doc.sha256):
            # Scoring a summary of other bytes against this reference would measure nothing.
            message = "summary of an older version of the document; run batchsum run first; scored 0"
            problems.append(_problem("stale_summary", doc.path, message, doc.relpath))
        elif final is not None:
            # The summary alone: the extracted sections a run appends for the reader (facets, agent
            # session) are rule-picked lists, not the summarizer's output, and would inflate its length.
            out[doc.doc_id] = plain_text(summary_only(final.body))
        elif doc.tokens < none_limit:
            # Level NONE: the file is its own summary.
            out[doc.doc_id] = doc.text or ""
        elif doc.has_reference:
            why = failures.get(doc.relpath) or failures.get(str(doc.path)) or why_not
            why = why or f"no L3 summary in {opts.output}"
            problems.append(_problem("no_summary", doc.path, f"{why}; scored 0", doc.relpath))
    return out, seconds


# ----------------------------------------------------------------------------- scoring


def _budgets(budget: Budget, doc: EvalDoc, own_words: int | None) -> tuple[list[int | None], int]:
    """(per-reference truncation lengths, generation budget in words) for one document."""
    ref_words = [word_count(t) for t in doc.ref_texts]
    if budget == "ref":
        # Equal length: the reference's word count, or batchsum's own length when its summary is
        # shorter (the level budgets cap it), so no method is scored with more words than another.
        if own_words:
            return [min(r, own_words) for r in ref_words], min(max(ref_words, default=0), own_words)
        return list(ref_words), max(ref_words) if ref_words else 0
    if isinstance(budget, int):
        return [budget] * len(ref_words), budget
    gen = own_words if own_words else (max(ref_words) if ref_words else 0)
    return [None] * len(ref_words), gen


def _ratio(summary: str, doc: EvalDoc, count: Callable[[str], int]) -> float | None:
    if not doc.tokens:
        return None
    return min(1.0, count(summary) / doc.tokens)


def _score_method(
    method: str,
    budget_label: str,
    docs: list[EvalDoc],
    summaries: dict[str, str],
    seconds: dict[str, float | None],
    truncation: dict[str, list[int | None]],
    gen_budget: dict[str, int | None],
    opts: EvalOptions,
    count: Callable[[str], int],
) -> MethodResult:
    result = MethodResult(method=method, budget=budget_label)
    for doc in docs:
        if not doc.has_reference:
            if not opts.only_present:
                result.docs.append(DocResult(doc.doc_id, None, None, None, 0, "no_reference"))
            continue
        summary = summaries.get(doc.doc_id)
        if summary is None:
            result.docs.append(DocResult(doc.doc_id, None, seconds.get(doc.doc_id), None, 0, "failed"))
            continue
        limit = gen_budget.get(doc.doc_id)
        produced = truncate_words(summary, limit) if limit else summary
        scores = score(
            produced, doc.ref_texts, budget_words=truncation[doc.doc_id], case_insensitive=opts.case_insensitive
        )
        result.docs.append(
            DocResult(
                doc.doc_id, scores, seconds.get(doc.doc_id), _ratio(produced, doc, count), word_count(produced), "ok"
            )
        )
    _aggregate(result)
    return result


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _aggregate(m: MethodResult) -> None:
    def val(d: DocResult, attr: str) -> float | None:
        return getattr(d.scores or ZERO, attr)

    m.n_docs = len(m.docs)
    m.n_scored = sum(1 for d in m.docs if d.scores is not None)
    m.n_zero = m.n_docs - m.n_scored
    for attr in ("rouge1", "rouge2", "rougeLsum"):
        setattr(m, attr, _mean([val(d, attr) or 0.0 for d in m.docs]) or 0.0)
    for attr in ("entity_recall", "number_recall"):
        # Undefined recall (reference without entities/numbers) is left out; missing docs count 0, unless no
        # scored document defines it (no reference holds a number: "-", not 0.000).
        defined = any(d.scores is not None and getattr(d.scores, attr) is not None for d in m.docs)
        setattr(m, attr, _mean([v for d in m.docs if (v := val(d, attr)) is not None]) if defined else None)
    m.compression_ratio = _mean([d.compression_ratio for d in m.docs if d.compression_ratio is not None])
    m.seconds_per_doc = _mean([d.seconds for d in m.docs if d.seconds is not None])


def _budget_label(budget: Budget) -> str:
    return "none" if budget is None else str(budget)


def _rank(methods: list[MethodResult]) -> tuple[dict[str, int], int]:
    ranked = [m for m in methods if m.method != AS_IS]
    me = next((m for m in ranked if m.method == BATCHSUM), None)
    ranks: dict[str, int] = {}
    if me is None:
        return ranks, len(ranked)
    for metric in ("rouge1", "rouge2", "rougeLsum", "entity_recall"):
        mine = getattr(me, metric)
        if mine is None:
            continue
        ranks[metric] = 1 + sum(1 for m in ranked if (v := getattr(m, metric)) is not None and v > mine)
    return ranks, len(ranked)


def _record(report: EvalReport, opts: EvalOptions, problems: list[EvalProblem]) -> bool:
    db = opts.metrics_db or default_db_path(opts.output)
    rows: list[dict[str, Any]] = []
    for m in report.methods:
        for d in m.docs:
            # Nothing was measured without a reference: its scores stay NULL and its status says why (the
            # printed mean, and the report's, count it as 0).
            measured = (d.scores or ZERO).as_dict() if d.status != "no_reference" else dict.fromkeys(ZERO.as_dict())
            rows.append(
                {
                    "eval_id": report.eval_id,
                    "created_at": report.created_at,
                    "dataset": report.dataset,
                    "method": m.method if m.method != AS_IS else BATCHSUM,
                    "doc_id": d.doc_id,
                    **measured,
                    "compression_ratio": d.compression_ratio,
                    "seconds": d.seconds,
                    "budget": m.budget,
                    "status": d.status,
                }
            )
    try:
        MetricsStore(db, db.parent / "parquet").record_evals(rows)
    except MetricsError as exc:
        problems.append(_problem("metrics", db, f"results not recorded: {exc}"))
        return False
    return True


def evaluate(opts: EvalOptions, progress: Progress | None = None) -> EvalReport:
    """Run the whole evaluation described by ``opts`` and return its report."""
    opts.budget = parse_budget(opts.budget)
    unknown = [m for m in opts.methods if m not in BASELINES]
    if unknown:
        raise ConfigError(f"unknown baseline(s): {', '.join(unknown)} (choose from {', '.join(BASELINES)})")
    if opts.tree:  # before any work: a folder that is no tree would only give a warning per document
        require_tree(opts.output)
    problems: list[EvalProblem] = []
    docs = collect(opts, problems)
    scored_docs = [d for d in docs if d.has_reference or not opts.only_present]
    if progress:
        progress(f"{len(docs)} documents, {sum(d.has_reference for d in docs)} with a reference")
        progress("summarizing with batchsum" if not opts.tree else f"reading summaries from {opts.output}")
    own, own_secs = batchsum_summaries(opts, docs, problems)
    count = get_tokenizer(opts.encoding).count

    truncation: dict[str, list[int | None]] = {}
    gen_budget: dict[str, int | None] = {}
    for doc in scored_docs:
        own_words = word_count(own[doc.doc_id]) if doc.doc_id in own else None
        truncation[doc.doc_id], gen = _budgets(opts.budget, doc, own_words)
        gen_budget[doc.doc_id] = gen

    label = _budget_label(opts.budget)
    own_seconds = {d.doc_id: own_secs for d in scored_docs if d.doc_id in own}
    methods: list[MethodResult] = []
    if opts.budget is not None:
        methods.append(_score_method(BATCHSUM, label, docs, own, own_seconds, truncation, gen_budget, opts, count))
        no_trunc: dict[str, list[int | None]] = {k: [None] * len(v) for k, v in truncation.items()}
        methods.append(_score_method(AS_IS, "none", docs, own, own_seconds, no_trunc, {}, opts, count))
    else:
        methods.append(_score_method(BATCHSUM, label, docs, own, own_seconds, truncation, {}, opts, count))

    if opts.baselines:
        tasks = [
            (method, d.doc_id, d.text, gen_budget[d.doc_id] or 0)
            for method in opts.methods
            for d in scored_docs
            if d.text is not None and d.has_reference
        ]
        if progress:
            progress(f"running {len(opts.methods)} baselines on {len({t[1] for t in tasks})} documents")
        outputs = run_baselines(tasks, max(1, opts.jobs), progress, cache=opts.cache)
        base_label = label if opts.budget is not None else "match"
        for method in opts.methods:
            texts = {doc_id: text for (m, doc_id), (text, _s) in outputs.items() if m == method}
            secs: dict[str, float | None] = {doc_id: s for (m, doc_id), (_t, s) in outputs.items() if m == method}
            methods.append(_score_method(method, base_label, docs, texts, secs, truncation, gen_budget, opts, count))

    ranks, n_ranked = _rank(methods)
    docs_dir = opts.docs_dir.resolve()
    dataset = opts.dataset or (docs_dir.parent.name if docs_dir.name == "docs" else docs_dir.name)
    report = EvalReport(
        eval_id=uuid.uuid4().hex[:12],
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        dataset=dataset,
        budget=label,
        docs_dir=Path(os.path.abspath(opts.docs_dir)),
        refs_dir=Path(os.path.abspath(opts.refs_dir)),
        out=Path(os.path.abspath(opts.output)),
        n_documents=len(docs) if not opts.only_present else len(scored_docs),
        n_with_reference=sum(1 for d in docs if d.has_reference),
        methods=methods,
        problems=problems,
        ranks=ranks,
        n_ranked=n_ranked,
        metrics_recorded=False,
        failed=sum(1 for d in scored_docs if d.has_reference and d.doc_id not in own),
        kept_whole=sum(1 for d in scored_docs if d.text is not None and d.tokens < Thresholds().none),
    )
    if opts.metrics:
        report.metrics_recorded = _record(report, opts, problems)
    return report
