"""Search every summary of an output folder.

1. Retrieve ``k*3`` candidates per level (L1, L2, L3: a collapsed-tree search) by cosine similarity of
   the static vectors (:mod:`batchsum.index.dense`: exact over search's own copy of the vectors, or
   Chroma with ``--chroma-host``), and ``k`` per level by BM25 over the nodes' summaries and the source
   passages they summarize (:mod:`batchsum.index.lexical`): the words a summary dropped still find its node.
2. Score each candidate with an absolute relevance in 0..1, comparable across queries: the weighted mean
   of the *coverage* of its best passage (the share of the query's idf weight whose words it holds),
   the cosine mapped from the range where unrelated texts and paraphrases fall, and the passage's BM25
   over a *reference* (the BM25 of a passage holding every query word once), capped at 1. So 1.000 needs
   every query word in one passage, with BM25 at least the reference and a summary as close as a
   paraphrase; a query about words that appear nowhere scores from the meaning side alone, low.
   With ``--reranker`` an ONNX cross-encoder's probability replaces it. Candidates below
   :data:`MIN_RELEVANCE` are not hits: a query nothing answers gets none.
3. Rank documents by the *fused* relevance, not the readable one: ``WEIGHT_BM25 · rollup / reference +
   WEIGHT_MEANING · calibrated cosine`` (the document's rollup: its best passage plus a share of its
   next best, see :data:`~batchsum.index.rollup.ROLLUP_PASSAGES`; the cosine of its closest candidate
   node), uncapped (a passage repeating the query's rare words outranks one that merely holds them);
   a document's nodes are ordered by their own best passage; whole matches (a passage holding every query
   term the index holds, :mod:`batchsum.index.rollup`) rank above the other documents, and a Markdown page
   whose title holds them all (:func:`batchsum.index.passages.page_title`) above those; plus
   ``RECENCY_BONUS * recency * (1 - min(1, fused))``: a recent dated document moves up among equally
   relevant ones; an undated document (its only date is when the file was copied) gets no bonus. The
   readable relevance of step 2 (with the same recency bonus) is what is shown, never increasing down
   the list: a hit is never shown as more relevant than one ranked above it; hits shown with equal scores are
   listed the more recent first (:func:`~batchsum.index.match_tiers.shown_order`).
4. MMR with λ = 0.7 over the fused rank picks the final ``k``, diversifying by source: near-copies
   (cosine ≥ 0.92 to a hit already chosen) and repeated snippets are dropped (never a month's digest for its
   year's, or the year's for the month's), a second node of an
   already chosen source comes after every other source, also as shown; the hits are shown in rank order.
5. The snippet is the passage that matched (:mod:`batchsum.index.snippets`): whole sentences of the
   source when the words were found there, else the best sentences of the summary.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import re
import sqlite3
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from batchsum.errors import ConfigError, IndexError_
from batchsum.index.analysis import day_term, due_term, sibling_stems
from batchsum.index.asked_periods import (
    DUPLICATE_SIM,
    asked_relevance,
    digests_after_their_entries,
    in_asked_period,
    named_day,
    named_day_first,
    named_digests,
    nested_periods,
    own_day,
    period_digits_out,
    period_entries,
    placed_by_periods,
    written_on,
    written_since,
)
from batchsum.index.chroma import refused_error
from batchsum.index.dense import DenseIndex, matching_sources, open_dense
from batchsum.index.embed import get_embedder
from batchsum.index.hit_texts import node_text, own_text, passage_shown
from batchsum.index.lexical import (
    Evidence,
    LexFilter,
    LexicalStore,
    layout_note,
    lexical_path,
    query_languages,
    query_tokens,
    unheld_words,
)
from batchsum.index.match_tiers import first_shown, may_repeat, own_words_held, shown_order, whole_matches_first
from batchsum.index.readonly import readable_index
from batchsum.index.records import date_to_ts
from batchsum.index.rerank import cross_encoder
from batchsum.index.rollup import window_span
from batchsum.index.snippets import QueryWords
from batchsum.index.state import chroma_location, completeness, recorded_server
from batchsum.model import CONTENT_TYPES, doc_id_of
from batchsum.periods import days_named, digest_folder

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.rerank import Reranker

log = logging.getLogger(__name__)

CANDIDATES_PER_LEVEL = 3  # x k, dense channel
LEXICAL_PER_LEVEL = 1  # x k, lexical channel (it mostly adds nodes the dense pool already holds)
# Absolute relevance (calibrated on the QMSum queries and on queries about nothing in the corpus).
WEIGHT_COVERAGE = 0.7  # of the share of the query (by idf) the best passage holds
WEIGHT_COSINE = 0.3
COSINE_FLOOR = 0.1  # static-vector cosine of unrelated texts (0.0-0.2): relevance 0 from the meaning side
COSINE_FULL = 0.5  # and of a paraphrase (0.4-0.5; a near-copy is 0.8-0.95): 1
MIN_RELEVANCE = 0.2  # below: not a hit ("no good match")
WEIGHT_EVIDENCE = 0.3  # of BM25 / reference (capped at 1: a passage holding each query word once)
# Ranking (fused relevance): BM25 over the reference and the calibrated cosine, uncapped.
WEIGHT_BM25 = 0.7
WEIGHT_MEANING = 0.3
SAME_SOURCE_PENALTY = 1.0  # MMR penalty of a node whose source is already among the hits (as for cosine 1.0)
# What search passes instead: documents are ranked (:func:`rolled_up`), so another node of a source
# already shown comes after every other candidate source (0.7 * 1 - 0.3 * 2.5 < 0).
SHOWN_SOURCE_PENALTY = 2.5
# Weight of MMR's similarity penalty between nodes of different sources. 0: a relevant file is never
# pushed down for resembling another relevant file.
CROSS_SOURCE_SIMILARITY = 0.0
RECENCY_BONUS = 0.15
RECENCY_DAYS = 30.0
MMR_LAMBDA = 0.7
LEVELS = ("1", "2", "3", "final", "period")  # period: month, year and folder digests (level 4)
EMBEDDER_LANGUAGES = frozenset({None, "", "en"})  # what the static embedder reads (None: no language recorded)


@dataclass
class SearchHit:
    """One search result."""

    rank: int
    score: float  # relevance with the recency bonus, 0..1
    relevance: float  # absolute relevance, 0..1, comparable across queries
    recency: float  # exp(-age_days/30); 0 when the document has no real date
    similarity: float  # cosine of query and summary embeddings
    node_id: str
    level: int
    is_final: bool
    doc_id: str
    source_path: str
    doc_date: str | None
    content_type: str | None
    summary_path: Path  # the node's Markdown file
    snippet: str
    terms: list[str]  # query terms found in the snippet (for highlighting)
    snippet_from: str = "summary"  # "source" when the snippet is the source passage that matched

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        d = asdict(self)
        d["summary_path"] = str(self.summary_path)
        return d


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scale to 0..1; all-equal scores become 1.0 (nothing to tell them apart)."""
    if scores.size == 0:
        return scores.astype(np.float32)
    finite = np.where(np.isfinite(scores), scores, np.nan)
    lo, hi = np.nanmin(finite), np.nanmax(finite)
    if not np.isfinite(lo) or hi - lo < 1e-9:
        return np.ones_like(scores, dtype=np.float32)
    return np.nan_to_num((finite - lo) / (hi - lo), nan=0.0).astype(np.float32)


