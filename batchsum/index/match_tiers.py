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

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from batchsum.index.analysis import fold
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


def own_words_held(query: str, metadata: Mapping[str, dict[str, Any]], text_of: Callable[[str], str]) -> dict[str, int]:
    """Document -> how many of the query's words (those it searches for) its text (``text_of``: its best node's
    summary and the source its best passage is in) holds as written, case and accents folded, for the documents
    of ``metadata`` (document -> its best lexical node's metadata); empty unless they are of several languages
    (see the module docstring). A word whose stem is itself in every language reaches no other word's texts."""
    languages = {md.get("language") for md in metadata.values()}
    if len(languages) < 2:
        return {}
    words = {
        fold(w)
        for w in _WORD.findall(query.lower())
        if any(t != fold(w) for group in query_tokens(w, languages) for t in group)
    }
    if not words:
        return {}
    written = [re.compile(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])") for w in sorted(words)]
    held: dict[str, int] = {}
    for doc in sorted(metadata):  # one document's source read once (search keeps the last few read)
        text = fold(text_of(doc).lower())
        held[doc] = sum(rx.search(text) is not None for rx in written)
    return held
