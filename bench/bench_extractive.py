"""Extractive speed: ``batchsum run`` over the journal and Gutenberg corpora against sumy LexRank.

Figures: files/s and MB/s of source, peak RSS of the ``batchsum run`` process (target < 1 GiB),
the speed ratio against sumy LexRank on the same documents with the same number of sentences
per document (target >= 5x), and cost linearity (cost per MB on the full corpus vs half of it,
fixed start-up cost removed; target <= 1.25). Quick mode uses small subsets.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, measure_tree, skip

AREA = "extractive"
TRASH = "set-aside"  # earlier outputs, deleted once this module's timings are done
GIB_KIB = 1024 * 1024
SPEED_RUNS = 3  # runs of each side of the speed ratio (medians)


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if p.is_file() and not p.name.startswith("."))


def _corpus(ctx: BenchContext) -> tuple[list[Path], list[Path]] | None:
    """(journal files, book files) for this run size."""
    scott = ctx.bench_data("journals", "scott_daily")
    books_dir = ctx.bench_data("gutenberg", "docs")
    if scott is None or books_dir is None:
        return None
    journals = _files(scott, "*.md")
    books = _files(books_dir, "*.txt")
    if ctx.quick:
        # Small but mixed: short daily entries plus the two smallest books (hierarchical levels).
        journals = journals[:120]
        books = sorted(books, key=lambda p: p.stat().st_size)[:2]
    return journals, books


def _set_aside(path: Path) -> None:
    """Move an earlier output out of the way; it is deleted after the timings (:func:`_empty_trash`).

    Deleting thousands of files just before a timed run slows that run's own file creation: ext4
    skips recently deleted inodes when it allocates new ones, and a first run creates ~5 per source.
    Measured here: a run right after ``rm -rf`` of the previous output spent ~1 s more in the kernel.
    """
    if path.exists() or path.is_symlink():
        trash = path.parent / TRASH
        trash.mkdir(exist_ok=True)
        path.rename(trash / f"{path.name}.{time.time_ns()}")


def _empty_trash(work: Path) -> None:
    shutil.rmtree(work / TRASH, ignore_errors=True)


def _mirror(folder: Path, journals: list[Path], books: list[Path]) -> Path:
    """A folder of symlinks (journals/, books/), so each variant is one ``batchsum run`` path."""
    _set_aside(folder)
    for sub, files in (("journals", journals), ("books", books)):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        for f in files:
            (folder / sub / f.name).symlink_to(f)
    return folder


def _run_batchsum(src: Path, out: Path, log: Path) -> tuple[float, int, float]:
    """(wall seconds, peak RSS KiB, CPU seconds) of one fresh ``batchsum run``, its workers included."""
    _set_aside(out)
    # The corpus is a folder of symlinks to the shared data, outside it: followed on purpose.
    cmd = batchsum_cmd("run", str(src), "--out", str(out), "--no-index", "--no-metrics", "--follow-symlinks")
    usage = measure_tree(cmd, log)
    if not usage.completed:
        tail = log.read_text(encoding="utf-8", errors="replace")[-800:]
        raise RuntimeError(f"batchsum run {src} failed ({usage.exit_code}): {tail}")
    return usage.wall, usage.peak_rss_kib, usage.cpu


def _size(files: list[Path]) -> int:
    return sum(f.stat().st_size for f in files)


def _sentence_budgets(out: Path, rel_files: list[tuple[str, Path]]) -> dict[Path, int]:
    """Sentences in each document's L3 final (1 for files too small to be summarized)."""
    from batchsum.evaluate.scoring import plain_text, split_sentences
    from batchsum.tree import node_path, read_node

    budgets: dict[Path, int] = {}
    for rel, f in rel_files:
        final = node_path(out, rel, 3, None)
        try:
            _, body = read_node(final)
            budgets[f] = max(1, len(split_sentences(plain_text(body))))
        except (OSError, ValueError):
            budgets[f] = 1
    return budgets


def _sumy_seconds(files: list[Path], budgets: dict[Path, int]) -> tuple[float, float]:
    """(wall, CPU) seconds for sumy LexRank over ``files`` (file reading and parsing included)."""
    from batchsum.evaluate.baselines import summarize_sentences
    from batchsum.readers.decoding import decode_bytes

    summarize_sentences("lexrank", "Warm up the imports. Then time the work.", 1)
    t0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        text, _ = decode_bytes(f.read_bytes())
        summarize_sentences("lexrank", text, budgets[f])
    return time.perf_counter() - t0, time.process_time() - c0


