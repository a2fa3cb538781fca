"""The texts search reads of a hit: its node's summary, and its source as the run summarized it."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.index.snippets import node_body

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.lexical import Evidence


def node_text(cfg: IndexConfig, md: dict[str, Any]) -> str:
    """The node's summary text, read from its file in the tree (no front matter, links or markup)."""
    rel = md.get("summary_path")
    if not rel:
        return ""
    try:
        return node_body((cfg.out / str(rel)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""


@functools.lru_cache(maxsize=16)
def source_text(state_dir: Path, relpath: str, sha256: str | None) -> str | None:
    """:func:`batchsum.sources.source_text`, kept for the last few sources: reading one means decoding,
    rendering and redacting the whole file (about 10 ms for a meeting transcript), and the hits of a
    search (and of the next requests of ``serve``) often come from the same few files. The text is
    returned only while the file still hashes to ``sha256``, so a cached text is that file's text."""
    from batchsum.sources import source_text as read  # the walker's readers: only when a source passage is shown

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
