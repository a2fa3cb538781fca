"""Chunking: the task graph a corpus makes, and how much of it an append or a middle edit redoes.

Per corpus (QMSum meetings, CRD3 episodes, the whole journals, Scott's daily entries), batchsum's
plan next to the seed graph (``shared/tools/llm_bench/bound.py``: fixed windows of 3000 tokens
advancing by 2800, groups of 5, the same level thresholds):

* requests (nodes to summarize) and L1 input tokens (what the chunk prompts carry; targets: at most
  1.05x the seed's on QMSum);
* for every file of more than one chunk, the nodes redone after appending a paragraph and after
  inserting a sentence in its middle, and the chunk cuts that move.

Nodes redone are counted from node keys, as the node store does: an L1 is redone when its text or
position is new, a group when any of its inputs is, the top node when anything below it is. No
server, no timing: planning only.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from batchsum.chunking import chunk_text
from batchsum.config import RunConfig
from batchsum.model import SummaryLevel, Thresholds
from batchsum.tokens import Tokenizer, get_tokenizer
from bench.common import BenchContext, BenchResult, emit, skip

AREA = "chunks"
CORPORA = [("qmsum", "docs"), ("crd3", "docs"), ("journals", "whole"), ("journals", "scott_daily")]
QUICK_FILES = 3
TARGET = 1.05  # at most this times the seed graph's requests and L1 tokens on QMSum
APPENDED = (
    "\n\nLater the same evening we went over the notes once more. Nothing in them changed the plan, "
    "but two of the dates were wrong and the list of people to call was longer than anyone had said. "
    "We agreed to send the corrected list in the morning and to meet again at the end of the week.\n"
)
INSERTED = "One more thing was said here that nobody wrote down at the time. "


@dataclass
class Graph:
    """One file's summary tree: node keys by level, and where its chunks end (character offsets)."""

    keys: list[str]
    cuts: list[int]


