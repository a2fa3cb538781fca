"""The extractive summarizer's one scorer: position-aware directed centrality over sentence similarity.

Method (PacSum, Zheng & Lapata 2019, "Sentence Centrality Revisited for Unsupervised Summarization"):
sentences are nodes of a graph whose edge weights are their similarities, pruned below a threshold
``beta`` of the similarity range; a sentence's centrality is the weighted sum of its edges, edges to
*later* sentences weighing 1 and edges to *earlier* ones ``backward_w`` (a negative weight makes a
sentence that later ones build on more central than one that repeats earlier ones). Similarity blends
lexical TF-IDF cosine (stemmed content words) with the cosine of static sentence vectors distilled
from the index's packaged MiniLM (:class:`batchsum.index.embed.StaticEmbedder`), weight ``vector_w``.
In the nodes of a long text (its chunks and the meta nodes over their summaries) the centrality takes
HipoRank's boundary-aware form (Dong, Mircea & Cheung 2021, "Discourse-Aware Unsupervised Summarization
for Long Scientific Documents"): "earlier" becomes "nearer a section boundary" (a chunk's headings, a
meta node's start and end of the text; where a chunk cuts the text is none), with weights
``section_backward_w`` and ``section_alpha``.
Relevance is that centrality times a length factor (content words, saturating at ``length_norm`` in a whole
text and at ``section_length_norm`` in a long text's nodes, where cosine centrality favours short lines of
the text's most frequent words) plus a
prior for the start of the text (``position_w``, decaying over a whole text's first sentences by their
index, ``position_decay``: :func:`opening_prior`) plus a salience signal for figures, a sentence's
amounts and rates per word (``figure_w``; Fattah & Ren 2009, "GA, MR, FFNN, PNN and GMM based models for
automatic text summarization", feature "sentence inclusion of numerical data": results are stated in
amounts and rates; a bare integer, which mostly counts or labels, is not one). Selection (in
:mod:`batchsum.backends.extractive`) is greedy MMR (Carbonell & Goldstein 1998) with weight
``redundancy``, plus a near-duplicate cut on word sets (resemblance, Broder 1997, "On the Resemblance
and Containment of Documents"): a unit that shares two or more content words with a pick and differs
from it in at most ``near_words`` is not taken. MMR's TF-IDF cosine misses such pairs when they differ
in their rarest words ("That's nine points of damage." / "That's ten points of damage.": the numbers
weigh most), and a long conversation then repeats one short turn a dozen times.

The same numbers serve every kind of text (conversations, journals, documents); they were fit by a
grid on the shared evaluation sets pooled and checked leave-one-genre-out (docs/eval.md).

A trained alternative (``Params.weights``): a logistic regression over the handful of
:data:`FEATURES` of each sentence (Kupiec, Pedersen & Chen 1995, "A Trainable Document Summarizer"),
fit on greedy ROUGE-oracle labels (Nallapati, Zhai & Zhou 2017, "SummaRuNNer") by
``bench/fit_scorer.py``. Leave-one-genre-out it scored no better than the rule above, so it is not
the default. Deterministic, numpy only (plus the packaged token table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from batchsum.backends.units import Unit
from batchsum.errors import IndexError_
from batchsum.index.embed import get_static_embedder

__all__ = [
    "FEATURES",
    "SCORER",
    "TRAINED_WEIGHTS",
    "Matrix",
    "Params",
    "carry_forward",
    "features",
    "opening_prior",
    "relevance",
    "rule_relevance",
    "trained_relevance",
]


# The features the relevance model weighs, each scaled to 0..1 within the node (a chunk, a whole
# text, or the child summaries of a meta node), so one set of weights serves nodes of every size.
FEATURES = ("centrality", "opening", "lead", "part_order", "length", "tfidf", "centroid", "centrality_x_length")


@dataclass(frozen=True)
class Params:
    """The scorer's parameters. The first nine are fit (one set for all text); the rest are fixed rules."""

    beta: float = 0.0  # PacSum edge threshold, as a share of the similarity range
    backward_w: float = -0.5  # PacSum lambda1: weight of edges to earlier sentences (later ones weigh 1)
    vector_w: float = 0.0  # share of the static sentence-vector cosine in the similarity
    length_norm: float = 2.0  # content words at which the length factor saturates (a whole text)
    position_w: float = 0.3  # prior for the opening of a whole text (or of the first parts of a meta node)
    position_decay: float = 2.0  # > 0: the whole text's prior decays as exp(-k / this) over its k-th sentence
    figure_w: float = 4.0  # weight of a sentence's share of amounts and rates (Fattah & Ren 2009's numerical data)
    section_backward_w: float = 0.5  # HipoRank (long texts): weight of edges to sentences nearer a boundary
    section_alpha: float = 0.3  # HipoRank's alpha: a sentence from a section's end counts alpha
    section_length_norm: float = 30.0  # length_norm in the nodes of a long text (chunks and their meta nodes)
    redundancy: float = 0.6  # MMR weight of the similarity to what is already chosen
    near_words: int = 2  # a near-duplicate of a pick: shares 2+ content words and differs in at most this many
    min_words: int = 5  # shorter units are context, not candidates
    max_overlap: float = 0.65  # hard redundancy cut (cosine)
    speaker_w: float = 0.3  # conversations: penalty for a speaker over their fair share of the summary
    coverage_w: float = 0.1  # meta: bonus for a part not yet represented (a book's: BOOK_COVERAGE, extractive.py)
    prior_w: float = 0.15  # rolling: carry-forward bonus for the previous final's sentences
    context_w: float = 0.1  # penalty for a sentence that opens by pointing back ("But ...")
    brief_max: int = 6  # BRIEF: most sentences on its line (only reached with short ones)
    # The trained alternative: logistic-regression weights over FEATURES (bench/fit_scorer.py); None: the
    # pooled fit, TRAINED_WEIGHTS. It counts only through trained_share.
    weights: tuple[float, ...] | None = None
    # The trained score's share of relevance, fused linearly with the rule's: 0 the PacSum rule alone
    # (the rule scored as well or better leave-one-genre-out, docs/eval.md), 1 the trained score alone.
    trained_share: float = 0.0


