"""The coordination levels of search's ranking: whole matches first, and within each level the hits that hold the
query's words as written.

A query's language is unknown, so each word is stemmed in every language the index holds
(:func:`~batchsum.index.analysis.query_groups`): French "gare" and German "gar" ("gar nicht") share the stem "gar",
and a German text of three "gar" had outranked the French "à la gare de Lyon" (a reviewer's journal in four
languages). A hit whose text holds the query's word itself (case and accents folded) is a hit of that word; one
that holds only another word of its stem stays a hit, below it. Within one language nothing changes: the stem is
the one the query's word has in the texts' own language, and its forms are the word's.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from batchsum.index.analysis import fold, function_words, snowball_name
from batchsum.index.lexical import query_tokens
from batchsum.model import doc_id_of

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def whole_matches_first(
    ranked: np.ndarray,
    ids: list[str],
    complete: set[str],
    titled: set[str],
    phrased: set[str],
    own: np.ndarray | None = None,
) -> np.ndarray:
    """The candidates of whole matches (documents with a passage holding every query term the index holds,
    :mod:`batchsum.index.rollup`) rank above every other candidate, in their own order: the top coordination
    level. A short entry holding all the query's words has one or two passages to roll up, and a long note
    repeating one of them in five passages had outranked it. A whole match rises a level more for each of:
    its title holds every such term (``titled``: a book's own note for its name, before the days that mention
    it); a passage holds them as a phrase (``phrased``: "Gross margin was 38.9%" before "Gross premiums rose,
    and margins held" for "gross margin", whose repeats had outweighed the proximity bonus). Within a level,
    ``own`` (:func:`own_words_held`) orders first: a hit holding more of the query's words as written leads."""
    if own is not None and own.any():
        ranked = (ranked + own * (float(ranked.max()) + 1e-3)).astype(np.float32)
    tier = np.array([sum(doc_id_of(i) in s for s in (complete, titled, phrased)) for i in ids], dtype=np.float32)
    if not tier.any():
        return ranked
    return (ranked + tier * (float(ranked.max()) + 1e-3)).astype(np.float32)


def own_words_held(
    query: str,
    metadata: Mapping[str, dict[str, Any]],
    text_of: Callable[[str], str],
    indexed: Sequence[str | None] = (),
) -> dict[str, int]:
    """Document -> how many of the query's words (those it searches for) its text (``text_of``: its best node's
    summary and the source its best passage is in) holds as written, case and accents folded, for the documents
    of ``metadata`` (document -> its best lexical node's metadata); empty unless the index holds several languages
    (``indexed``, with the documents' own: see the module docstring). The query was stemmed in every language of
    the index, so its words reach other words' texts even when every text it scored is of one language ("died"
    reaching a note's "die" in an index of English, Chinese and Japanese). A word that is its own stem reaches them
    too: German "gar" is French "gare"'s stem, so it counts as every word searched for does (it had counted for
    nothing, and the French entry's place then hung on BM25's collection statistics, which a digest's quotes
    shift)."""
    # The index names its languages as Snowball does ("english"), a node's metadata by code ("en"): one language
    # under two names had made every English index one of several languages.
    languages = {snowball_name(lang) for lang in [*indexed, *(md.get("language") for md in metadata.values())]}
    if len(languages) < 2:
        return {}
    # A function word of one of the languages ("die", "im") says nothing of a text's topic: German entries holding
    # "die" and "im" had outranked the one holding "Katze" for "die Katze im Garten".
    stops = frozenset().union(*(function_words(lang) for lang in languages))
    words = {fold(w) for w in _WORD.findall(query.lower()) if w not in stops and any(query_tokens(w, languages))}
    if not words:
        return {}
    written = [re.compile(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])") for w in sorted(words)]
    held: dict[str, int] = {}
    for doc in sorted(metadata):  # one document's source read once (search keeps the last few read)
        text = fold(text_of(doc).lower())
        held[doc] = sum(rx.search(text) is not None for rx in written)
    return held


def shown_order(
    picked: list[int],
    ranked: np.ndarray,
    final: np.ndarray,
    source: list[str],
    dated: list[int | None],
    rank_class: Sequence[tuple[float, ...]],
    fixed: np.ndarray,
) -> list[int]:
    """The candidates ``picked`` in the order they are shown, best first.

    By ``ranked``, but another node of a source already shown comes after every other source's hit (MMR picked it
    only for want of other files; the rank, a document's, would put it beside its document's first hit). Hits
    that would be shown with the same score (``final`` capped by every hit above, to 4 places as printed) are
    listed the more recent first (``dated``: epoch seconds, None last). That reordering keeps what orders hits
    beyond their score: ``rank_class`` (higher first: a whole match above the rest) and repeated sources stay in
    their order, and a ``fixed`` hit (a digest placed by its entries, a named day's entry, an entry of another
    period than the one asked for) stays in its place. :func:`first_shown` orders every candidate not repeating
    another's passage, takes the first k and the caller caps their scores in this order: the top k is the top k+1
    but its last, whatever k (taking k first and ordering them after had listed another hit first for ``-k 2``
    than for ``-k 1``)."""
    seen: set[str] = set()
    repeat: dict[int, bool] = {}
    for i in sorted(picked, key=lambda i: -float(ranked[i])):
        repeat[i] = source[i] in seen
        seen.add(source[i])
    order = sorted(repeat, key=lambda i: repeat[i])  # stable: rank order within first hits and within repeats
    shown = np.round(np.minimum.accumulate(np.array([float(final[i]) for i in order] or [0.0])), 4).tolist()
    for _, run in itertools.groupby(range(len(order)), key=lambda p: shown[p]):
        free = [p for p in run if not fixed[order[p]]]
        newer = sorted((order[p] for p in free), key=lambda i: (repeat[i], [-c for c in rank_class[i]], _age(dated[i])))
        for p, i in zip(free, newer, strict=True):
            order[p] = i
    return order


def _age(ts: int | None) -> float:
    """Sort key of a date, the most recent first and undated last."""
    return math.inf if ts is None else -float(ts)


def may_repeat(sources: Sequence[str], digest: np.ndarray, foreign: np.ndarray) -> np.ndarray:
    """Which pairs of candidates can show one passage, so that :func:`first_shown` hides one behind the other: two
    nodes of one source (an L1 and the final repeating it), a period digest (level 4, ``digest``) and anything (it
    quotes its entries), and two nodes the static embedder cannot read (``foreign``: not English), where the
    snippet alone tells a copy of a file from another file. Two English files that are copies MMR drops already
    (their cosine); two English files it kept are two texts, each shown for its own words."""
    codes: dict[str, int] = {}
    group = np.array([codes.setdefault(s, len(codes)) for s in sources], dtype=np.int64)
    digest, foreign = np.asarray(digest, dtype=bool), np.asarray(foreign, dtype=bool)
    return (
        (group[:, None] == group[None, :]) | digest[:, None] | digest[None, :] | (foreign[:, None] & foreign[None, :])
    )


def first_shown(
    picked: list[int],
    k: int,
    order_of: Callable[[list[int]], list[int]],
    nested: np.ndarray,
    passage: Callable[[int], tuple[str, list[str], str, str]],
    digest: np.ndarray | None = None,
    related: np.ndarray | None = None,
) -> dict[int, tuple[str, list[str], str]]:
    """The first ``k`` hits listed of the candidates ``picked``, in the order ``order_of`` shows them
    (:func:`shown_order`), with their (snippet, terms, origin), each ``passage(i)`` gives with its snippet's key.
    A hit repeating a passage already shown by a hit it is ``related`` to (:func:`may_repeat`; None: any) is
    dropped (another node of its file, a digest quoting an entry), unless the two are a month and its year
    (``nested``). An entry is never dropped for a ``digest`` (level 4) showing its passage: the entry is where the
    words were written, the digest repeats them (a month's digest quoting its one entry had hidden the entry for
    "2026-11"). The repeats are dropped from every candidate before the survivors are ordered, and the first k
    of that order taken: a hidden hit caps no score below it and reorders nothing (a digest hidden under its
    entry had tied two entries at its score and listed the newer first), and the top k is the top k+1 but its
    last, whatever k. A candidate related to no other one can neither repeat nor be repeated: its passage is
    built only if it is listed."""
    # Building a snippet (reading the node's text, weighing its sentences) is most of a search's time once every
    # candidate's is built (about 0.5 ms each, ~20 candidates over the floor): most candidates are the one node
    # of their file that matched, and only those that can repeat another's passage need theirs to be listed.
    n = len(nested)
    quotes = np.zeros(n, dtype=bool) if digest is None else digest
    related = np.ones((n, n), dtype=bool) if related is None else related
    among = np.asarray(picked, dtype=np.int64)
    pairs = related[np.ix_(among, among)] & ~np.eye(len(among), dtype=bool)
    alone = set(among[~pairs.any(axis=1)].tolist())
    texts: dict[int, tuple[str, list[str], str]] = {}
    kept: list[int] = []
    shown: dict[str, list[int]] = {}  # snippet key -> the hits showing it
    for i in order_of(picked):
        if i in alone:
            kept.append(i)
            continue
        snippet, found, origin, key = passage(i)
        if key and any(related[i, j] and not nested[i, j] and (quotes[i] or not quotes[j]) for j in shown.get(key, [])):
            continue
        shown.setdefault(key, []).append(i)
        kept.append(i)
        texts[i] = (snippet, found, origin)
    return {i: texts[i] if i in texts else passage(i)[:3] for i in order_of(kept)[:k]}
