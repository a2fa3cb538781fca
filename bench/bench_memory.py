"""One 194 MB book-like text file: the memory of the whole run, every process it starts counted.

Builds the file from the Gutenberg books of ``shared/bench/gutenberg`` repeated (real prose: curly
quotes and dashes make Python hold it at two bytes a character, where ``bench_bigfile``'s ASCII
words take one), runs ``batchsum run FILE --no-index --no-metrics`` as a fresh process, and samples
the process tree every 0.1 s: the resident sets summed (RSS: what ``ps`` shows, pages the fork
server's children share counted in each) and the proportional sets summed (PSS: shared pages
split). Target: the RSS sum under 1 GiB. Quick mode: a 2 MB file, informational.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, rss_pss_kib, skip, tree_pids

AREA = "memory"
SIZE_BYTES = 194_000_000
QUICK_SIZE_BYTES = 2_000_000
TARGET_MIB = 1024
POLL_S = 0.1


def build_file(books: Path, path: Path, size: int) -> None:
    """``path``: the books of ``books`` one after another, again and again, until ``size`` bytes."""
    if path.exists() and path.stat().st_size >= size:
        return
    sources = sorted(p for p in books.iterdir() if p.suffix == ".txt")
    tmp = path.with_suffix(".tmp")
    written = 0
    with open(tmp, "wb") as out:
        while written < size:
            for src in sources:
                data = src.read_bytes() + b"\n\n"
                out.write(data)
                written += len(data)
                if written >= size:
                    break
    os.replace(tmp, path)


def measure(cmd: list[str], log: Path) -> tuple[float, int, int, int, int]:
    """Run ``cmd``: (wall s, exit code, peak RSS sum KiB, peak PSS sum KiB, most processes at once)."""
    peak_rss = peak_pss = most = 0
    with open(log, "w", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            tree = tree_pids(proc.pid)
            sizes = [rss_pss_kib(p) for p in tree]
            peak_rss = max(peak_rss, sum(r for r, _ in sizes))
            peak_pss = max(peak_pss, sum(p for _, p in sizes))
            most = max(most, len(tree))
            time.sleep(POLL_S)
        wall = time.perf_counter() - t0
    return wall, proc.returncode, peak_rss, peak_pss, most


def run(ctx: BenchContext) -> list[BenchResult]:
    """Peak memory (RSS and PSS summed over the process tree) and wall of one run over one big text."""
    books = ctx.bench_data("gutenberg", "docs")
    if books is None:
        return skip(AREA, "shared/bench/gutenberg/docs not found")
    size = QUICK_SIZE_BYTES if ctx.quick else SIZE_BYTES
    folder = ctx.workdir / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"books-{size // 1_000_000}mb.txt"
    build_file(books, path, size)
    out = folder / "out"
    shutil.rmtree(out, ignore_errors=True)
    cmd = batchsum_cmd("run", str(path), "--out", str(out), "--no-index", "--no-metrics", "-q")
    wall, code, rss, pss, procs = measure(cmd, folder / "run.log")
    if code not in (0, 1):
        raise RuntimeError(f"batchsum run failed ({code}): {(folder / 'run.log').read_text()[-2000:]}")
    label = f"one {size / 1e6:.0f} MB book text"
    rss_mib = rss / 1024
    return [
        emit(BenchResult(AREA, f"{label}: wall", wall, "s")),
        emit(BenchResult(AREA, f"{label}: processes at most", str(procs))),
        emit(BenchResult(AREA, f"{label}: peak PSS, process tree summed", pss / 1024, "MiB")),
        emit(
            BenchResult(
                AREA,
                f"{label}: peak RSS, process tree summed",
                rss_mib,
                "MiB",
                target="" if ctx.quick else f"< {TARGET_MIB} MiB",
                ok=None if ctx.quick else rss_mib < TARGET_MIB,
            )
        ),
    ]
