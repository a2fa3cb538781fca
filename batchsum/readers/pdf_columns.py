"""A two-column page as ``pdftotext -layout`` writes it, read as a reader does: the left column top to
bottom, then the right (:func:`in_reading_order`). Read line by line, such a page interleaves the columns
("Abstract  crop yields were unchanged ..." / "We compared soil bacterial ...  (mean wheat yield ...").

The columns are told by the gutter between them, a "whitespace river" (the tall empty strip that layout
analysis looks for: Breuel 2002, "Two Geometric Algorithms for Layout Analysis"; pdftotext's and
Tesseract's column finding): on most lines of a page, a run of two blanks or more whose far side, where the
right column's text starts, lies within a few characters of one column. A text without one is returned as
it is (the same object).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from batchsum.text import runs_on

__all__ = ["in_reading_order", "two_column_pages"]

_SAMPLE = 50_000  # characters of a long page's opening that decide whether it is set in columns
_GAP = re.compile(r"(?<=\S) {2,}(?=\S)")  # blanks with text on both sides: a gutter, or a table's spacing
_TOL = 2  # characters the right column's first letters stray by (a paragraph's indent, pdftotext's rounding)
_MIN_ROWS = 6  # lines split by the gutter in a run: fewer are a table's rows or a few aligned lines
_MIN_SHARE = 0.5  # of the non-blank lines: of a run's, split by the gutter; of a page's, in two-column runs
_MIN_PROSE = 0.6  # of the split lines whose both sides are prose: a column of labels or figures is a table's
_MIN_WORDS = 3  # words on a side of a prose line: a column of text holds 5 to 10 a line
_MIN_FILL = 0.6  # of the column's width a prose line fills: a column of text is set justified or nearly so
_MIN_WORDS_SHARE = 0.7  # words among a side's tokens: code, figures and timestamps hold fewer
# A word as prose has it: letters, maybe hyphenated or with an apostrophe, in brackets or quotes, before a stop.
_WORD = re.compile(r"[(\[\"'“‘]?[^\W\d_]+(?:[-'’][^\W\d_]+)*[-.,;:!?)\]\"'”’]*")


@dataclass
class _Row:
    """A line of a two-column run: its left and right column's text ("" for none), or a line across both."""

    left: str
    right: str
    split: bool  # text on both sides of the gutter


def _gutter_column(lines: list[str]) -> int | None:
    """The column where a page's right-hand text starts after a run of blanks on the most lines (within
    ``_TOL``), or None when fewer than ``_MIN_SHARE`` of its non-blank lines have such a run there."""
    ends: Counter[int] = Counter()
    filled = 0
    for line in lines:
        if line.strip():
            filled += 1
            ends.update({m.end() for m in _GAP.finditer(line)})
    if not ends:
        return None
    best, count = 0, 0
    for col in ends:  # a window over the columns seen: linear in the lines' length
        near = sum(ends.get(c, 0) for c in range(col - _TOL, col + _TOL + 1))
        if near > count or (near == count and col < best):
            best, count = col, near
    return best if count >= max(_MIN_ROWS, _MIN_SHARE * filled) else None


def _row(line: str, col: int) -> _Row | None:
    """``line`` cut at the gutter whose right side starts within ``_TOL`` of ``col``; a line with text on one
    side only is a row too; None for a line across the gutter (a title, a full-width caption)."""
    lo, hi = col - _TOL, col + _TOL
    text = line.rstrip()
    if not text.strip():
        return _Row("", "", False)
    cuts = [m for m in _GAP.finditer(text) if lo <= m.end() <= hi]
    if cuts:
        m = min(cuts, key=lambda m: abs(m.end() - col))
        return _Row(text[: m.start()], " " * (m.end() - lo) + text[m.end() :], True)
    indent = len(text) - len(text.lstrip())
    if indent >= lo:
        return _Row("", " " * (indent - lo) + text.lstrip(), False)
    return _Row(text, "", False) if len(text) <= lo - 2 else None


def _prose(rows: list[_Row]) -> bool:
    """Whether both sides of the split rows read as columns of prose: most of them several words filling
    most of their column, their tokens mostly words; not a table's labels and figures, code and its comments, or a
    transcript's timestamps."""
    split = [r for r in rows if r.split]
    if not split:
        return False
    sides = [[r.left for r in split], [r.right.strip() for r in split]]
    for side in sides:
        width = max(len(s) for s in side)
        margin = min(len(s) - len(s.lstrip()) for s in side)
        full = sum(1 for s in side if len(s.split()) >= _MIN_WORDS and len(s) - margin >= _MIN_FILL * (width - margin))
        tokens = [t for s in side for t in s.split()]
        words = sum(1 for t in tokens if _WORD.fullmatch(t))
        if full < _MIN_PROSE * len(side) or words < _MIN_WORDS_SHARE * len(tokens):
            return False
    return True


