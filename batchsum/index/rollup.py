"""What search ranks a document by, from its scored passages: its *rollup*, and whether it is a *whole match*.

*Rollup*: the best passage's BM25 score plus :data:`ROLLUP_OTHERS` times each of the next best of its
:data:`ROLLUP_PASSAGES` (source and summary passages), so a file that discusses the topic in several places
outranks one that mentions it once.

*Whole match*: a document one of whose passages holds every term of the query that the index holds at all
(the top coordination level of Salton and Buckley's ordering). BM25 saturates a word's repeats within a
passage, but the rollup adds passages up: a long note that repeats one of the query's words in passage after
passage had outranked a short entry holding every one of them, which has no further passages to add. Search
ranks whole matches above the other documents (:func:`batchsum.index.match_tiers.whole_matches_first`). A passage
holds the query's function words of its own language (:func:`function_words_held`), which the index leaves out.
A whole match one of whose passages holds the query's words as a phrase (:mod:`batchsum.index.proximity`)
ranks above the others: the next coordination level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

# 5 passages: best on QMSum val (4 on train); a share of 0.3, not 1: a long file's many weak mentions must
# not outweigh a short entry that answers.
ROLLUP_PASSAGES = 5
ROLLUP_OTHERS = 0.3


def rollups(
    doc_of: Any, score: Any, holds: Any, phrased: Any, doc_ids: Mapping[int, str]
) -> tuple[dict[str, float], set[str], set[str]]:
    """(doc id -> the document's rollup, the doc ids of whole matches, those of documents with a passage holding
    the query as a phrase), for the documents of ``doc_ids`` (document key -> doc id). Per passage: ``doc_of``
    its document key, ``score`` its BM25 score, ``holds`` (passages x the query's term groups the index holds,
    bool) which of those groups it holds and ``phrased`` whether it holds them as a phrase
    (:func:`batchsum.index.proximity.phrase_passages`)."""
    with_phrase = {doc_ids[int(d)] for d in np.unique(doc_of[phrased]).tolist() if int(d) in doc_ids}
    order = np.lexsort((-score, doc_of))
    doc_of, score, whole = doc_of[order], score[order], holds[order].all(axis=1)
    first = np.flatnonzero(np.r_[True, doc_of[1:] != doc_of[:-1]])
    rank = np.arange(len(doc_of)) - np.repeat(first, np.diff(np.r_[first, len(doc_of)]))
    top = rank < ROLLUP_PASSAGES
    weighted = score[top] * np.where(rank[top] == 0, 1.0, ROLLUP_OTHERS)
    sums: dict[str, float] = {}
    for d, value in zip(doc_of[top].tolist(), weighted.tolist(), strict=True):
        doc = doc_ids.get(int(d))
        if doc is not None:
            sums[doc] = sums.get(doc, 0.0) + value
    complete = {doc_ids[int(d)] for d in doc_of[whole].tolist() if int(d) in doc_ids}
    return sums, complete, with_phrase & complete


def function_words_held(
    doc_of: Any,
    groups: Sequence[tuple[Sequence[str], float]],
    made_by: Mapping[str, set[str | None]] | None,
    doc_languages: Callable[[], Mapping[int, str | None]],
) -> Any:
    """(passages x ``groups``, bool): the query's term groups that are function words in the language of each
    passage's document. The index leaves them out there, but the passage holds them as every passage of that
    language would (as their document frequency counts them): for a whole match, a German entry holds the
    "die" of "die Katze im Garten", a word where English texts say "die"."""
    out = np.zeros((len(doc_of), len(groups)), dtype=bool)
    docs, where = np.unique(doc_of, return_inverse=True)
    spoken: list[str | None] = []
    for g, (group, _) in enumerate(groups):
        if made_by and any(t in made_by for t in group):
            made = set().union(*(made_by.get(t, set()) for t in group))
            spoken = spoken or [doc_languages().get(d) for d in docs.tolist()]
            out[:, g] = np.array([lang not in made for lang in spoken], dtype=bool)[where.reshape(-1)]
    return out