# Fit by grids on the shared sets pooled (tables on docs/eval.md): the PacSum five, then HipoRank's two
# (section_backward_w, section_alpha), then figure_w with position_w, then near_words and brief_max, then
# figure_w again when its feature became amounts and rates only (bare integers left out), on 1, 2 and 4:
# above 4 (the grid's best is 8, a gain made on the earnings calls alone) amounts outweigh what a text is
# about, and the sample corpus's planning-day entry lost its decision to its budget line. Then
# section_length_norm (4-100): flat within noise up to 50, best at 30.
# position_w is 0.3, not the first grid's 0: within the fit's noise (0.001-0.002 of the objective), and
# without it a short entry's one-line summary can lose the opening sentence that says what it is about.
# position_decay (2) with position_w (0.3) on a 4 x 3 grid: +0.21 +- 0.07 over the share-of-text prior
# (0.3 (1 - position)^2), from the diaries and short dialogues; weighting the prior by the node's size instead
# stayed within noise (+0.09 +- 0.10), and the decay in meta nodes too cost CRD3 (docs/eval.md).
SCORER = Params()

# Content words at which the trained scorer's length feature saturates.
LENGTH_SATURATION = 30.0

# The trained alternative's pooled weights over FEATURES (bench/fit_scorer.json, "pooled").
TRAINED_WEIGHTS = (0.2897, -0.0588, 0.3381, 0.1192, 0.7633, -0.3573, 0.2167, 0.3577)


def _cosines(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, n: int, batch: int = 1 << 22) -> np.ndarray:
    """The ``n × n`` dot products of the sparse rows, each summed term by term in one fixed order.

    Not a BLAS product: a threaded one rounds differently from one thread count to the next (a library
    caller's numpy, a worker's single thread), and a tie between two alike sentences then fell another way,
    so the same text gave another summary. The pairs of units sharing a term are added up ``batch`` at a time.
    """
    order = np.argsort(cols, kind="stable")  # by term, then by unit
    r, c, v = rows[order], cols[order], vals[order]
    sim = np.zeros(n * n)
    if not len(c):
        return sim.reshape(n, n)
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    sizes = np.diff(np.r_[starts, len(c)])
    per, first = np.repeat(sizes, sizes), np.repeat(starts, sizes)  # each entry's term: its units, first entry
    ends = np.cumsum(per)
    lo = 0
    while lo < len(c):
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + batch, side="right")))
        p = per[lo:hi]
        left = np.repeat(np.arange(lo, hi), p)
        right = np.repeat(first[lo:hi], p) + np.arange(len(left)) - np.repeat(np.cumsum(p) - p, p)
        sim += np.bincount(r[left] * n + r[right], weights=v[left] * v[right], minlength=n * n)
        lo = hi
    return sim.reshape(n, n)