def _h(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _tree(l1: list[str], level: SummaryLevel, group: int) -> list[str]:
    """Keys of L1s, groups and top node, each a hash of its inputs (like outputs stored by key)."""
    if level is SummaryLevel.HIERARCHICAL and len(l1) > 1:
        groups = [_h("L2", *l1[i : i + group]) for i in range(0, len(l1), group)]
        return [*l1, *groups, _h("L3", *groups)]
    if level is SummaryLevel.DETAILED or len(l1) > 1:
        return [*l1, _h("L3", *l1)]
    return l1


def batchsum_graph(text: str, tok: Tokenizer, cfg: RunConfig) -> Graph:
    """The nodes batchsum plans for ``text`` (as ``planning.plan_file``)."""
    starts = tok.token_starts(text)
    level = cfg.thresholds.level_for(len(starts))
    if level is SummaryLevel.NONE:
        return Graph([], [])
    if level in (SummaryLevel.BRIEF, SummaryLevel.STANDARD):
        return Graph([_h("L1", text)], [len(text)])
    chunks = chunk_text(text, tok, cfg.chunk_size, cfg.chunk_overlap)
    l1 = [_h("L1", c.index, c.text) for c in chunks]
    return Graph(_tree(l1, level, cfg.group_size), [c.end for c in chunks])


def seed_graph(text: str, tok: Tokenizer, cfg: RunConfig) -> Graph:
    """The seed's nodes for ``text``: windows of ``chunk_size`` tokens every ``chunk_size - overlap``."""
    ids = tok.encode(text)
    starts = tok.token_starts(text)
    level = cfg.thresholds.level_for(len(ids))
    if level is SummaryLevel.NONE:
        return Graph([], [])
    if level in (SummaryLevel.BRIEF, SummaryLevel.STANDARD):
        return Graph([_h("L1", text)], [len(text)])
    step = cfg.chunk_size - cfg.chunk_overlap
    windows = [ids[: cfg.chunk_size]]
    start = step
    while start + cfg.chunk_overlap < len(ids):
        windows.append(ids[start : start + cfg.chunk_size])
        start += step
    l1 = [_h("L1", i, w) for i, w in enumerate(windows)]
    ends = (i * step + cfg.chunk_size for i in range(len(windows)))
    cuts = [starts[e] if e < len(starts) else len(text) for e in ends]
    return Graph(_tree(l1, level, cfg.group_size), cuts)


def l1_tokens(text: str, tok: Tokenizer, cfg: RunConfig, seed: bool) -> int:
    """Tokens the L1 prompts carry (chunk texts; a file of one node: its text)."""
    n = tok.count(text)
    level = cfg.thresholds.level_for(n)
    if level is SummaryLevel.NONE:
        return 0
    if level in (SummaryLevel.BRIEF, SummaryLevel.STANDARD):
        return n
    if seed:
        step = cfg.chunk_size - cfg.chunk_overlap
        k = 1 + max(0, -(-(n - cfg.chunk_size) // step))
        return n + (k - 1) * cfg.chunk_overlap
    return sum(c.tokens for c in chunk_text(text, tok, cfg.chunk_size, cfg.chunk_overlap))


def middle_edit(text: str) -> tuple[str, int]:
    """``text`` with a sentence inserted at the line start nearest its middle, and where."""
    mid = text.find("\n", len(text) // 2) + 1 or len(text) // 2
    return text[:mid] + INSERTED + text[mid:], mid


def redone(before: Graph, after: Graph) -> int:
    """Nodes of ``after`` whose key ``before`` does not have."""
    old = set(before.keys)
    return sum(1 for k in after.keys if k not in old)


def moved(before: Graph, after: Graph, at: int, shift: int) -> int:
    """Cuts of ``before`` (mapped past an insertion of ``shift`` characters at ``at``) not in ``after``."""
    new = set(after.cuts)
    return sum(1 for c in before.cuts[:-1] if (c + shift if c >= at else c) not in new)


@dataclass
class CorpusFigures:
    files: int = 0
    requests: int = 0
    l1_tokens: int = 0
    multi: int = 0  # files of more than one chunk
    chunks: int = 0
    append_redone: int = 0
    append_max: int = 0
    edit_redone: int = 0
    edit_max: int = 0
    edit_moved: int = 0


def measure(texts: Iterable[str], tok: Tokenizer, cfg: RunConfig, seed: bool) -> CorpusFigures:
    """Figures of one corpus for batchsum's graph or (``seed``) the seed's."""
    graph = seed_graph if seed else batchsum_graph
    f = CorpusFigures()
    for text in texts:
        g = graph(text, tok, cfg)
        f.files += 1
        f.requests += len(g.keys)
        f.l1_tokens += l1_tokens(text, tok, cfg, seed)
        if len(g.cuts) < 2:
            continue
        f.multi += 1
        f.chunks += len(g.cuts)
        n = redone(g, graph(text + APPENDED, tok, cfg))
        f.append_redone += n
        f.append_max = max(f.append_max, n)
        edited, at = middle_edit(text)
        e = graph(edited, tok, cfg)
        n = redone(g, e)
        f.edit_redone += n
        f.edit_max = max(f.edit_max, n)
        f.edit_moved += moved(g, e, at, len(INSERTED))
    return f


def _texts(folder: Path, limit: int | None) -> list[str]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    return [p.read_text(encoding="utf-8", errors="replace") for p in files[:limit]]


def corpus_results(name: str, texts: list[str], tok: Tokenizer, cfg: RunConfig) -> list[BenchResult]:
    """Both graphs' figures for one corpus as bench lines."""
    ours, seed = measure(texts, tok, cfg, seed=False), measure(texts, tok, cfg, seed=True)
    strict = name.startswith("qmsum")
    out = []
    for label, a, b in (("requests", ours.requests, seed.requests), ("L1 tokens", ours.l1_tokens, seed.l1_tokens)):
        ratio = a / b if b else 1.0
        out.append(
            emit(
                BenchResult(
                    AREA,
                    f"{name}: {label} {a:,} vs seed {b:,}",
                    ratio,
                    "x",
                    target=f"<= {TARGET}" if strict else "",
                    ok=(ratio <= TARGET) if strict else None,
                )
            )
        )
    if ours.multi:
        for label, a, b in (
            ("append: nodes redone / file", ours.append_redone, seed.append_redone),
            ("middle edit: nodes redone / file", ours.edit_redone, seed.edit_redone),
            ("middle edit: cuts moved / file", ours.edit_moved, seed.edit_moved),
        ):
            value = f"{a / ours.multi:.2f} vs seed {b / seed.multi:.2f}"
            out.append(emit(BenchResult(AREA, f"{name}: {label}", value, f"({ours.multi} files)")))
        out.append(
            emit(
                BenchResult(
                    AREA,
                    f"{name}: nodes / file; most redone (append, edit)",
                    f"{ours.requests / ours.files:.1f}; {ours.append_max}, {ours.edit_max}",
                    f"seed {seed.append_max}, {seed.edit_max}",
                )
            )
        )
    return out


def run(ctx: BenchContext) -> list[BenchResult]:
    """Graph size and edit locality of batchsum's chunking and the seed's on the shared corpora."""
    tok = get_tokenizer()
    cfg = RunConfig(paths=[], thresholds=Thresholds())
    results: list[BenchResult] = []
    for corpus, sub in CORPORA:
        folder = ctx.bench_data(corpus, sub)
        if folder is None:
            results += skip(AREA, f"shared/bench/{corpus}/{sub} not found")
            continue
        texts = _texts(folder, QUICK_FILES if ctx.quick else None)
        results += corpus_results(f"{corpus}/{sub}", texts, tok, cfg)
    return results


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--shared", type=Path, default=Path("../shared"))
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    run(BenchContext(a.shared if a.shared.exists() else None, a.quick, Path(".bench-out")))
    sys.exit(0)
