"""``make bench``: run every ``bench/bench_*.py`` module in turn and print one table of all figures.

Each module exposes ``run(ctx: BenchContext) -> list[BenchResult]`` and prints its own lines as it
goes (``bench.common.emit``). A module that raises is reported and the harness moves on:
benchmarks report, they never fail a build. ``--quick`` asks every module for a small run
(the whole quick suite must finish in under two minutes).

    python -m bench.run_all [--quick] [--shared ../shared] [--only extractive,index]
"""

from __future__ import annotations

import argparse
import compileall
import importlib
import sys
import time
import traceback
from pathlib import Path

from bench.common import BenchContext, BenchResult

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
QUICK_LIMIT_S = 120.0


def discover(only: list[str] | None = None) -> list[str]:
    """Module names ``bench.bench_<area>``, sorted; ``only`` filters by area."""
    names = sorted(p.stem for p in BENCH_DIR.glob("bench_*.py"))
    if only:
        wanted = {o if o.startswith("bench_") else f"bench_{o}" for o in only}
        missing = wanted - set(names)
        if missing:
            raise SystemExit(f"unknown benchmark(s): {', '.join(sorted(missing))} (have: {', '.join(names)})")
        names = [n for n in names if n in wanted]
    return [f"bench.{n}" for n in names]


def run_module(name: str, ctx: BenchContext) -> tuple[list[BenchResult], float, str | None]:
    """Import and run one module; (results, seconds, error or None)."""
    area = name.removeprefix("bench.bench_")
    t0 = time.perf_counter()
    try:
        module = importlib.import_module(name)
        results = list(module.run(ctx) or [])
        return results, time.perf_counter() - t0, None
    except Exception as exc:  # one broken benchmark must not stop the others
        tb = traceback.format_exc(limit=3)
        print(f"{area:<12} | ERROR: {type(exc).__name__}: {exc}", flush=True)
        print(tb, file=sys.stderr, flush=True)
        return [], time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"


def final_table(rows: list[tuple[str, list[BenchResult], float, str | None]], quick: bool, total: float) -> str:
    """Every figure again, grouped by module, with per-module time and a verdict count."""
    lines = ["", "=" * 120, f"batchsum benchmarks{' (quick)' if quick else ''}: all results", "=" * 120]
    ok = miss = errors = 0
    for name, results, secs, error in rows:
        area = name.removeprefix("bench.bench_")
        lines.append(f"-- {area} ({secs:.1f}s)")
        if error:
            errors += 1
            lines.append(f"{area:<12} | ERROR: {error}")
        for r in results:
            lines.append(r.line())
            ok += r.ok is True
            miss += r.ok is False
    lines.append("=" * 120)
    lines.append("module times: " + ", ".join(f"{n.removeprefix('bench.bench_')} {t:.0f}s" for n, _, t, _ in rows))
    verdict = f"{ok} OK, {miss} MISS, {errors} module error(s); {total:.1f}s total"
    if quick and total > QUICK_LIMIT_S:
        verdict += f" - quick suite took longer than its {QUICK_LIMIT_S:.0f}s limit"
    lines.append(verdict)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the suite; always exits 0 unless the arguments are wrong."""
    ap = argparse.ArgumentParser(prog="python -m bench.run_all", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small runs (whole suite < 2 minutes)")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared", help="the shared data folder")
    ap.add_argument("--only", default="", help="comma-separated areas, e.g. extractive,index")
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench-out", help="scratch folder")
    args = ap.parse_args(argv)
    shared = args.shared if args.shared.is_dir() else None
    if shared is None:
        print(f"note: {args.shared} not found; benchmarks that need shared/bench data will say SKIPPED", flush=True)
    args.workdir.mkdir(parents=True, exist_ok=True)
    # Start-up figures must be those of an installed package, which is byte-compiled; with
    # PYTHONDONTWRITEBYTECODE set every batchsum process would otherwise compile from source.
    compileall.compile_dir(str(REPO / "batchsum"), quiet=1)
    ctx = BenchContext(shared=shared.resolve() if shared else None, quick=args.quick, workdir=args.workdir.resolve())
    modules = discover([o.strip() for o in args.only.split(",") if o.strip()] or None)
    print(f"running {len(modules)} benchmark module(s){' in quick mode' if args.quick else ''}", flush=True)
    rows = []
    t0 = time.perf_counter()
    for name in modules:
        print(f"== {name.removeprefix('bench.')}", flush=True)
        results, secs, error = run_module(name, ctx)
        rows.append((name, results, secs, error))
    print(final_table(rows, args.quick, time.perf_counter() - t0), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