def recency(doc_ts: int | None, today: date) -> float:
    """``exp(-age_days/30)`` of a document date (future dates count as today; no date: 0)."""
    if doc_ts is None:
        return 0.0
    today_ts = datetime(today.year, today.month, today.day, tzinfo=UTC).timestamp()
    age_days = max(0.0, (today_ts - doc_ts) / 86400.0)
    return math.exp(-age_days / RECENCY_DAYS)


def mmr(
    scores: np.ndarray,
    vectors: np.ndarray,
    k: int,
    lam: float = MMR_LAMBDA,
    duplicate: float = DUPLICATE_SIM,
    groups: list[str] | None = None,
    group_penalty: float = SAME_SOURCE_PENALTY,
    cross_group: float = 1.0,
    copyable: np.ndarray | None = None,
) -> list[int]:
    """Maximal marginal relevance: up to ``k`` indices, each maximizing ``λ·score − (1−λ)·max_sim(selected)``.

    Candidates at cosine ``duplicate`` or more to an already chosen one are dropped outright: with
    λ = 0.7 the penalty alone lets a clearly more relevant near-copy (an L1 and the L3 that repeats it)
    outrank a different, slightly less relevant hit. With ``groups`` (the source of each candidate),
    a candidate whose group is already chosen counts as at least ``group_penalty`` similar (never dropped
    for it): another node of the same file must be clearly more relevant than a hit from a new file;
    the similarity penalty between candidates of different groups is scaled by ``cross_group`` (0: only
    near-copies and groups diversify). ``copyable`` (n x n, bool) says which pairs may be near-copies at
    all (default: every pair); a pair it excludes is never dropped for its cosine.
    """
    n = len(scores)
    if n == 0:
        return []
    # einsum, not BLAS: a threaded BLAS product this small only wakes spinning threads that then fight
    # onnxruntime's for the cores (on 2 cores it doubled search latency).
    sims = np.einsum("id,jd->ij", vectors, vectors)
    penalties = sims
    copies = sims if copyable is None else np.where(copyable, sims, -1.0)
    if groups is not None:
        codes: dict[str, int] = {}
        group = np.array([codes.setdefault(g, len(codes)) for g in groups], dtype=np.int64)
        same = group[:, None] == group[None, :]
        penalties = np.where(same, np.maximum(sims, group_penalty), cross_group * sims)
    chosen: list[int] = []
    alive = np.ones(n, dtype=bool)
    # Each candidate's highest copy cosine and penalty to the chosen ones, updated as each is chosen.
    closest = np.full(n, -np.inf, dtype=sims.dtype)
    penalty = np.zeros(n, dtype=sims.dtype)
    while alive.any() and len(chosen) < k:
        values = np.where(alive, lam * scores - (1 - lam) * penalty, -np.inf)
        pick = int(np.argmax(values))
        chosen.append(pick)
        alive[pick] = False
        closest = np.maximum(closest, copies[:, pick])
        penalty = np.maximum(penalty, penalties[:, pick]) if len(chosen) > 1 else penalties[:, pick]
        alive &= closest < duplicate
    return chosen


