"""Short files kept whole: every NONE entry of scott_daily is findable by a phrase of its own.

Runs the library API in this process (one embedding model load for every query): a run over the
journal's NONE entries (all 195; quick: 40) with the index on, then, for 20 entries picked at random
(quick: 10), a search for eight words from the middle of the entry; the entry must be in the top 5.
Also the first-run cost of keeping them (the same run with ``keep_short`` off, without the index).
"""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

from bench.common import BenchContext, BenchResult, emit, skip

AREA = "short"
NONE_BOUND = 100


def _none_entries(src: Path, dest: Path, limit: int | None) -> list[str]:
    from batchsum.tokens import get_tokenizer

    tok = get_tokenizer("cl100k_base")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    names: list[str] = []
    for p in sorted(src.iterdir()):
        text = p.read_text(encoding="utf-8")
        if text.strip() and tok.count(text) < NONE_BOUND:
            shutil.copy(p, dest / p.name)
            names.append(p.name)
            if limit is not None and len(names) >= limit:
                break
    return names


def _phrase(text: str) -> str:
    words = [w for w in text.split() if not w.startswith("#")]
    mid = len(words) // 2
    return " ".join(words[max(0, mid - 4) : mid + 4])


def run(ctx: BenchContext) -> list[BenchResult]:
    """Findability of kept-whole entries and the first-run cost of keeping them."""
    scott = ctx.bench_data("journals", "scott_daily")
    if scott is None:
        return skip(AREA, "../shared/bench not found")
    import batchsum
    from batchsum.config import IndexConfig, RunConfig

    work = ctx.workdir / AREA
    corpus = work / "none"
    names = _none_entries(scott, corpus, 40 if ctx.quick else None)
    results: list[BenchResult] = []

    # A warm-up run first: imports and the tokenizer load would otherwise count against the first timing.
    batchsum.run(RunConfig(paths=[corpus], out=work / "warm-up", index=False, metrics=False, quiet=True))
    timings = {}
    for keep in (False, True):
        out = work / f"out-{keep}"
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        batchsum.run(RunConfig(paths=[corpus], out=out, index=False, quiet=True, keep_short=keep))
        timings[keep] = time.perf_counter() - t0
    results.append(emit(BenchResult(AREA, f"first run of {len(names)} NONE entries, kept whole", timings[True], "s")))
    results.append(emit(BenchResult(AREA, "same, --no-short (nothing written)", timings[False], "s")))

    out = work / "indexed"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True))
    results.append(emit(BenchResult(AREA, "first run with the index", time.perf_counter() - t0, "s")))

    picked = random.Random(18).sample(names, min(10 if ctx.quick else 20, len(names)))
    found = 0
    for name in picked:
        hits = batchsum.search(IndexConfig(out=out), _phrase((corpus / name).read_text(encoding="utf-8")), k=5)
        found += any(h.doc_id == name for h in hits)
    results.append(
        emit(
            BenchResult(
                AREA,
                "NONE entries in the top 5 for a phrase of theirs",
                f"{found}/{len(picked)}",
                "",
                "all",
                found == len(picked),
            )
        )
    )
    return results
