"""Metrics overhead and report speed.

Figures:
- wall time of ``batchsum run`` over ``journals/scott_daily`` with metrics on vs ``--no-metrics``
  (median of alternating fresh runs; target: < 5 % overhead), plus the cost of recording that
  run's rows measured directly in a fresh process (DuckDB transaction + Parquet snapshots,
  imports included);
- ``batchsum report`` wall time (fresh process) on a store holding 50 recorded runs of a nightly
  journal corpus (target: < 2 s), and the same for ``--format json`` and ``--html``.
Quick mode: 200 journal files, 2 runs per variant, 300-file synthetic runs.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, skip

if TYPE_CHECKING:
    from batchsum.model import FileRecord, NodeRecord, RunRecord

AREA = "metrics"
OVERHEAD_TARGET = 0.05
REPORT_TARGET_S = 2.0
N_RUNS = 50


def _mirror(folder: Path, files: list[Path]) -> Path:
    """A folder of symlinks to ``files`` (the shared data is never copied)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for f in files:
        (folder / f.name).symlink_to(f)
    return folder


def _timed_cpu(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``cmd`` run as a fresh process."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        if code not in (0, 1):
            err.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} failed ({code}): {err.read().decode(errors='replace')[-800:]}")
    return wall, usage.ru_utime + usage.ru_stime