_ID_LEVEL = re.compile(r":summary:L([1234]):[^:]*$")


def _own_words(
    cfg: IndexConfig, dense: DenseIndex, q: str, lex: LexicalResult, candidates: list[str]
) -> tuple[dict[str, int], list[str]]:
    """:func:`~batchsum.index.match_tiers.own_words_held` of the documents the lexical channel scored, one more for a
    whole match by the query words' own stems, not through a sibling only ("#decision" had ranked below "decided"
    and "decidedly" for "decision"), and the best node of each that holds more of the query's words as written than
    a document of ``candidates`` does: one too (the candidates of three German "gar" had left out the French "gare"
    the query wrote)."""
    rows = dense.rows(sorted(lex.best.values()))
    meta = {d: rows[n].metadata for d, n in lex.best.items() if n in rows}
    held = own_words_held(q, meta, lambda d: own_text(cfg, meta[d], lex.evidence.get(lex.best[d])), lex.languages)
    present = {doc_id_of(i) for i in candidates}
    least = min((held.get(d, 0) for d in present if d in lex.best), default=0)
    more = [lex.best[d] for d in sorted(held) if held[d] > least and d not in present]
    return {d: held.get(d, 0) + (d in lex.own_stemmed) for d in {*held, *lex.own_stemmed}}, more


def validate_query(
    query: str, k: int, level: str | None, content_type: str | None, reranker: Path | None = None
) -> str:
    """Check the search arguments; return the stripped query or raise ConfigError."""
    q = query.strip()
    if not q:
        raise ConfigError('empty query: give some words to search for, e.g. batchsum search "budget decision"')
    if k < 1:
        raise ConfigError(f"-k {k}: ask for at least 1 result")
    if level is not None and level not in LEVELS:
        raise ConfigError(f"--level {level}: use 1, 2, 3, final or period")
    if content_type is not None and content_type not in CONTENT_TYPES:
        raise ConfigError(f"--type {content_type}: use one of {', '.join(CONTENT_TYPES)}")
    if reranker is not None and not reranker.exists():
        raise ConfigError(f"--reranker {reranker}: no such file or folder")
    return q