def run(ctx: BenchContext) -> list[BenchResult]:
    """Throughput, memory, speed ratio against sumy LexRank and linearity of the extractive path."""
    corpus = _corpus(ctx)
    if corpus is None:
        return skip(AREA, "shared/bench/journals/scott_daily or shared/bench/gutenberg/docs not found")
    journals, books = corpus
    work = ctx.workdir / "extractive"
    work.mkdir(parents=True, exist_ok=True)
    results: list[BenchResult] = []
    label = "quick subset" if ctx.quick else "full corpus"

    # Fixed start-up cost (interpreter, imports, tokenizer load), removed from the linearity figure.
    tiny = _mirror(work / "src-tiny", journals[:1], [])
    t_fixed, _, _ = _run_batchsum(tiny, work / "out-tiny", work / "tiny.log")
    results.append(emit(BenchResult(AREA, "start-up: batchsum run on one file", t_fixed, "s")))

    full_files = journals + books
    full_src = _mirror(work / "src-full", journals, books)
    t_full, rss_full, cpu_full = _run_batchsum(full_src, work / "out-full", work / "full.log")
    mb_full = _size(full_files) / 1e6
    n_full = len(full_files)
    results.append(emit(BenchResult(AREA, f"files/s ({n_full} files, {label})", n_full / t_full, "files/s")))
    results.append(emit(BenchResult(AREA, f"MB/s of source ({mb_full:.1f} MB)", mb_full / t_full, "MB/s")))
    # Above 1: worker processes compute in parallel; well below 1: the run waits (I/O, fsync, sleeps).
    results.append(emit(BenchResult(AREA, "CPU time / wall time of the full run", cpu_full / t_full, "x")))
    results.append(
        emit(
            BenchResult(
                AREA,
                "peak RSS of batchsum run (its workers included)",
                rss_full / 1024,
                "MiB",
                "< 1024 MiB",
                rss_full < GIB_KIB,
            )
        )
    )

    # Linearity: every other file of each kind is "half"; compare marginal cost per MB.
    half_j, half_b = journals[::2], books[::2]
    half_src = _mirror(work / "src-half", half_j, half_b)
    t_half, _, _ = _run_batchsum(half_src, work / "out-half", work / "half.log")
    mb_half = _size(half_j + half_b) / 1e6
    per_mb_full = max(t_full - t_fixed, 1e-6) / mb_full
    per_mb_half = max(t_half - t_fixed, 1e-6) / mb_half
    linearity = per_mb_full / per_mb_half
    times = f"{t_half:.1f}s/{t_full:.1f}s"
    results.append(emit(BenchResult(AREA, f"time half ({mb_half:.1f} MB) / full ({mb_full:.1f} MB)", times)))
    results.append(
        emit(
            BenchResult(
                AREA, "cost/MB full ÷ cost/MB half (start-up removed)", linearity, "x", "<= 1.25", linearity <= 1.25
            )
        )
    )

    # Speed against sumy LexRank on the same documents and sentence counts. LexRank is quadratic
    # in sentences, so the comparison uses a sample: short journals plus the smallest books. One
    # run of each moved the ratio by a tenth from one window to the next on the shared machine, so
    # each side is run SPEED_RUNS times, alternating, and the ratio is that of the medians.
    n_j, n_b = (40, 1) if ctx.quick else (300, 3)
    sample_j = journals[:n_j]
    sample_b = sorted(books, key=lambda p: p.stat().st_size)[:n_b]
    sample_src = _mirror(work / "src-sample", sample_j, sample_b)
    rel = [(f"journals/{f.name}", f) for f in sample_j] + [(f"books/{f.name}", f) for f in sample_b]
    ours: list[tuple[float, float]] = []
    sumy: list[tuple[float, float]] = []
    budgets: dict[Path, int] = {}
    for _ in range(SPEED_RUNS):
        t_run, _, cpu_run = _run_batchsum(sample_src, work / "out-sample", work / "sample.log")
        ours.append((t_run, cpu_run))
        budgets = budgets or _sentence_budgets(work / "out-sample", rel)
        sumy.append(_sumy_seconds(sample_j + sample_b, budgets))
    t_ours, cpu_ours = statistics.median(t for t, _ in ours), statistics.median(c for _, c in ours)
    t_sumy, cpu_sumy = statistics.median(t for t, _ in sumy), statistics.median(c for _, c in sumy)
    ratio = t_sumy / t_ours
    mb_sample = _size(sample_j + sample_b) / 1e6
    runs = " ".join(f"{s:.1f}/{o:.1f}" for (s, _), (o, _) in zip(sumy, ours, strict=True))
    results.append(
        emit(
            BenchResult(
                AREA,
                f"sumy LexRank vs batchsum ({len(rel)} docs, {mb_sample:.1f} MB; median of {SPEED_RUNS}: {runs})",
                f"{t_sumy:.1f}s/{t_ours:.1f}s",
            )
        )
    )
    results.append(
        emit(BenchResult(AREA, "speed vs sumy LexRank (wall, with start-up)", ratio, "x", ">= 5x", ratio >= 5.0))
    )
    _empty_trash(work)
    warm = t_sumy / max(t_ours - t_fixed, 1e-6)
    results.append(emit(BenchResult(AREA, "speed vs sumy LexRank (wall, no start-up)", warm, "x")))
    results.append(emit(BenchResult(AREA, "speed vs sumy LexRank (CPU seconds)", cpu_sumy / max(cpu_ours, 1e-6), "x")))
    return results


if __name__ == "__main__":
    from bench.run_all import main

    sys.exit(main(["--only", "extractive", *sys.argv[1:]]))
