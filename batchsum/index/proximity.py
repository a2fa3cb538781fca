"""Term proximity for the lexical channel: query words that stand together score more than scattered ones.

BM25 scores a passage by which query words it holds, not where: "grand miroir" scores alike in a French
passage holding the phrase and in a Spanish one holding "grande" here and "miró" there. Büttcher, Clarke
and Lushman's proximity score (*Term Proximity Scoring for Ad-Hoc Retrieval on Very Large Text
Collections*, SIGIR 2006) adds what BM25 leaves out: walking a passage's query-term occurrences in order,
every two neighbouring occurrences of different terms ``a`` and ``b`` at distance ``d`` (in index terms)
add ``w_b / d²`` to ``a``'s accumulator and ``w_a / d²`` to ``b``'s, and the passage gains
``Σ_t min(1, w_t) · acc_t · (k1 + 1) / (acc_t + K)``, with BM25's ``k1`` and length normalization ``K``.
An exact phrase (d = 1) gains most; words a sentence apart almost nothing. It needs no statistics
beyond BM25's own, only the order of each document's terms, kept as one array of term numbers.

The bonus is a sum, so more occurrences can outweigh it: "Gross premiums rose. Underwriting margins held.
Gross premiums in specialty rose, and margins held." holds "gross" three times and "margin" twice, and had
outranked "Gross margin was 38.9%" for "gross margin", most where the query's words are common (the bonus
grows with the square of their idf, BM25 with their idf). So a passage that holds the query's words as a
*phrase* is also told apart (:func:`phrase_passages`), and search ranks its document among the whole matches
above those without one, as a coordination level (:func:`batchsum.index.match_tiers.whole_matches_first`).
"""

from __future__ import annotations

import bisect
import sqlite3
import zlib
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def pack_sequence(numbers: Sequence[int]) -> bytes:
    """A document's terms in order (numbers into its sorted term list), compressed: a width byte, then
    uint16 (uint32 when a document has 65,536 terms or more) under zlib."""
    wide = bool(numbers) and max(numbers) >= 65536
    packed = array("I" if wide else "H", numbers)
    return bytes([packed.itemsize]) + zlib.compress(packed.tobytes(), 1)


def unpack_sequence(blob: bytes | None) -> Any:
    """Inverse of :func:`pack_sequence` (int64 numpy array)."""
    if not blob:
        return np.zeros(0, dtype=np.int64)
    width = blob[0]
    raw = zlib.decompress(blob[1:])
    return np.frombuffer(raw, dtype=np.uint16 if width == 2 else np.uint32).astype(np.int64)


def proximity_scores(
    sequence: Any,
    group_of: Any,
    weights: Any,
    unit_start: Any,
    unit_stop: Any,
    k_norm: Any,
    k1: float,
) -> Any:
    """Büttcher's proximity score of each passage of one document (see the module docstring).

    ``sequence``: the document's term numbers in order; ``group_of``: per term number the query group it
    belongs to (-1: none); ``weights``: per group its idf weight; ``unit_start``/``unit_stop``: each
    passage's range in ``sequence`` (starts non-decreasing); ``k_norm``: each passage's BM25 ``K``.
    Passages of one document overlap by half, so a pair of neighbours counts in each passage holding both.
    """
    n_units, n_groups = len(unit_start), len(weights)
    out = np.zeros(n_units, dtype=np.float64)
    if n_units == 0 or n_groups < 2 or len(sequence) < 2:
        return out
    groups = group_of[sequence]
    pos = np.flatnonzero(groups >= 0)
    if len(pos) < 2:
        return out
    g = groups[pos]
    a, b, ga, gb = pos[:-1], pos[1:], g[:-1], g[1:]
    differ = ga != gb
    a, b, ga, gb = a[differ], b[differ], ga[differ], gb[differ]
    if not len(a):
        return out
    inv_d2 = 1.0 / (b - a).astype(np.float64) ** 2
    acc = np.zeros(n_units * n_groups, dtype=np.float64)
    # The passages holding position a are among the last few starting at or before it (they overlap by half).
    last = np.searchsorted(unit_start, a, side="right") - 1
    for back in range(3):
        u = last - back
        ok = (u >= 0) & (u < n_units)
        u = np.where(ok, u, 0)
        ok &= (unit_start[u] <= a) & (b < unit_stop[u])
        if not ok.any():
            continue
        np.add.at(acc, u[ok] * n_groups + ga[ok], weights[gb[ok]] * inv_d2[ok])
        np.add.at(acc, u[ok] * n_groups + gb[ok], weights[ga[ok]] * inv_d2[ok])
    per_unit = acc.reshape(n_units, n_groups)
    term = np.minimum(1.0, weights)[None, :] * per_unit * (k1 + 1) / (per_unit + k_norm[:, None])
    return term.sum(axis=1)