def search(
    cfg: IndexConfig,
    query: str,
    *,
    k: int = 5,
    level: str | int | None = None,
    content_type: str | None = None,
    path_glob: str | None = None,
    since: date | str | None = None,
    reranker: Path | None = None,
    today: date | None = None,
    strict: bool = False,
    warn: bool = True,
    snippets: bool = True,
) -> list[SearchHit]:
    """Search the output's summaries; best first, only hits of at least :data:`MIN_RELEVANCE`.

    ``today`` fixes the recency reference (default: now). An incomplete index (an interrupted run,
    a missing part) is searched with a logged warning (``warn``; the CLI prints its own), or with
    ``strict`` refused (IndexError_). ``snippets=False`` leaves every hit's snippet empty (a caller that
    reads the hits' summaries saves reading their sources); a hit whose source passage repeats one
    already shown is still dropped, one whose summary snippet would repeat is kept (3 of QMSum's 237
    queries get another hit list).
    """
    if not isinstance(query, str):  # the library's callers: the command gives a string
        raise ConfigError(f"query {query!r}: give the words to search for as a string")
    level = None if level is None else str(level)  # search(level=3) as --level 3
    if isinstance(since, str):
        try:
            since = date.fromisoformat(since)
        except ValueError:
            raise ConfigError(f"since {since!r}: use a date, or a string like 2026-10-01") from None
    q = validate_query(query, k, level, content_type, reranker)
    with readable_index(cfg) as readable:
        return _search_output(readable, q, k, level, content_type, path_glob, since, reranker, today, strict, warn,
                              snippets)  # fmt: skip


def _search_output(
    cfg: IndexConfig,
    q: str,
    k: int,
    level: str | None,
    content_type: str | None,
    path_glob: str | None,
    since: date | None,
    reranker: Path | None,
    today: date | None,
    strict: bool,
    warn: bool,
    snippets: bool = True,
) -> list[SearchHit]:
    found = completeness(cfg)
    if found is not None:
        fatal, message = found
        if strict or fatal:
            raise IndexError_(message)
        if warn:
            log.warning("%s", message)
    remote = recorded_server(cfg)
    if remote is not None:  # runs write the local files whichever Chroma they use: search needs no server
        log.info("searching the local copy of the index in %s (its Chroma store of record: server %s)",
                 cfg.state_dir, chroma_location(remote))  # fmt: skip
    ranker: Reranker | None = cross_encoder(reranker) if reranker is not None else None
    embedder = get_embedder(cfg)
    dense = open_dense(cfg, embedder)
    with contextlib.closing(dense):
        filt = LexFilter(level=level, content_type=content_type)
        if since is not None:
            filt.since_ts, filt.later = date_to_ts(since), written_since(cfg, since)
        if path_glob:
            sources = matching_sources(dense.sources(), path_glob)
            if not sources:
                return []
            filt.sources = set(sources)
        return _search(cfg, dense, embedder, ranker, q, k, filt, today or datetime.now(UTC).date(), snippets)


@dataclass
class LexicalResult:
    """What the lexical channel says about a query."""

    scores: dict[str, float]  # node id -> best BM25 passage score
    candidates: list[str]  # the best nodes of each level (of the documents with the best ``rollup``)
    reference: float  # BM25 of a passage holding each query word once
    evidence: dict[str, Evidence]
    groups: list[list[str]]  # the query's terms (see :func:`batchsum.index.analysis.query_groups`)
    rollup: dict[str, float] = field(default_factory=dict)  # doc id -> its rollup (LexicalStore.last_rollup)
    weights: list[float] | None = None  # each group's idf (LexicalStore.last_weights), for the snippets
    complete: set[str] = field(default_factory=set)  # whole matches (LexicalStore.last_complete)
    phrased: set[str] = field(default_factory=set)  # whole matches holding the query as a phrase (last_phrased)
    titled: set[str] = field(default_factory=set)  # pages whose title holds the query (LexicalStore.last_titled)
    own_stemmed: set[str] = field(default_factory=set)  # whole matches by the words' own stems (last_own_stemmed)
    days: list[str] = field(default_factory=list)  # the day terms of the days the query names, for the snippets
    languages: list[str | None] = field(default_factory=list)  # the languages of the indexed documents

    @functools.cached_property
    def words(self) -> QueryWords:
        """Which words stem to the query's terms, shared by the snippets of its candidates."""
        return QueryWords(self.groups)

    @functools.cached_property
    def best(self) -> dict[str, str]:
        """Doc id -> its node of the best score."""
        return {doc_id_of(n): n for n in sorted(self.scores, key=lambda n: (self.scores[n], n))}


def _by_meaning_only(path: Path, exc: sqlite3.Error) -> None:
    """Warn that the lexical index at ``path`` failed (``exc``) and the search goes on by meaning: the system
    refusing the file (out of descriptors) is said as such (:func:`~batchsum.index.chroma.refused_error`), not
    called unreadable."""
    refused = refused_error("the lexical index", path, exc)
    if refused is not None:
        log.warning("%s; searching by meaning only", refused)
    else:
        log.warning("lexical index %s unreadable (%s); searching by meaning only", path, exc)