class Matrix:
    """Row-normalised TF-IDF vectors of the units, stored sparse (no scipy needed).

    ``sim`` is the dense similarity matrix (TF-IDF cosine blended with the sentence-vector cosine)
    when the node is small enough for a graph; larger inputs (a whole book passed as one text) get
    TF-IDF similarity rows on demand instead, so memory and time stay linear in the number of units.
    """

    DENSE_LIMIT = 800  # units; above this the graph is skipped and centroid scoring alone ranks

    def __init__(self, units: Sequence[Unit], vector_w: float = 0.0) -> None:
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for i, u in enumerate(units):
            for t in u.terms:
                rows.append(i)
                cols.append(vocab.setdefault(t, len(vocab)))
        self.n = len(units)
        self.v = max(1, len(vocab))
        if rows:
            # Collapse repeated (row, term) pairs into counts.
            keys = np.asarray(rows, dtype=np.int64) * self.v + np.asarray(cols, dtype=np.int64)
            uniq, counts = np.unique(keys, return_counts=True)
            r, c = np.divmod(uniq, self.v)
        else:
            r = c = np.zeros(0, dtype=np.int64)
            counts = np.zeros(0, dtype=np.int64)
        df = np.bincount(c, minlength=self.v)
        # Smoothed IDF: a term in every unit still counts a little, so one rare token (a name)
        # cannot dominate a vector and hide that two sentences say the same thing.
        idf = 1.0 + np.log((self.n + 1.0) / (df + 1.0))
        vals = (1.0 + np.log(counts.astype(np.float64))) * idf[c]
        self.mass = np.bincount(r, weights=vals, minlength=self.n)  # a unit's TF-IDF sum
        self.distinct = np.bincount(r, minlength=self.n)  # a unit's distinct content words
        norms = np.sqrt(np.bincount(r, weights=vals * vals, minlength=self.n))
        vals = vals / np.where(norms[r] > 0, norms[r], 1.0)
        self.rows, self.cols, self.vals = r, c, vals
        self.sim: np.ndarray | None = None
        if 0 < self.n <= self.DENSE_LIMIT:
            self.sim = _cosines(r, c, vals, self.n)
            if vector_w > 0:
                vecs = _sentence_vectors([u.body for u in units])
                if vecs is not None:
                    self.sim = (1.0 - vector_w) * self.sim + vector_w * np.clip(vecs @ vecs.T, 0.0, 1.0)

    def dot(self, vec: np.ndarray) -> np.ndarray:
        """``M @ vec`` for a dense vocabulary-sized vector."""
        return np.bincount(self.rows, weights=self.vals * vec[self.cols], minlength=self.n)

    def colsum(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum of the rows selected by ``mask`` (all rows when None)."""
        w = self.vals if mask is None else self.vals * mask[self.rows]
        return np.bincount(self.cols, weights=w, minlength=self.v)

    def near_row(self, i: int, differ: int) -> np.ndarray:
        """Which units share at least two of unit ``i``'s distinct content words and differ from it in at
        most ``differ`` (the symmetric difference of the two word sets)."""
        vec = np.zeros(self.v)
        vec[self.cols[self.rows == i]] = 1.0
        shared = np.bincount(self.rows, weights=vec[self.cols], minlength=self.n)
        return (shared >= 2) & (self.distinct + self.distinct[i] - 2 * shared <= differ)

    def sim_row(self, i: int) -> np.ndarray:
        """Similarity of unit ``i`` to every unit."""
        if self.sim is not None:
            return self.sim[i]
        vec = np.zeros(self.v)
        sel = self.rows == i
        vec[self.cols[sel]] = self.vals[sel]
        return self.dot(vec)


def _sentence_vectors(texts: list[str]) -> np.ndarray | None:
    """Static MiniLM sentence vectors (float64, unit length), or None when the table cannot be loaded."""
    try:
        return get_static_embedder().embed(texts).astype(np.float64)
    except IndexError_:
        return None  # a damaged install still summarizes, on lexical similarity alone


def boundary_distance(units: Sequence[Unit], alpha: float) -> np.ndarray:
    """How far each sentence of a chunk is from the nearest boundary of its section, in sentences (HipoRank).

    Sections are delimited by headings; the distance of the x-th of a section's m sentences is
    ``min(x, alpha * (m - 1 - x))`` (Dong et al. 2021; ``alpha`` 0 or less: only the start counts).
    Where the chunk cuts a longer text is no boundary: the part before the chunk's first heading has
    no start and the part after its last heading no end; a sentence with neither is infinitely far.
    """
    n = len(units)
    sec = np.array([u.section for u in units])
    count: dict[int, int] = {}
    x = np.zeros(n)
    for i, k in enumerate(sec.tolist()):
        x[i] = count.get(k, 0)
        count[k] = int(x[i]) + 1
    m = np.array([float(count[k]) for k in sec.tolist()])
    start = np.where(sec == 0, np.inf, x)  # section 0: the text before the chunk's first heading
    end = alpha * (m - 1.0 - x) if alpha > 0 else np.full(n, np.inf)
    if n:
        end[sec == sec.max()] = np.inf
    return np.minimum(start, end)


def directed_centrality(sim: np.ndarray, beta: float, backward_w: float, dist: np.ndarray | None = None) -> np.ndarray:
    """PacSum centrality: thresholded edges to later sentences plus ``backward_w`` times those to earlier ones.

    With ``dist`` (:func:`boundary_distance`), "later" means farther from a section boundary (HipoRank's
    boundary-aware edges): a sentence near a boundary that the rest of its section builds on is central.
    """
    n = sim.shape[0]
    if n == 1:
        return np.ones(1)
    off = ~np.eye(n, dtype=bool)
    lo, hi = float(sim[off].min()), float(sim[off].max())
    edges = np.where(off, np.maximum(0.0, sim - (lo + beta * (hi - lo))), 0.0)
    if dist is None:
        later = np.triu(edges, 1).sum(axis=1)
        earlier = np.tril(edges, -1).sum(axis=1)
        return later + backward_w * earlier
    di, dj = dist[:, None], dist[None, :]
    weight = np.where(di < dj, 1.0, np.where(di > dj, backward_w, 0.5 * (1.0 + backward_w)))
    return (weight * edges).sum(axis=1)


def centrality(units: Sequence[Unit], sim: np.ndarray, params: Params, meta: bool, whole: bool) -> np.ndarray:
    """The node's centrality in 0..1 (``meta``: a node over summaries; ``whole``: a whole text; else a chunk).

    A whole (short) text: PacSum's directed centrality, its start the one boundary. The nodes of a long
    text: HipoRank's boundary-aware form, a chunk's boundaries being its headings (not where the chunk
    cuts the text) and a meta node's the start and end of the text its parts cover, in order.
    """
    if meta:
        x = np.arange(len(units), dtype=np.float64)
        dist = np.minimum(x, params.section_alpha * (len(units) - 1.0 - x)) if params.section_alpha > 0 else x
    elif whole:
        return _unit_range(directed_centrality(sim, params.beta, params.backward_w))
    else:
        dist = boundary_distance(units, params.section_alpha)
    return _unit_range(directed_centrality(sim, params.beta, params.section_backward_w, dist))


def _unit_range(x: np.ndarray) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    return (x - lo) / (hi - lo) if hi > lo else np.ones_like(x)


def features(units: list[Unit], mat: Matrix, meta: bool, whole: bool, params: Params) -> np.ndarray:
    """The ``(n, len(FEATURES))`` feature matrix of a node's units, every column in 0..1.

    ``opening`` is ``(1 - position)²`` and ``lead`` ``1 / (1 + k)`` for the k-th sentence of a node that
    starts where the text starts (``whole``: a BRIEF/STANDARD node); ``part_order`` is ``(1 - position)²``
    over the parts of a meta node (``meta``: units from child summaries in source order); a chunk of a
    longer text has none of them (its opening is not the text's).
    """
    n = len(units)
    centroid = mat.colsum()
    cnorm = float(np.linalg.norm(centroid))
    to_centroid = _unit_range(mat.dot(centroid) / cnorm) if cnorm > 0 else np.zeros(n)
    cen = centrality(units, mat.sim, params, meta, whole) if mat.sim is not None else to_centroid
    content = np.array([len(u.terms) for u in units], dtype=np.float64)
    length = np.minimum(1.0, content / LENGTH_SATURATION)
    pos = np.array([u.pos for u in units], dtype=np.float64)
    early = (1.0 - pos) ** 2
    zero = np.zeros(n)
    mass = mat.mass / max(1e-9, float(mat.mass.max())) if n else zero
    opening = early if whole and not meta else zero
    lead = 1.0 / (1.0 + np.arange(n)) if whole and not meta else zero
    part_order = early if meta else zero
    return np.column_stack([cen, opening, lead, part_order, length, mass, to_centroid, cen * length])


def relevance(
    units: list[Unit], mat: Matrix, meta: bool, whole: bool, params: Params, peers: bool = False
) -> np.ndarray:
    """Score every unit (higher is more summary-worthy).

    ``whole``: the units start where the text starts (a BRIEF/STANDARD node), so the position prior
    applies; ``meta``: units come from child summaries in source order, the prior follows the parts;
    ``peers``: each part is a whole text of its own (a month's entries), the prior starts again in each.
    With ``params.trained_share`` f above 0 the score is ``(1 − f) · rule + f · trained``, the trained
    score being the linear score of :func:`features` (Kupiec et al. 1995 on Nallapati et al. 2017
    oracle labels) scaled to 0..1 within the node; f 1 is the trained score alone.
    """
    f = params.trained_share
    rel = rule_relevance(units, mat, meta, whole, params, peers) if f < 1 else np.zeros(len(units))
    if f > 0:
        rel = (1.0 - f) * rel + f * trained_relevance(units, mat, meta, whole, params)
    rel = rel - params.context_w * np.array([u.context for u in units], dtype=np.float64)
    return rel - np.array([u.penalty for u in units])


def rule_relevance(
    units: list[Unit], mat: Matrix, meta: bool, whole: bool, params: Params, peers: bool = False
) -> np.ndarray:
    """The PacSum rule's score: centrality times a length factor, plus the opening prior and figures."""
    n = len(units)
    if mat.sim is not None:
        cen = centrality(units, mat.sim, params, meta, whole)
    else:
        centroid = mat.colsum()
        cnorm = np.linalg.norm(centroid)
        cen = _unit_range(mat.dot(centroid) / cnorm) if cnorm > 0 else np.zeros(n)
    content = np.array([len(u.terms) for u in units], dtype=np.float64)
    norm = params.length_norm if whole else params.section_length_norm
    rel = cen * np.sqrt(np.minimum(1.0, content / norm))
    if whole or meta or peers:
        rel = rel + opening_prior(units, params, meta and not peers, peers)
    if params.figure_w:
        rel = rel + params.figure_w * figure_share(units)
    return rel


def trained_relevance(units: list[Unit], mat: Matrix, meta: bool, whole: bool, params: Params) -> np.ndarray:
    """The trained score: ``params.weights`` (None: :data:`TRAINED_WEIGHTS`) over :func:`features`, in 0..1."""
    n = len(units)
    if n < 2:
        return np.ones(n)
    w = np.asarray(params.weights if params.weights is not None else TRAINED_WEIGHTS, dtype=np.float64)
    return _unit_range(features(units, mat, meta, whole, params) @ w)


def opening_prior(units: Sequence[Unit], params: Params, meta: bool = False, peers: bool = False) -> np.ndarray:
    """The prior for the start of a whole text, or for the first parts of a meta node (``meta``).

    In a whole text it decays over the sentence's ordinal index, ``position_w · exp(−k / position_decay)``
    for the k-th sentence: the sentence position hypothesis as Ouyang, Li, Lu & Zhang 2010 ("A Study on
    Position Information in Document Summarization") state it, a sentence's importance decreasing with
    its ordinal distance from the beginning of the document (the exponential form is ours). It marks the
    first two or three sentences of every text, a larger share of a short text than of a long one (a
    diary's first sentence states what the entry is about). A meta node's k-th unit is not the text's
    k-th sentence: there, and with ``position_decay`` 0, it is ``position_w · (1 − position)²`` over the
    share of the text (the parts' order). With ``peers`` (a digest's entries, each a whole text, in no
    order of importance) k counts within the unit's own part: an entry's first sentence says what
    happened ("Dad was taken to hospital with a heart attack."), the next ones its details.
    """
    if params.position_decay > 0 and peers:
        seen: dict[int, int] = {}  # units read so far in each part
        index = []
        for u in units:
            index.append(seen.get(u.part, 0))
            seen[u.part] = index[-1] + 1
        shape = np.exp(-np.array(index, dtype=np.float64) / params.position_decay)
    elif params.position_decay > 0 and not meta:
        shape = np.exp(-np.arange(len(units), dtype=np.float64) / params.position_decay)
    else:
        shape = (1.0 - np.array([u.pos for u in units], dtype=np.float64)) ** 2
    return params.position_w * shape


# An amount or a rate: a token with a digit and a currency or percent sign ("$4.1", "12%"), or with a
# decimal or thousands separator between digits ("3.5", "1,200"), or a number followed by a word of scale
# or rate ("100 basis points", "40 million", "6 percent"). A bare integer is left out: it mostly counts
# or labels (a year, an item number, a die roll, a time) rather than states a result; so is a number with
# two dots (a version, "2.10.5"; a date, "12.03.2026"). The look-behind starts a match only where a token
# starts (from every character of one, the search is quadratic).
_AMOUNT = re.compile(
    r"(?<!\S)(?=\S*\d)(?!\S*\d\.\d+\.\d)(?:\S*[$€£¥%]\S*|\S*\d[.,]\d\S*"
    r"|\S+(?=\s+(?:percent|per\s+cent|percentage\s+points?|basis\s+points?|bps|million|billion|trillion)\b))",
    re.IGNORECASE,
)


# A time of day written with a dot, as British English does ("at 5.30", "till 12.30", "6.30 p.m."):
# it looks like a decimal but states no result (a diary's "Got home at 6.30" had outranked its news).
_CLOCK_TIME = re.compile(
    r"(?:\b(?:at|till|until)\s+\d{1,2}\.[0-5]\d|\b\d{1,2}\.[0-5]\d(?=\s*(?:[ap]\.m\.|o'clock)))"
    r"(?![\d%]|\s*(?:per\b|percent|a share|times\b|x\b|million|billion))",
    re.IGNORECASE,
)


def figure_share(units: Sequence[Unit]) -> np.ndarray:
    """Each unit's amounts and rates per word (Fattah & Ren 2009, "GA, MR, FFNN, PNN and GMM based models
    for automatic text summarization": a sentence with numerical data states a result worth keeping)."""
    counts = [len(_AMOUNT.findall(u.body)) - len(_CLOCK_TIME.findall(u.body)) for u in units]
    return np.array([max(0, c) / max(1, u.words) for c, u in zip(counts, units, strict=True)], dtype=np.float64)


def carry_forward(units: list[Unit], mat: Matrix, params: Params) -> np.ndarray:
    """Rolling: bonus for prior-final sentences that are still relevant to the new material.

    A prior sentence sharing (almost) nothing with the new material is retired; the others get a
    bonus growing with their similarity to the new material's centroid.
    """
    new = np.array([not u.prior for u in units])
    bonus = np.zeros(len(units))
    if not new.any():
        return bonus + np.array([params.prior_w if u.prior else 0.0 for u in units])
    centroid = mat.colsum(new.astype(np.float64))
    cnorm = np.linalg.norm(centroid)
    rel = mat.dot(centroid) / cnorm if cnorm > 0 else np.zeros(len(units))
    top = max(1e-9, float(rel[~new].max()) if (~new).any() else 1e-9)
    for i, u in enumerate(units):
        if u.prior:
            if rel[i] < 0.05:
                u.candidate = False
            else:
                bonus[i] = params.prior_w * (0.5 + rel[i] / top)
    return bonus
