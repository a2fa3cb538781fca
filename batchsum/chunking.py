"""Token-budgeted, append-stable chunking: paragraphs first, then sentences, then characters.

The text is tokenized once; each token belongs to the unit (paragraph, sentence or piece)
in which it starts. Units tile the text exactly, so every token lands in some chunk.

Boundaries are content-defined: once a chunk holds ``MIN_FILL`` of its budget it ends after
the next "anchor" unit (one whose text hash is 0 mod ``ANCHOR_EVERY``), or where the budget
forces it. A chunk's end depends only on text before it (appending changes only the last
chunk or two), and because cuts prefer anchors, an edit in the middle of a file moves at most
the cuts up to the next anchor: later chunks, and their summaries, stay the same.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from batchsum.tokens import Tokenizer

MIN_FILL = 0.75
ANCHOR_EVERY = 6

_PARA_END = re.compile(r"\n[ \t]*\n\s*")
_SENT_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+|\n+")


@dataclass(frozen=True)
class Chunk:
    """A slice ``text[start:end]`` of a document, ``tokens`` long, whose first ``overlap_tokens`` repeat
    the end of the previous chunk."""

    index: int
    start: int
    end: int
    tokens: int
    overlap_tokens: int
    text: str

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _split_spans(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Tile text[start:end] with spans that end after each match of ``pattern``."""
    spans: list[tuple[int, int]] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        if m.end() <= pos:
            continue
        spans.append((pos, m.end()))
        pos = m.end()
    if pos < end:
        spans.append((pos, end))
    return spans


def _units(text: str, starts: Sequence[int], budget: int) -> list[tuple[int, int, int]]:
    """(start_char, end_char, tokens) units, none over ``budget`` tokens."""

    def tok(c: int) -> int:
        return bisect_left(starts, c)

    out: list[tuple[int, int, int]] = []
    for ps, pe in _split_spans(text, 0, len(text), _PARA_END):
        n = tok(pe) - tok(ps)
        if n <= budget:
            out.append((ps, pe, n))
            continue
        for ss, se in _split_spans(text, ps, pe, _SENT_END):
            m = tok(se) - tok(ss)
            if m <= budget:
                out.append((ss, se, m))
                continue
            # Character fallback at token boundaries: long code lines, tables, unpunctuated text.
            t0, t1 = tok(ss), tok(se)
            k = t0
            while k < t1:
                k2 = min(k + budget, t1)
                cs = ss if k == t0 else starts[k]
                ce = se if k2 == t1 else starts[k2]
                out.append((cs, ce, k2 - k))
                k = k2
    return out


def _is_anchor(unit: str) -> bool:
    digest = hashlib.blake2b(unit.strip().encode("utf-8", errors="surrogatepass"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % ANCHOR_EVERY == 0


def chunk_text(
    text: str,
    tokenizer: Tokenizer,
    chunk_size: int = 3000,
    overlap: int = 200,
    *,
    starts: Sequence[int] | None = None,
) -> list[Chunk]:
    """Split ``text`` into ~``chunk_size``-token chunks, each starting with ~``overlap`` tokens of the previous.

    ``starts`` (from ``tokenizer.token_starts(text)``) avoids tokenizing the text a second time.
    """
    if chunk_size <= 0 or overlap < 0 or overlap >= chunk_size:
        raise ValueError("need chunk_size > overlap >= 0")
    if not text or text.isspace():  # not strip(): that copies the whole text
        return []
    if starts is None:
        starts = tokenizer.token_starts(text)
    if not starts:
        return []
    budget = chunk_size - overlap
    units = _units(text, starts, budget)
    anchors = [_is_anchor(text[a:b]) for a, b, _ in units]
    chunks: list[Chunk] = []
    i = 0
    prev_first = 0  # first unit of the previous chunk's new content
    while i < len(units):
        if not chunks:
            cstart, used = units[0][0], 0
        else:
            # Overlap: whole trailing units of the previous chunk that fit, else its last `overlap` tokens.
            j, used = i, 0
            while j - 1 >= prev_first and used + units[j - 1][2] <= overlap:
                j -= 1
                used += units[j][2]
            if j < i:
                cstart = units[j][0]
            elif overlap > 0:
                end_tok = bisect_left(starts, units[i - 1][1])
                first_tok = max(bisect_left(starts, units[i - 1][0]), end_tok - overlap)
                cstart = starts[first_tok] if first_tok < len(starts) else units[i - 1][1]
                used = end_tok - first_tok
            else:
                cstart, used = units[i][0], 0
        k = i
        total = used
        min_fill = used + MIN_FILL * (chunk_size - used)
        while k < len(units) and (k == i or total + units[k][2] <= chunk_size):
            total += units[k][2]
            k += 1
            if total >= min_fill and anchors[k - 1]:
                break
        cend = units[k - 1][1]
        chunks.append(Chunk(len(chunks), cstart, cend, total, used, text[cstart:cend]))
        prev_first = i
        i = k
    return chunks