def lexical_candidates(
    cfg: IndexConfig, query: str, per_level: int, filt: LexFilter, focus_docs: set[str], terms: Any = None
) -> LexicalResult:
    """BM25 scores of the nodes the query's words (or ``terms``, groups of index terms) reach, and the
    ``per_level`` best of each level as new candidates. An output without a (current) lexical index has none."""
    empty = LexicalResult({}, [], 0.0, {}, query_tokens(query))
    path = lexical_path(cfg)
    if not path.is_file():
        return empty
    try:
        store = LexicalStore(path, keep_outdated=True)
    except sqlite3.Error as exc:
        _by_meaning_only(path, exc)
        return empty
    if store.outdated:
        store.close()
        log.warning("%s", layout_note(path, cfg.index_command()))
        return empty
    with contextlib.closing(store):
        try:
            languages = store.languages()
            groups = terms or query_tokens(query, languages) or unheld_words(query, languages)
            made_by = query_languages(query, languages)
            siblings = frozenset() if terms else sibling_stems(query, languages)
            scores = store.scores(groups, filt, focus_docs, made_by, window_span(query), siblings)
        except sqlite3.Error as exc:  # searching still works by meaning; `index --rebuild` repairs it
            _by_meaning_only(path, exc)
            return empty
        reference, evidence, rollup = store.last_reference, store.last_evidence, store.last_rollup
        # A digest's passage runs on from one file's words into the next's: holding them all is no whole match.
        complete = store.last_complete - {doc_id_of(i) for i in scores if ":summary:L4:" in i}
        titled, phrased = store.last_titled & complete, store.last_phrased & complete
        own_stemmed = store.last_own_stemmed & complete
        weights = [store.last_weights.get(tuple(g), 0.0) for g in groups]
    by_level: dict[str, list[str]] = {}

    def tier(nid: str) -> int:
        return (doc_id_of(nid) in complete) + (doc_id_of(nid) in titled) + (doc_id_of(nid) in phrased)

    def own(nid: str) -> int:
        return doc_id_of(nid) in own_stemmed

    for nid in sorted(scores, key=lambda i: (-tier(i), -own(i), -rollup.get(doc_id_of(i), 0.0), -scores[i])):
        m = _ID_LEVEL.search(nid)
        got = by_level.setdefault(m.group(1) if m else "?", [])
        if len(got) < per_level:
            got.append(nid)
    candidates = [nid for got in by_level.values() for nid in got]
    return LexicalResult(scores, candidates, reference, evidence, groups, rollup, weights, complete, phrased, titled,
                         own_stemmed=own_stemmed, languages=languages)  # fmt: skip


def relevance_of(
    cosine: np.ndarray,
    coverage: np.ndarray | None,
    evidence: np.ndarray | None = None,
    words_only: np.ndarray | None = None,
) -> np.ndarray:
    """Absolute relevance in 0..1 (see the module docstring).

    ``coverage``: the share of the query's weight (idf) that the node's best passage holds; ``evidence``:
    that passage's BM25 over the reference score. Without a lexical channel (None) the calibrated cosine
    alone. ``words_only``: nodes the embedder cannot read (another language), judged by their words
    alone: the meaning's share is left out of their mean, so a full match is 1.0 there too (it had
    stopped at 0.769, where every exact hit tied)."""
    meaning = np.clip((cosine - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR), 0.0, 1.0)
    if coverage is None:
        return meaning.astype(np.float32)
    strength = np.clip(evidence, 0.0, 1.0) if evidence is not None else np.clip(coverage, 0.0, 1.0)
    words = WEIGHT_COVERAGE * np.clip(coverage, 0.0, 1.0) + WEIGHT_EVIDENCE * strength
    both = (words + WEIGHT_COSINE * meaning) / (WEIGHT_COVERAGE + WEIGHT_COSINE + WEIGHT_EVIDENCE)
    if words_only is None:
        return both.astype(np.float32)
    return np.where(words_only, words / (WEIGHT_COVERAGE + WEIGHT_EVIDENCE), both).astype(np.float32)


def fused_of(cosine: np.ndarray, bm25_ratio: np.ndarray | None) -> np.ndarray:
    """The ranking strength: ``WEIGHT_BM25 * BM25 / reference + WEIGHT_MEANING * calibrated cosine``, uncapped
    (1.0 is a full answer, more is more evidence). Without a lexical channel (None) the calibrated cosine."""
    meaning = np.clip((cosine - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR), 0.0, 1.0)
    if bm25_ratio is None:
        return meaning.astype(np.float32)
    return (WEIGHT_BM25 * np.maximum(bm25_ratio, 0.0) + WEIGHT_MEANING * meaning).astype(np.float32)


