"""Epigraphs: someone else's words that frame a chapter, never its summary.

An epigraph is a short quoted, italic or blockquoted passage at the top of a text or directly under a
heading, followed by its attribution, a line that opens with a dash ("— Jane Austen, *Pride and
Prejudice*", "-- Author", "― Author"). A chapter may open with several in a row.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from batchsum.backends.noise import line_kind
from batchsum.text import QUOTE_MARKS

__all__ = ["epigraph_lines"]

_MAX_WORDS = 120  # an epigraph is a line or a few; a longer quoted block is the chapter's own text
_ATTRIBUTION_WORDS = 15
# The dash of an attribution (em dash, horizontal bar, en dash, two hyphens), then a name or a title.
_ATTRIBUTION = re.compile(r"^[*_]*\s*(?:—|―|–|--)\s*[*_“\"‘']*[A-Z0-9]")
_OPENS = "*_“\"‘'«"
_CLOSES = "*_”\"’'»"


def _text(line: str) -> str:
    s = line.strip()
    return QUOTE_MARKS.sub("", s).strip() if s.startswith(">") else s


def _is_attribution(line: str) -> bool:
    """Whether ``line`` (past its blockquote marks) credits a quotation: a dash, then a name, in a few words and
    no question or exclamation (a line of dialogue opening with a dash, "— Who is there?", is no credit)."""
    s = _text(line)
    return (
        _ATTRIBUTION.match(s) is not None
        and len(s.split()) <= _ATTRIBUTION_WORDS
        and not s.rstrip("*_ ").endswith(("?", "!"))
    )


def _is_passage(lines: Sequence[str]) -> bool:
    """Whether ``lines`` are a short passage set off as someone else's: in a blockquote, or quoted or in
    italics from its first character to its last."""
    if len(lines) > _MAX_WORDS // 4:
        return False  # long before its words are counted: a whole chapter in one blockquote
    text = " ".join(_text(line) for line in lines)
    if not text or len(text.split()) > _MAX_WORDS:
        return False
    quoted_block = all(line.lstrip().startswith(">") for line in lines)
    return quoted_block or (text[0] in _OPENS and text[-1] in _CLOSES)


def _groups(lines: Sequence[str]) -> Iterator[tuple[int, int]]:
    """The runs of lines with text, as (start, end) indices (a blockquote's empty "> " line parts them)."""
    start = -1
    for i, line in enumerate(lines):
        if _text(line):
            start = i if start < 0 else start
        elif start >= 0:
            yield start, i
            start = -1
    if start >= 0:
        yield start, len(lines)


def _credit(lines: Sequence[str], group: tuple[int, int], nxt: tuple[int, int] | None) -> int:
    """The index of the attribution line that ends ``group`` or stands alone after it, or -1."""
    start, end = group
    if end - start > 1 and _is_attribution(lines[end - 1]):
        return end - 1
    if nxt is not None and nxt[1] - nxt[0] == 1 and _is_attribution(lines[nxt[0]]):
        return nxt[0]
    return -1


def epigraph_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indices of the lines of ``lines`` that are epigraphs, their attributions and the blockquote lines
    between them."""
    out: set[int] = set()
    groups = _groups(lines)  # lazily: a 200 MB book's list of every run would cost memory for nothing
    group = next(groups, None)
    top = True  # at the text's start, under a heading, or under an epigraph
    while group is not None:
        nxt = next(groups, None)
        start, end = group
        credit = _credit(lines, group, nxt) if top else -1
        if credit >= 0 and _is_passage(lines[start : min(end, credit)]):
            out.update(range(start, credit + 1))
            group = next(groups, None) if credit >= end else nxt
            continue
        # A heading, or a short line standing alone (a title), has an epigraph under it.
        top = end - start == 1 and line_kind(lines[start]) in ("heading", "short")
        group = nxt
    return frozenset(out)
