"""A query group's postings read from the lexical store, and which documents hold a query word by its own stem."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from batchsum.index.analysis import CJK_CLASS
from batchsum.index.segments import split_docs

_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
_CJK_FIRST = chr(min(ord(c) for c in CJK_CLASS if c != "-"))  # the lowest code point of a CJK character


def merged_postings(
    db: sqlite3.Connection,
    group: Sequence[str],
    made_by: Mapping[str, set[str | None]] | None,
    doc_lang: Mapping[int, str | None] | None,
) -> list[tuple[int, Any, Any]]:
    """Rows of (document, passages, tfs) of a term group: its members' postings merged, counts summed.
    ``made_by``: the languages whose analysis made each member; with ``doc_lang`` (document -> language)
    a member counts only in documents of those languages. A single CJK character also reaches the bigrams that
    hold it (:func:`holding_bigrams`), counted as often as it stands in them (:func:`_char_rows`)."""
    rows: dict[int, list[tuple[Any, Any]]] = {}
    for term in dict.fromkeys(group):
        for d, units, tfs in [*_term_rows(db, term, made_by, doc_lang), *_char_rows(db, term, made_by, doc_lang)]:
            rows.setdefault(d, []).append((units, tfs))
    return [(d, *_merged(parts)) for d, parts in rows.items()]


def _term_rows(
    db: sqlite3.Connection,
    term: str,
    made_by: Mapping[str, set[str | None]] | None,
    doc_lang: Mapping[int, str | None] | None,
) -> Iterator[tuple[int, Any, Any]]:
    """(document, passages, tfs) of one indexed term, in the documents of the languages that made it."""
    langs = made_by.get(term) if made_by is not None else None
    keep = _of_languages(doc_lang, langs) if doc_lang is not None and langs is not None else None
    for (data,) in db.execute("SELECT data FROM lex_postings WHERE term = ?", (term,)):
        yield from split_docs(data, keep)


def _char_rows(
    db: sqlite3.Connection,
    char: str,
    made_by: Mapping[str, set[str | None]] | None,
    doc_lang: Mapping[int, str | None] | None,
) -> list[tuple[int, Any, Any]]:
    """(document, passages, tfs) of a single CJK character (else none) where runs hold it, indexed as bigrams
    (:func:`~batchsum.index.analysis.cjk_bigrams`). A character inside a run starts one bigram and ends
    another, one first or last in its run only one of them: a passage holds it as often as the larger of its
    counts in the bigrams it starts and in those it ends ("一只狗很": 狗 once, not twice for "只狗" and "狗很").
    The passage that holds it both first in one run and last in another is the one this counts short."""
    import numpy as np

    starts: dict[int, list[tuple[Any, Any]]] = {}
    ends: dict[int, list[tuple[Any, Any]]] = {}
    for bigram in holding_bigrams(db, char):
        for d, units, tfs in _term_rows(db, bigram, made_by, doc_lang):
            if bigram[0] == char:
                starts.setdefault(d, []).append((units, tfs))
            if bigram[1] == char:  # "狗狗" is both
                ends.setdefault(d, []).append((units, tfs))
    return [
        (d, *_merged([_merged(side[d]) for side in (starts, ends) if d in side], np.maximum))
        for d in dict.fromkeys([*starts, *ends])
    ]


def _merged(parts: list[tuple[Any, Any]], combine: Any = None) -> tuple[Any, Any]:
    """The passages of ``parts`` ((passages, counts) each) united, each one's counts combined by the ufunc
    ``combine`` (numpy's add when None)."""
    import numpy as np

    if len(parts) == 1:
        return parts[0]
    units, inverse = np.unique(np.concatenate([u for u, _ in parts]), return_inverse=True)
    tf = np.zeros(len(units), dtype=np.int64)
    (combine or np.add).at(tf, inverse.reshape(-1), np.concatenate([f for _, f in parts]).astype(np.int64))
    return units, tf


def holding_bigrams(db: sqlite3.Connection, term: str) -> list[str]:
    """The index's CJK bigrams that hold ``term`` when it is a single CJK character (else none): CJK text is
    indexed as bigrams, a character as itself only where it stands alone, so "狗" had found no "一只狗"."""
    if not _CJK_CHAR.fullmatch(term):
        return []
    # Terms sort by code point: CJK characters come after every alphabet's, so only CJK terms are scanned.
    rows = db.execute(
        "SELECT DISTINCT term FROM lex_postings WHERE term >= ? AND length(term) = 2 AND instr(term, ?) > 0",
        (_CJK_FIRST, term),
    )
    return [t for (t,) in rows if t != term and _CJK_CHAR.match(t[0]) and _CJK_CHAR.match(t[1])]


def _of_languages(doc_lang: Mapping[int, str | None], langs: set[str | None]) -> Callable[[int], bool]:
    """A predicate on document keys: the document's language is one of ``langs``."""
    return lambda d: doc_lang.get(d) in langs


def own_stemmed(
    db: sqlite3.Connection,
    groups: Sequence[Sequence[str]],
    siblings: frozenset[str],
    made_by: Mapping[str, set[str | None]] | None,
    doc_lang: Callable[[], Mapping[int, str | None]],
) -> set[int]:
    """The documents that hold each query group reached through a sibling (``siblings``, a derivation Snowball
    keeps apart: "decid" for "decision") by one of its own stems, of the groups whose own stems the index holds at
    all. "decision" reaches "decided" and "decidedly" through its sibling, yet the note tagged "#decision" is the
    word's own match: search orders it first among the whole matches. Empty when no group has an own stem held.
    ``doc_lang`` gives each document's language (read only when a group has a sibling)."""
    held: set[int] | None = None
    for group in groups:
        if not siblings.intersection(group):
            continue
        docs = {d for d, _, _ in merged_postings(db, [t for t in group if t not in siblings], made_by, doc_lang())}
        if docs:  # else the sibling is all the index holds of the word: it orders nothing
            held = docs if held is None else held & docs
    return held or set()
