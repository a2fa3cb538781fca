"""Many small files: the index's cost on a folder of short notes.

50,000 notes of 40-400 words (quick: 1,000), cut in order from the journals of shared/bench/journals
(scott_daily entries and the nine whole journals, so the text is real prose and every note differs),
one file each in folders of 1,000. The first run with the index against the same first run with
``--no-index`` in the same window: ratio <= 2; peak memory (summed over the process tree) < 1 GiB.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, measure_tree, skip

AREA = "many-files"
_WS = re.compile(r"\s+")


def _words(journals: Path) -> Iterator[list[str]]:
    """The words of every journal text, one list per file, in a fixed order."""
    for path in sorted(journals.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".txt"):
            words = _WS.split(path.read_text(encoding="utf-8", errors="replace").strip())
            if words:
                yield words


def make_notes(journals: Path, dest: Path, count: int, seed: int = 11) -> int:
    """Write ``count`` notes of 40-400 words to ``dest`` (cycling through the journals); return their bytes."""
    rng = random.Random(seed)
    shutil.rmtree(dest, ignore_errors=True)
    written = size = 0
    while written < count:
        for words in _words(journals):
            pos = 0
            while pos < len(words) and written < count:
                n = rng.randint(40, 400)
                part = words[pos : pos + n]
                pos += n
                if len(part) < 40:
                    break
                path = dest / f"box{written // 1000:03d}" / f"note_{written:05d}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                text = " ".join(part) + "\n"
                path.write_text(text, encoding="utf-8")
                size += len(text.encode("utf-8"))
                written += 1
            if written >= count:
                break
    return size


def run(ctx: BenchContext) -> list[BenchResult]:
    """First run with and without the index over many short notes."""
    journals = ctx.bench_data("journals")
    if journals is None:
        return skip(AREA, "shared/bench/journals not found")
    count = 1_000 if ctx.quick else 50_000
    work = ctx.workdir / AREA
    notes = work / "notes"
    size = make_notes(journals, notes, count)
    results = [emit(BenchResult(AREA, "notes / corpus MB", f"{count} / {size / 1e6:.0f}"))]
    timings = {}
    for label, extra in (("--no-index", ["--no-index"]), ("with the index", [])):
        out = work / ("plain" if extra else "indexed")
        shutil.rmtree(out, ignore_errors=True)
        usage = measure_tree(batchsum_cmd("run", str(notes), "--out", str(out), "--quiet", *extra),
                             out.with_name(out.name + ".log"))  # fmt: skip
        if not usage.completed:
            return [*results, *skip(AREA, f"batchsum run {label} failed ({usage.exit_code})")]
        timings[label] = usage
        results.append(emit(BenchResult(AREA, f"first run {label}", usage.wall, "s")))
        mb = usage.peak_rss_kib / 1024
        results.append(emit(BenchResult(AREA, f"peak memory of the first run {label}", mb, "MB", "< 1024",
                                        mb < 1024)))  # fmt: skip
    ratio = timings["with the index"].wall / max(timings["--no-index"].wall, 1e-9)
    results.append(emit(BenchResult(AREA, "first run index / --no-index", ratio, "x", "<= 2", ratio <= 2)))
    return results


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--workdir", type=Path, default=Path(".bench-out"))
    args = ap.parse_args()
    run(BenchContext(shared=args.shared if args.shared.exists() else None, quick=args.quick, workdir=args.workdir))