def rolled_up(ids: list[str], cosine: np.ndarray, evidence: np.ndarray, lex: LexicalResult) -> np.ndarray:
    """Each candidate's rank strength as its document's (a document is ranked, then its best node shown):
    :func:`fused_of` with the document's rollup (its best passage plus a share of its next best) and the
    best meaning of its candidate nodes, plus a thousandth of the node's own strength (``evidence``: its
    best passage's BM25 over the reference) to order the nodes of one document."""
    reference = max(lex.reference, 1e-9)
    docs = [doc_id_of(i) for i in ids]
    doc_cosine: dict[str, float] = {}
    for doc, c in zip(docs, cosine.tolist(), strict=True):
        doc_cosine[doc] = max(doc_cosine.get(doc, -1.0), c)
    own = fused_of(cosine, evidence)
    whole = fused_of(np.array([doc_cosine[d] for d in docs], np.float32),
                     np.array([lex.rollup.get(d, 0.0) for d in docs], np.float32) / reference)  # fmt: skip
    return (whole + 1e-3 * own).astype(np.float32)


def _shown_date(md: dict[str, Any]) -> str | None:
    """A hit's date: its source's, when the text says when it was written, or a month's or a year's
    digest's period ("2024-04", "1826"); None for an undated file or a folder's digest."""
    if md.get("dated"):
        return str(md.get("doc_date"))
    path = str(md.get("source_path", ""))
    if md.get("level") == 4 and digest_folder(path) is None:
        return Path(path).stem
    return None


def _copyable(groups: list[str], metadata: list[dict[str, Any]], nested: np.ndarray | None = None) -> np.ndarray:
    """Which pairs of candidates can be near-copies by their vectors: nodes of one source (an L1 and the
    final that repeats it), a period digest with anything (it repeats its entries) but its own month or year
    (``nested``, :func:`~batchsum.index.asked_periods.nested_periods`), and two English nodes.
    The static embedder knows English only: it gives any two texts of another language a cosine near
    0.96, so there it cannot tell a copy from a different document."""
    codes: dict[str, int] = {}
    group = np.array([codes.setdefault(g, len(codes)) for g in groups], dtype=np.int64)
    digest = np.array([md.get("level") == 4 for md in metadata], dtype=bool)
    english = np.array([md.get("language") in EMBEDDER_LANGUAGES for md in metadata], dtype=bool)
    same = group[:, None] == group[None, :]
    nested = nested_periods(metadata) if nested is None else nested
    return (same | digest[:, None] | digest[None, :] | (english[:, None] & english[None, :])) & ~nested


def _rows(keep: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """The ``keep`` rows of each array."""
    return [a[keep] for a in arrays]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))).astype(np.float32)


def _day_writers(cfg: IndexConfig, q: str, filt: LexFilter, per_level: int) -> set[str]:
    """The nodes whose text writes a day ``q`` names, in any language ("## 7月11日" for "11 July": its day term,
    :func:`~batchsum.index.analysis.day_term`), or whose Facets print a task due that day (its due term): no period
    digest, which quotes its entries, but at ``--level period``, whose texts the digests are (a month's "**12
    March.**": "12 March 2024" had found no match there)."""
    days = days_named(q)
    if not days:
        return set()
    terms = [t for d in days for t in (day_term(d), due_term(d))]
    found = lexical_candidates(cfg, "", per_level, filt, set(), [list(dict.fromkeys(terms))])
    return {nid for nid in found.scores if ":summary:L4:" not in nid or filt.level == "period"}