def _runs(rows: list[_Row | None]) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``rows`` that are two-column runs: no line across the gutter, at least
    ``_MIN_ROWS`` lines split by it, and they are ``_MIN_SHARE`` of the run's non-blank lines."""
    spans, start = [], 0
    for i in range(len(rows) + 1):
        if i < len(rows) and rows[i] is not None:
            continue
        filled = [k for k in range(start, i) if (r := rows[k]) is not None and (r.left or r.right)]
        split = sum(1 for k in filled if (r := rows[k]) is not None and r.split)
        if split >= _MIN_ROWS and split >= _MIN_SHARE * len(filled):
            spans.append((filled[0], filled[-1] + 1))  # blank lines around a run stay where they are
        start = i + 1
    return spans


def _two_column_runs(page: str) -> tuple[list[str], list[tuple[int, int]], list[_Row | None]] | None:
    """A page's lines, its two-column runs and its rows, or None when it is not a two-column page."""
    lines = page.split("\n")
    col = _gutter_column(lines)
    if col is None:
        return None
    rows = [_row(line, col) for line in lines]
    in_runs = [r for a, b in _runs(rows) for r in rows[a:b] if r is not None and r.split]
    edge = max((len(r.left) for r in in_runs), default=0) + 1
    # A one-sided line reaching into the gutter is across it (a page number, a centred line), no column's.
    rows = [None if r is not None and len(r.left) > edge else r for r in rows]
    spans = _runs(rows)
    kept = [r for a, b in spans for r in rows[a:b] if r is not None]
    filled = sum(1 for line in lines if line.strip())
    if sum(1 for r in kept if r.left or r.right) < _MIN_SHARE * filled or not _prose(kept):
        return None
    return lines, spans, rows


def _blocks(texts: list[str]) -> list[list[str]]:
    """A column's blocks: its runs of lines between blank slots (the other column's text beside them)."""
    blocks: list[list[str]] = [[]]
    for t in texts:
        if t.strip():
            blocks[-1].append(t)
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _goes_on(block: list[str], after: list[str]) -> bool:
    """Whether ``after`` goes on with the sentence ``block`` stops in: it ends mid-way, the other opens in lower
    case."""
    return runs_on(block[-1]) and after[0].lstrip()[:1].islower()


def _read_run(rows: list[_Row]) -> list[str]:
    """A run's lines in reading order: the left column's blocks, then the right's. A sentence a column cuts goes
    on at the top of the next: when the right column opens mid-sentence and the left column's last block ends
    its sentence, the rest belongs to the first left block that stops mid-sentence above a block opening no
    sentence's rest (an abstract set in balanced columns over the body), and is read right after it."""
    left, right = _blocks([r.left for r in rows]), [[t.strip() for t in b] for b in _blocks([r.right for r in rows])]
    blocks = left + right
    if left and right and right[0][0][:1].islower() and not runs_on(left[-1][-1]):
        cut = next(
            (k for k in range(len(left) - 1) if runs_on(left[k][-1]) and not _goes_on(left[k], left[k + 1])), None
        )
        if cut is not None:
            blocks = left[: cut + 1] + right[:1] + left[cut + 1 :] + right[1:]
    out = list(blocks[0])
    for above, block in pairwise(blocks):
        out += ([] if _goes_on(above, block) else [""]) + block  # a blank line between paragraphs only
    return out


def _pages(text: str) -> Iterator[tuple[int, int]]:
    """The start and end of each of ``text``'s pages: between form feeds, or the whole text without them."""
    start = 0
    while (end := text.find("\f", start)) >= 0:
        yield start, end
        start = end + 1
    yield start, len(text)


def _page_runs(text: str, start: int, end: int) -> tuple[list[str], list[tuple[int, int]], list[_Row | None]] | None:
    """:func:`_two_column_runs` of the page ``text[start:end]``, decided on its opening first: a book of 200 MB
    without form feeds is split into lines only when its opening is set in columns."""
    if end - start > _SAMPLE:
        cut = text.rfind("\n", start, start + _SAMPLE)
        if cut <= start or _two_column_runs(text[start:cut]) is None:
            return None
    return _two_column_runs(text[start:end])


def in_reading_order(text: str) -> str:
    """``text`` with each two-column page (between form feeds, or the whole text when there are none) read
    a column at a time: the left column's lines, then the right's; lines across both columns (a title, a
    centred heading, a full-width caption) above, below or between the two-column runs stay where they are.
    Any other page reads as it is."""
    if "  " not in text:
        return text
    pages: list[str] = []
    changed = False
    for start, end in _pages(text):
        found = _page_runs(text, start, end)
        if found is None:
            pages.append(text[start:end])
            continue
        lines, spans, rows = found
        out: list[str] = []
        last = 0
        for a, b in spans:
            out += lines[last:a] + _read_run([r for r in rows[a:b] if r is not None])
            last = b
        pages.append("\n".join(out + lines[last:]))
        changed = True
    return "\f".join(pages) if changed else text


def two_column_pages(text: str) -> int:
    """How many of ``text``'s pages :func:`in_reading_order` reads a column at a time."""
    if "  " not in text:
        return 0
    return sum(1 for start, end in _pages(text) if _page_runs(text, start, end) is not None)
