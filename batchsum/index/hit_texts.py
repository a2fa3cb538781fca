"""The texts search reads of a hit: its node's summary, its source as the run summarized it, and its snippet."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.digest_state import many_days
from batchsum.index.heading_snippets import phrase_snippet, together
from batchsum.index.snippets import (
    SNIPPET_CHARS,
    clean_text,
    day_item,
    day_passage,
    make_snippet,
    markdown_window,
    node_body,
    table_row_snippet,
    writes_day,
)
from batchsum.model import doc_id_of
from batchsum.navigation import EXTRACTED_HEADINGS, strip_links

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.lexical import Evidence
    from batchsum.index.search import LexicalResult

SOURCE_CONTEXT = 400  # chars read before a source passage, to start its snippet at a sentence start
# A hit's snippet_from when its words matched in its source, which has changed (or gone) since it was indexed, and
# its summary holds none of them: no snippet shows why it matched, and an unrelated one would mislead.
SOURCE_CHANGED = "source-changed"


def node_text(cfg: IndexConfig, md: dict[str, Any]) -> str:
    """The node's summary text, read from its file in the tree (no front matter, links or markup)."""
    rel = md.get("summary_path")
    if not rel:
        return ""
    try:
        return node_body((cfg.out / str(rel)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""


def source_text(state_dir: Path, relpath: str, sha256: str | None) -> str | None:
    """:func:`batchsum.sources.source_text`, kept for the last few sources: reading one means decoding,
    rendering and redacting the whole file (about 10 ms for a meeting transcript), and the hits of a
    search (and of the next requests of ``serve``) often come from the same few files. The text is
    returned only while the file still hashes to ``sha256``: the cache is keyed on the file's stat too, so a
    file edited after a search (in ``serve`` or a library user's process) is read, and hashed, again."""
    from batchsum.sources import source_stamp  # the walker's readers: only when a source passage is shown

    return _cached_source_text(state_dir, relpath, sha256, source_stamp(state_dir, relpath) if sha256 else ())


@functools.lru_cache(maxsize=16)
def _cached_source_text(state_dir: Path, relpath: str, sha256: str | None, stamp: tuple[Any, ...]) -> str | None:
    """:func:`batchsum.sources.source_text`; ``stamp`` (the file's stat) only keys the cache."""
    from batchsum.sources import source_text as read

    return read(state_dir, relpath, sha256)


def own_text(cfg: IndexConfig, md: dict[str, Any], ev: Evidence | None) -> str:
    """A candidate's summary and, when its best passage is in its source, that source: the text in which
    :func:`~batchsum.index.match_tiers.own_words_held` looks for the query's words as written."""
    source = None
    if ev is not None and ev.in_source:
        source = source_text(
            cfg.state_dir, str(md.get("source_path") or md.get("doc_id") or ""), md.get("source_sha256")
        )
    return f"{node_text(cfg, md)}\n{source or ''}"


def _source_snippet(
    cfg: IndexConfig,
    md: dict[str, Any],
    ev: Evidence,
    lex: LexicalResult,
    tables: bool = False,
) -> tuple[str, list[str]]:
    """The sentences of the source passage at ``ev.start`` (``tables``: its table row holding the query's words),
    or ("", []) when the source is gone or changed."""
    text = source_text(cfg.state_dir, str(md.get("source_path") or md.get("doc_id") or ""), md.get("source_sha256"))
    if text is None:
        return "", []
    # The passage is ~100 words from ev.start, which is rarely a sentence start: read a little before it
    # and after it, and keep whole sentences only.
    start, end = max(0, ev.start - SOURCE_CONTEXT), ev.start + SNIPPET_CHARS * 4
    window = markdown_window(text, start, end, tables=tables)  # as the summarizer reads any text
    language = md.get("language")
    if tables:
        return table_row_snippet(window, lex.groups, language=language, weights=lex.weights, query_words=lex.words)
    snippet, found = make_snippet(
        window,
        lex.groups,
        language=language,
        cut_start=start > 0,
        cut_end=end < len(text),
        weights=lex.weights,
        query_words=lex.words,
    )
    if (
        len(lex.groups) > 1
        and str(md.get("doc_id")) in lex.phrased
        and not together(snippet, lex.groups, language, lex.words)
    ):
        # The document holds the words as a phrase, the passage only apart ("expression genes" for "gene
        # expression"): show where it holds them together, a sentence or a heading (no sentence).
        shown = phrase_snippet(text, lex.groups, language, lex.words)
        if shown is not None:
            return shown
    return snippet, found


def snippet_of(
    cfg: IndexConfig, md: dict[str, Any], ev: Evidence | None, lex: LexicalResult, text: str | None
) -> tuple[str, list[str], str]:
    """(snippet, query terms in it, "source", "summary" or :data:`SOURCE_CHANGED`): the source passage that
    matched when the best lexical evidence is in the source and the source is still there, else the best
    sentences of the node's summary (``text`` when already read). A named day's entry is shown by the query's
    other words (the lexical query holds no day's words), or, for the day alone, by its summary's opening (its
    heading "Saturday 14 March" had been the snippet)."""
    if ev is not None and ev.in_source:
        snippet, found = _source_snippet(cfg, md, ev, lex)
        if snippet and found:  # a passage of code or a table that matched holds no sentence with the words
            return snippet, found, "source"
    body = text if text is not None else node_text(cfg, md)
    if lex.days and many_days(str(md.get("source_path") or ""), md.get("date_source")):
        # A file of many days whose summary keeps none of the named day's entry shows its source's (a diary's
        # final had shown its 20 March line for 12 March).
        snippet, found = _day_source_snippet(cfg, md, lex, body)
        if snippet:
            return snippet, found, "source"
    languages = tuple(str(md["languages"]).split(",")) if md.get("languages") else ()
    snippet, found = make_snippet(
        body,
        lex.groups,
        language=md.get("language"),
        weights=lex.weights,
        languages=languages,
        days=lex.days,
        query_words=lex.words,
    )
    if lex.days and not writes_day(snippet, lex.days):
        written = _day_written(cfg, md, lex, len(found))
        if written is not None:
            return written
    if not found and ev is not None and ev.in_source:
        if _source_changed(cfg, md):
            return "", [], SOURCE_CHANGED
        # The words stand in a table row of the passage only, which no sentence holds: the row shows why it matched.
        row, in_row = _source_snippet(cfg, md, ev, lex, tables=True)
        if in_row:
            return row, in_row, "source"
    return snippet, found, "summary"


def _source_changed(cfg: IndexConfig, md: dict[str, Any]) -> bool:
    """Whether the hit's source no longer hashes to what was indexed (or is gone)."""
    path = str(md.get("source_path") or md.get("doc_id") or "")
    return source_text(cfg.state_dir, path, md.get("source_sha256")) is None


def passage_shown(
    cfg: IndexConfig, nid: str, md: dict[str, Any], lex: LexicalResult, text: str | None, snippets: bool
) -> tuple[str, list[str], str, str]:
    """:func:`snippet_of` node ``nid`` and a key that is the same for two hits showing the same passage; without
    ``snippets`` no snippet, and the key of the source passage that matched (it would give the snippet)."""
    ev = lex.evidence.get(nid)
    if snippets:
        snippet, found, origin = snippet_of(cfg, md, ev, lex, text)
        return snippet, found, origin, " ".join(snippet.lower().split())
    return "", [], "summary", f"{doc_id_of(nid)}\0{ev.start}" if ev is not None and ev.in_source else ""


def _day_written(
    cfg: IndexConfig, md: dict[str, Any], lex: LexicalResult, words: int
) -> tuple[str, list[str], str] | None:
    """For a summary whose best sentences write none of the named days: the sentence of its source, else of its
    page's Facets (an action item's "(due: Friday 2026-11-20)"), that writes one and holds at least ``words`` of the
    query's other words, with where it is from; None when neither writes one."""
    language = md.get("language")
    source = source_text(cfg.state_dir, str(md.get("source_path") or md.get("doc_id") or ""), md.get("source_sha256"))
    # Only the paragraphs writing a day are read: a long source is not cut into sentences for one day.
    dated = "\n\n".join(p for p in (source or "").split("\n\n") if writes_day(p, lex.days))
    snippet, found = make_snippet(
        dated, lex.groups, language=language, weights=lex.weights, days=lex.days, query_words=lex.words
    )
    if writes_day(snippet, lex.days) and len(found) >= words:
        return snippet, found, "source"
    snippet, found = day_item(_facets_text(cfg, md), lex.groups, lex.days, language=language, query_words=lex.words)
    return (snippet, found, "summary") if snippet and len(found) >= words else None


def _facets_text(cfg: IndexConfig, md: dict[str, Any]) -> str:
    """The extracted sections a final's page prints under its summary (its Facets), as text; "" for none."""
    rel = md.get("summary_path")
    try:
        page = strip_links((cfg.out / str(rel)).read_text(encoding="utf-8")) if rel else ""
    except (OSError, ValueError):
        return ""
    cuts = [i for i in (page.find(h) for h in EXTRACTED_HEADINGS) if i >= 0]
    return clean_text(page[min(cuts) :], headings=False) if cuts else ""


def _day_source_snippet(cfg: IndexConfig, md: dict[str, Any], lex: LexicalResult, body: str) -> tuple[str, list[str]]:
    """The snippet of what the source writes under the named days (:func:`~batchsum.index.snippets.day_passage`), when
    the summary ``body`` writes none of them and the source does; else ("", [])."""
    if day_passage(body, lex.days) is not body:
        return "", []
    text = source_text(cfg.state_dir, str(md.get("source_path") or md.get("doc_id") or ""), md.get("source_sha256"))
    if text is None or day_passage(text, lex.days) is text:
        return "", []
    return make_snippet(
        text, lex.groups, language=md.get("language"), weights=lex.weights, days=lex.days, query_words=lex.words
    )
