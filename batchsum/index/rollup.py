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

*Query windows*: a query longer than a passage (a pasted excerpt) cannot be held by one passage, so every
document would hold the same small share of it. Such a query is matched against windows of consecutive passages
as long as itself (:func:`window_span`, :func:`query_windows`): a window scores the sum of the BM25 scores of
the passages that tile it and holds every term any of its passages holds, so the excerpt's own text holds it all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from batchsum.index.passages import PASSAGE_STRIDE, PASSAGE_WORDS, passages

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


def window_span(query: str) -> int:
    """How many passages side by side hold a query wherever it starts: 1 for a query no longer than a passage
    (as for any text); else enough that a window starting at the passage before the query's first word reaches
    past its last (passages start every :data:`PASSAGE_STRIDE` words)."""
    words = sum(1 for _ in passages(query, 1, 1))  # counted as passages count them (a CJK pair is a word)
    return 1 if words <= PASSAGE_WORDS else math.ceil((words + PASSAGE_STRIDE) / PASSAGE_WORDS)


def query_windows(
    uids: Any, shift: int, where: tuple[int, Iterable[int], Any], score: Any, *held: Any
) -> tuple[Any, ...]:
    """Each passage as the window of ``span`` passages from it on (``where``: span, the documents to window and a
    function giving each document's layout, (passage owners, ...)): (its score, each of ``held``), the window's
    score being the sum of ``score`` over the passages that tile it (every second one: passages overlap by half),
    each of ``held`` (bool per passage: a value or a row) true where any of its passages' is. ``uids``
    (ascending): ``document * shift + passage``. A window runs on within one text (owner -1: the source, else a
    node's summary), never from the source into a summary; passages holding no index term are not stored, so a
    window of ``span`` numbers rarely reaches a little further. With ``span`` 1 all is returned as it is."""
    span, docs, layout = where
    if span <= 1 or not len(uids):
        return (score, *held)
    doc, unit = uids // shift, uids % shift
    mine = np.isin(doc, np.fromiter(docs, dtype=np.int64))
    owners = layout(sorted(set(doc[mine].tolist())))
    owner = np.full(len(uids), -2, dtype=np.int64)  # -2: not windowed
    cuts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1], True])
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        if mine[a] and int(doc[a]) in owners:
            owner[a:b] = np.asarray(owners[int(doc[a])][0])[unit[a:b]]
    total, out = score.copy(), [h.copy() for h in held]
    for step in range(1, 2 * span - 1):
        at = np.minimum(np.searchsorted(uids, uids + step), len(uids) - 1)
        there = (uids[at] == uids + step) & (owner[at] == owner) & (owner > -2)
        if step % 2 == 0:
            total[there] += score[at[there]]
        for h, o in zip(held, out, strict=True):
            o[there] |= h[at[there]]
    return (total, *out)


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