def phrase_passages(sequence: Any, group_of: Any, phrase: Sequence[int], unit_start: Any, unit_stop: Any) -> Any:
    """Per passage of one document, whether it holds the query groups ``phrase`` next to each other in that
    order (positions in ``sequence``, the document's index terms: function words are none, so "margin of the
    gross" is no phrase of "gross margin" but "decided on the budget" is one of "decide budget")."""
    out = np.zeros(len(unit_start), dtype=bool)
    width = len(phrase)
    if width < 2 or len(sequence) < width or not len(unit_start):
        return out
    groups = group_of[sequence]
    at = np.ones(len(groups) - width + 1, dtype=bool)
    for i, g in enumerate(phrase):
        at &= groups[i : len(groups) - width + 1 + i] == g
    starts = np.flatnonzero(at)
    # The passages holding a start are among the last few starting at or before it (they overlap by half).
    last = np.searchsorted(unit_start, starts, side="right") - 1
    for back in range(3):
        u = last - back
        ok = (u >= 0) & (u < len(unit_start))
        u = np.where(ok, u, 0)
        ok &= (unit_start[u] <= starts) & (starts + width <= unit_stop[u])
        out[u[ok]] = True
    return out


def proximity_bonus(
    db: sqlite3.Connection,
    uids: Any,
    dkeys: list[int],
    groups: Sequence[tuple[Sequence[str], float]],
    made_by: Mapping[str, set[str | None]] | None,
    bm25: tuple[float, float, float],
    uid_shift: int,
) -> tuple[Any, Any]:
    """Per entry of ``uids`` (``document * uid_shift + passage``, ascending), the proximity score of that
    passage and whether it holds the query as a phrase (:func:`phrase_passages`: the groups in the query's
    order, but for those that are function words of its document's language, which the index leaves out), for
    the documents ``dkeys`` of the lexical file ``db``. ``groups``: each query group's terms and idf weight, in
    the query's order; ``made_by``: the languages whose analysis made a term (it counts only in their
    documents); ``bm25``: (average passage length, k1, b)."""
    avgdl, k1, b = bm25

    bonus = np.zeros(len(uids), dtype=np.float64)
    phrased = np.zeros(len(uids), dtype=bool)
    if len(groups) < 2:  # one word stands by no other
        return bonus, phrased
    weights = np.array([w for _, w in groups], dtype=np.float64)
    for start in range(0, len(dkeys), 500):
        part = dkeys[start : start + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT dkey, terms, seq, spans, lens, lang FROM lex_docs WHERE dkey IN ({marks})"
        for dkey, blob, seq, spans, lens, lang in db.execute(sql, part):
            if not seq or not blob:
                continue
            vocabulary = zlib.decompress(blob).decode("utf-8", errors="surrogatepass").split("\n")
            group_of = np.full(len(vocabulary), -1, dtype=np.int64)
            phrase = []  # the groups the document's language indexes, in the query's order
            for gi, (members, _) in enumerate(groups):
                spoken = [t for t in members if made_by is None or t not in made_by or lang in made_by[t]]
                phrase.extend([gi] if spoken else [])
                for term in spoken:
                    at = bisect.bisect_left(vocabulary, term)
                    if at < len(vocabulary) and vocabulary[at] == term:
                        group_of[at] = gi
            if int((np.unique(group_of) >= 0).sum()) < 2:
                continue
            ranges = np.frombuffer(spans, dtype=np.int32).reshape(-1, 2)
            k_norm = k1 * (1 - b + b * np.frombuffer(lens, dtype=np.int32) / avgdl)
            sequence = unpack_sequence(seq)
            prox = proximity_scores(sequence, group_of, weights, ranges[:, 0], ranges[:, 1], k_norm, k1)
            held = np.flatnonzero(prox > 0)
            bonus[np.searchsorted(uids, int(dkey) * uid_shift + held)] += prox[held]
            whole = np.flatnonzero(phrase_passages(sequence, group_of, phrase, ranges[:, 0], ranges[:, 1]))
            phrased[np.searchsorted(uids, int(dkey) * uid_shift + whole)] = True
    return bonus, phrased
