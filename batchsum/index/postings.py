"""A query group's postings read from the lexical store, and which documents hold a query word by its own stem."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
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
    hold it (:func:`holding_bigrams`)."""
    import numpy as np

    rows: dict[int, list[tuple[Any, Any]]] = {}
    for term in dict.fromkeys(t for member in group for t in (member, *holding_bigrams(db, member))):
        langs = made_by.get(term) if made_by is not None else None
        keep = _of_languages(doc_lang, langs) if doc_lang is not None and langs is not None else None
        for (data,) in db.execute("SELECT data FROM lex_postings WHERE term = ?", (term,)):
            for d, units, tfs in split_docs(data, keep):
                rows.setdefault(d, []).append((units, tfs))
    out: list[tuple[int, Any, Any]] = []
    for d, parts in rows.items():
        if len(parts) == 1:
            out.append((d, *parts[0]))
            continue
        units, inverse = np.unique(np.concatenate([u for u, _ in parts]), return_inverse=True)
        tf = np.zeros(len(units), dtype=np.int64)
        np.add.at(tf, inverse.reshape(-1), np.concatenate([f for _, f in parts]).astype(np.int64))
        out.append((d, units, tf))
    return out


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