def _search(
    cfg: IndexConfig,
    dense: DenseIndex,
    embedder: Any,
    ranker: Reranker | None,
    q: str,
    k: int,
    filt: LexFilter,
    today: date,
    snippets: bool = True,
) -> list[SearchHit]:
    # Stage 1: per-level candidates from the vectors and from BM25.
    qvec = embedder.embed([q])[0]
    cands = dense.nearest(qvec, k * CANDIDATES_PER_LEVEL, filt)
    words, on_day, day_share = named_day(dense, q, filt)
    in_period, period_share = period_entries(dense, q, qvec, k, filt)
    words = period_digits_out(words, q)
    lex = lexical_candidates(cfg, words, k * LEXICAL_PER_LEVEL, filt, {doc_id_of(i) for i in [*cands, *in_period]})
    lex.days = [day_term(d) for d in days_named(q)]  # a day's entry is shown by that day's text
    asked = named_digests(q, filt)
    writing = _day_writers(cfg, q, filt, k * LEXICAL_PER_LEVEL)
    own_words, own_best = _own_words(cfg, dense, q, lex, [*cands, *lex.candidates]) if ranker is None else ({}, [])
    ids = list(dict.fromkeys([*cands, *lex.candidates, *asked, *in_period, *sorted(on_day), *sorted(writing),
                             *own_best]))  # fmt: skip
    if not ids:
        return []

    # Stage 2: absolute relevance.
    rows = dense.rows(ids)
    # A lexical hit the vectors do not hold (a sync interrupted between the two) cannot be shown.
    ids = [i for i in ids if i in rows and rows[i].embedding.size]
    if not ids:
        return []
    matrix = np.stack([rows[i].embedding for i in ids]).astype(np.float32)
    matrix = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    qunit = np.asarray(qvec, dtype=np.float32) / max(float(np.linalg.norm(qvec)), 1e-12)
    cosine = np.einsum("id,d->i", matrix, qunit)
    # The static embedder reads English only: it gives every text of another language a near-constant
    # vector, so its cosine there says nothing (a Chinese query about nothing in the corpus had scored
    # 0.231 on meaning alone against every non-English node, above the floor). Such nodes are judged by
    # their words.
    foreign = np.array([rows[i].metadata.get("language") not in EMBEDDER_LANGUAGES for i in ids], dtype=bool)
    if foreign.any():
        cosine = np.where(foreign, np.minimum(cosine, COSINE_FLOOR), cosine).astype(np.float32)
    texts: dict[str, str] = {}
    if ranker is not None:
        texts = {i: node_text(cfg, rows[i].metadata) for i in ids}
        relevance = _sigmoid(ranker.score(q, [texts[i] for i in ids]))
        evidence = coverage = np.zeros_like(relevance)
        strength = relevance
    else:
        coverage = np.array([lex.evidence[i].coverage if i in lex.evidence else 0.0 for i in ids], np.float32)
        # BM25 over the reference: how strongly the best passage answers (repeated words, a short passage).
        evidence = np.array([lex.scores.get(i, 0.0) for i in ids], np.float32) / max(lex.reference, 1e-9)
        # A query of a day or a period alone has no words a text could hold: its entries hold it by their dates.
        lexical = lex.reference > 0 or bool(on_day) or bool(in_period)
        relevance = relevance_of(cosine, coverage if lexical else None, evidence, foreign)
        strength = rolled_up(ids, cosine, evidence, lex) if lexical else fused_of(cosine, None)
    # A period or day the query names ("2024-04", "2024年4月发生了什么", "15 May 1826") is what was asked for.
    day_texts = on_day | written_on(writing, {i: rows[i].metadata for i in ids}, days_named(q))
    held = relevance_of(cosine, day_share + (1 - day_share) * coverage, evidence + day_share, foreign)
    # An entry of a month or year the query names holds the period's words by its date, as a day's does.
    of_period = in_asked_period([rows[i].metadata for i in ids], q)
    relevance[of_period] = np.maximum(relevance, relevance_of(cosine, period_share + (1 - period_share) * coverage,
                                                              evidence + period_share, foreign))[of_period]  # fmt: skip
    dated = asked_relevance(relevance, ids, asked, day_texts, q, held)
    rec = np.array([recency(rows[i].recency_ts, today) for i in ids], dtype=np.float32)
    final = relevance + RECENCY_BONUS * rec * (1.0 - relevance)
    # Rank by the fused strength (the readable score is for people: ranking by it cost recall);
    # recency breaks near-ties among dated documents.
    ranked = strength + RECENCY_BONUS * rec * (1.0 - np.minimum(strength, 1.0)) + 1e-6 * rec
    if ranker is None:
        own = np.array([own_words.get(doc_id_of(i), 0) for i in ids], dtype=np.float32)
        ranked = whole_matches_first(ranked, ids, lex.complete, lex.titled, lex.phrased, own)
    keep = np.flatnonzero(relevance >= MIN_RELEVANCE)
    if not len(keep):
        return []
    ids = [ids[i] for i in keep]
    matrix, cosine, relevance, rec, final, ranked, coverage, dated = _rows(keep, matrix, cosine, relevance, rec, final,
                                                                          ranked, coverage, dated)  # fmt: skip
    ranked = digests_after_their_entries(ranked, matrix, [rows[i].metadata for i in ids], coverage, q)
    ranked = named_day_first(ranked, dated, own_day(ids, on_day, [rows[i].metadata for i in ids]))

    # Stage 3: MMR (one source per hit where possible), repeated snippets dropped, ordered as shown, the first k.
    texts_of = _first_shown(cfg, q, k, ids, rows, lex, texts, snippets, ranked, final, matrix, dated, own_words)
    listed = list(texts_of)
    chosen = [(ids[i], rows[ids[i]].metadata, *texts_of[i]) for i in listed]
    # The shown score is capped by the hits above it as listed (_hits), not as ranked before the reordering.
    scores = [(float(final[i]), float(relevance[i]), float(rec[i]), float(cosine[i])) for i in listed]
    return _hits(cfg, chosen, scores)