def _run_timed(src: Path, out: Path, metrics: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh ``batchsum run`` into an empty output folder."""
    if out.exists():
        shutil.rmtree(out)
    extra = [] if metrics else ["--no-metrics"]
    # The corpus is a folder of symlinks to the shared data, outside it: followed on purpose.
    cmd = batchsum_cmd("run", str(src), "--out", str(out), "--no-index", "--quiet", "--follow-symlinks", *extra)
    return _timed_cpu(cmd)


_RECORD_SCRIPT = """
import sys, time
t0 = time.perf_counter()
from pathlib import Path
import duckdb
from batchsum.metrics import MetricsStore
from batchsum.metrics.migrations import table_columns
from batchsum.model import FileRecord, NodeRecord, RunRecord
src, dest = Path(sys.argv[1]), Path(sys.argv[2])
con = duckdb.connect()
def rows(table, cls):
    names = [f for f, _ in table_columns(table) if f in cls.__dataclass_fields__]
    cur = con.execute(f"SELECT {', '.join(chr(34) + n + chr(34) for n in names)} FROM read_parquet("
                      f"'{src}/{table}/*/*.parquet', hive_partitioning=1, hive_types={{'run_id': 'VARCHAR'}})")
    return [cls(**dict(zip(names, r))) for r in cur.fetchall()]
run, files, nodes = rows("runs", RunRecord)[0], rows("files", FileRecord), rows("nodes", NodeRecord)
con.close()
t1 = time.perf_counter()
MetricsStore(dest / "metrics.duckdb", dest / "parquet").record_run(run, files, nodes)
t2 = time.perf_counter()
print(f"{t2 - t1:.4f} {len(files)} {len(nodes)}")
"""


def _record_cost(parquet_dir: Path, work: Path) -> tuple[float, int, int]:
    """Seconds to record one run's rows into a fresh store, in a fresh process (imports included)."""
    dest = work / "record-store"
    if dest.exists():
        shutil.rmtree(dest)
    proc = subprocess.run(
        [sys.executable, "-c", _RECORD_SCRIPT, str(parquet_dir), str(dest)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"recording benchmark failed: {proc.stderr[-800:]}")
    secs, n_files, n_nodes = proc.stdout.split()
    return float(secs), int(n_files), int(n_nodes)


def overhead(ctx: BenchContext, work: Path) -> list[BenchResult]:
    """Run wall time with metrics on and off."""
    scott = ctx.bench_data("journals", "scott_daily")
    if scott is None:
        return skip(AREA, "shared/bench/journals/scott_daily not found")
    files = sorted(p for p in scott.glob("*.md") if p.is_file())
    if ctx.quick:
        files = files[:200]
    src = _mirror(work / "scott", files)
    repeats = 2 if ctx.quick else 3
    _run_timed(src, work / "warm", True)  # warm the page cache and the tokenizer files
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    for _ in range(repeats):  # alternate, so drifting machine load hits both variants alike
        off.append(_run_timed(src, work / "off", False))
        on.append(_run_timed(src, work / "on", True))
    t_on, t_off = statistics.median(t[0] for t in on), statistics.median(t[0] for t in off)
    c_on, c_off = statistics.median(t[1] for t in on), statistics.median(t[1] for t in off)
    label = f"{len(files)} files"
    over = (t_on - t_off) / t_off
    results = [
        emit(BenchResult(AREA, f"run wall, metrics off ({label})", t_off, "s")),
        emit(BenchResult(AREA, f"run wall, metrics on ({label})", t_on, "s")),
        emit(BenchResult(AREA, "metrics overhead (wall, median)", over * 100, "%", "< 5 %", ok=over < OVERHEAD_TARGET)),
        emit(BenchResult(AREA, "metrics overhead (CPU seconds, median)", (c_on - c_off) / c_off * 100, "%")),
    ]
    secs, n_files, n_nodes = _record_cost(work / "on" / ".batchsum" / "parquet", work)
    results.append(emit(BenchResult(AREA, f"record_run ({n_files} files, {n_nodes} nodes)", secs, "s")))
    results.append(emit(BenchResult(AREA, "record_run as share of the metrics-off run", secs / t_off * 100, "%")))
    return results


def synthetic_runs(
    n_runs: int, n_files: int, seed: int = 7
) -> list[tuple[RunRecord, list[FileRecord], list[NodeRecord]]]:
    """A nightly journal corpus: a full first run, then each night a few new or edited entries."""
    from batchsum.model import FileRecord, NodeRecord, RunRecord

    rng = random.Random(seed)
    corpus: dict[str, tuple[str, int, str]] = {}  # relpath -> (sha, tokens, content type)
    for i in range(n_files):
        ctype = "journal" if i % 10 < 8 else ("conversation" if i % 10 == 8 else "document")
        corpus[f"{ctype}s/{i:05d}.md"] = (hashlib.sha256(f"{i}".encode()).hexdigest(), _tokens(rng), ctype)
    summarized: dict[str, tuple[str, int]] = {}  # relpath -> (sha, output tokens) of its current summary
    runs = []
    for r in range(n_runs):
        day = f"2025-{1 + r // 28:02d}-{1 + r % 28:02d}"
        run_id = f"{day.replace('-', '')}T020000Z-{r:06x}"
        if r:
            for _ in range(rng.randint(3, 12)):  # new entries
                i = len(corpus)
                corpus[f"journals/{i:05d}.md"] = (hashlib.sha256(f"{i}".encode()).hexdigest(), _tokens(rng), "journal")
            for rel in rng.sample(sorted(corpus), 3):  # edits
                sha, tok, ct = corpus[rel]
                corpus[rel] = (hashlib.sha256(f"{sha}{r}".encode()).hexdigest(), tok + rng.randint(5, 80), ct)
        files: list[FileRecord] = []
        nodes: list[NodeRecord] = []
        for rel, (sha, tok, ctype) in corpus.items():
            level = _level(tok)
            if summarized.get(rel, ("", 0))[0] == sha:
                out_tok = summarized[rel][1]
                files.append(
                    FileRecord(
                        run_id,
                        rel,
                        sha,
                        tok * 4,
                        ctype,
                        level,
                        tok,
                        out_tok,
                        out_tok / tok,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0.2,
                        "unchanged",
                    )
                )
                continue
            out_tok = 0 if level == "NONE" else max(8, int(tok * rng.uniform(0.05, 0.22)))
            summarized[rel] = (sha, out_tok)
            n_nodes = 0 if level == "NONE" else (1 if level in ("BRIEF", "STANDARD") else 1 + tok // 2800)
            for k in range(n_nodes):
                last = k == n_nodes - 1
                fallback = rng.random() < 0.01
                nodes.append(
                    NodeRecord(
                        run_id,
                        rel,
                        f"{rel}:summary:" + ("L3:final" if last else f"L1:{k + 1}"),
                        "L3" if last else "L1",
                        None if last else k + 1,
                        None if last else f"{rel}:summary:L3:final",
                        tok,
                        out_tok,
                        out_tok / tok,
                        "extractive (fallback)" if fallback else "extractive",
                        None,
                        1,
                        rng.uniform(2, 40),
                        False,
                        error="LLM request timed out" if fallback else None,
                    )
                )
            files.append(
                FileRecord(
                    run_id,
                    rel,
                    sha,
                    tok * 4,
                    ctype,
                    level,
                    tok,
                    out_tok,
                    out_tok / tok,
                    max(0, n_nodes - 1),
                    n_nodes,
                    0,
                    0,
                    0,
                    rng.uniform(5, 60),
                    "done",
                )
            )
        done = sum(1 for f in files if f.status == "done")
        run = RunRecord(
            run_id,
            f"{day}T02:00:00Z",
            f"{day}T02:03:00Z",
            "batchsum run journals --out out",
            "extractive",
            None,
            "ok",
            "out",
            files_total=len(files),
            files_done=done,
            files_unchanged=len(files) - done,
            input_tokens=sum(f.input_tokens for f in files),
            output_tokens=sum(f.output_tokens for f in files),
            nodes_computed=len(nodes),
            wall_ms=rng.uniform(4000, 90000),
        )
        runs.append((run, files, nodes))
    return runs


def _tokens(rng: random.Random) -> int:
    return max(12, int(rng.lognormvariate(5.1, 0.8)))


def _level(tokens: int) -> str:
    from batchsum.model import Thresholds

    return Thresholds().level_for(tokens).value


def report_speed(ctx: BenchContext, work: Path) -> list[BenchResult]:
    """``batchsum report`` on a store of 50 recorded runs."""
    from batchsum.metrics import open_store

    n_files = 300 if ctx.quick else 1253
    out = work / "report-out"
    if out.exists():
        shutil.rmtree(out)
    store = open_store(out)
    t0 = time.perf_counter()
    total_rows = 0
    for run, files, nodes in synthetic_runs(N_RUNS, n_files):
        store.record_run(run, files, nodes)
        total_rows += len(files) + len(nodes)
    record_s = time.perf_counter() - t0
    results = [
        emit(BenchResult(AREA, f"record {N_RUNS} runs ({total_rows:,} file+node rows)", record_s / N_RUNS, "s/run"))
    ]
    cases = [
        ("report (table)", ["report", "--out", str(out)]),
        ("report --last 50 (table)", ["report", "--out", str(out), "--last", "50"]),
        ("report --format json", ["report", "--out", str(out), "--format", "json"]),
        ("report --html", ["report", "--out", str(out), "--html", str(work / "report.html")]),
    ]
    for name, args in cases:
        timings = [_timed_cpu(batchsum_cmd(*args)) for _ in range(3)]
        wall = statistics.median(t[0] for t in timings)
        cpu = statistics.median(t[1] for t in timings)
        results.append(emit(BenchResult(AREA, f"{name}, {N_RUNS} runs", wall, "s", "< 2 s", ok=wall < REPORT_TARGET_S)))
        results.append(emit(BenchResult(AREA, "  CPU seconds of that process", cpu, "s")))
    return results


def run(ctx: BenchContext) -> list[BenchResult]:
    """Metrics overhead on a real run, and report speed on 50 recorded runs."""
    work = ctx.workdir / "metrics"
    work.mkdir(parents=True, exist_ok=True)
    return overhead(ctx, work) + report_speed(ctx, work)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as tmp:
        run(BenchContext(ns.shared if ns.shared.exists() else None, ns.quick, Path(tmp)))