def _first_shown(
    cfg: IndexConfig,
    q: str,
    k: int,
    ids: list[str],
    rows: dict[str, Any],
    lex: LexicalResult,
    texts: dict[str, str],
    snippets: bool,
    ranked: np.ndarray,
    final: np.ndarray,
    matrix: np.ndarray,
    dated: np.ndarray,
    own_words: dict[str, int],
) -> dict[int, tuple[str, list[str], str]]:
    """The ``k`` hits as listed with their (snippet, terms, origin): every candidate in MMR's order, as
    :func:`~batchsum.index.match_tiers.first_shown` lists them (the top k is a prefix of the top k+1)."""
    metadata = [rows[i].metadata for i in ids]
    groups = [doc_id_of(i) for i in ids]
    nested = nested_periods(metadata)
    # MMR weighs relevance against similarity (0..1): on the best candidate's scale, so a second node of a
    # source already shown needs the same lead over a new source whatever the query's BM25 scale.
    order = mmr(ranked / max(float(ranked.max()), 1e-9), matrix, len(ids), groups=groups,
                group_penalty=SHOWN_SOURCE_PENALTY, cross_group=CROSS_SOURCE_SIMILARITY,
                copyable=_copyable(groups, metadata, nested))  # fmt: skip
    tiers = [(float(sum(g in s for s in (lex.complete, lex.titled, lex.phrased))), float(own_words.get(g, 0)))
             for g in groups]  # fmt: skip
    fixed = dated | placed_by_periods(metadata, q)  # placed by other rules
    order_of = functools.partial(shown_order, ranked=ranked, final=final, source=groups,
                                 dated=[rows[i].recency_ts for i in ids], rank_class=tiers, fixed=fixed)  # fmt: skip

    def passage(i: int) -> tuple[str, list[str], str, str]:
        return passage_shown(cfg, ids[i], metadata[i], lex, texts.get(ids[i]), snippets)

    digest = np.array([md.get("level") == 4 for md in metadata], dtype=bool)
    foreign = np.array([md.get("language") not in EMBEDDER_LANGUAGES for md in metadata], dtype=bool)
    return first_shown(order, k, order_of, nested, passage, digest, may_repeat(groups, digest, foreign))


def _hits(
    cfg: IndexConfig,
    shown: list[tuple[str, dict[str, Any], str, list[str], str]],
    scores: list[tuple[float, float, float, float]],
) -> list[SearchHit]:
    """The hits as shown, in rank order: (node id, metadata, snippet, terms found, snippet origin) with
    (final score, relevance, recency, similarity) each."""
    hits: list[SearchHit] = []
    ceiling = 1.0  # the shown score never rises down the list
    for (nid, md, snippet, found, origin), (final, relevance, rec, cosine) in zip(shown, scores, strict=True):
        ceiling = min(ceiling, final)
        hits.append(
            SearchHit(
                rank=len(hits) + 1,
                score=round(ceiling, 4),
                relevance=round(relevance, 4),
                recency=round(rec, 4),
                similarity=round(cosine, 4),
                node_id=nid,
                level=int(md.get("level", 3)),
                is_final=bool(md.get("is_final", False)),
                doc_id=str(md.get("doc_id", "")),
                source_path=str(md.get("source_path", md.get("doc_id", ""))),
                doc_date=_shown_date(md),
                content_type=md.get("content_type"),
                summary_path=cfg.out / str(md.get("summary_path", "")),
                snippet=snippet,
                terms=found,
                snippet_from=origin,
            )
        )
    return hits
