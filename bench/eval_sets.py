"""``make eval``: ``batchsum eval --baselines --budget ref`` on the five shared sets.

Meetings (QMSum), long stories (SQuALITY), game transcripts (CRD3), first-person diaries and
biomedical papers (PubMed): a change must hold up on every kind of text, not one.

For each set: fresh summaries of ``<shared>/bench/<set>/docs`` (a clean output tree, so seconds per
document are a full run), scored against ``refs_multi/`` when the set has several references per
document (max over them) and ``refs/`` otherwise, with the five baselines at the same budget.
Results go to one persistent metrics store, ``.bench-out/eval/metrics.duckdb``, so quality can be
tracked run over run. Baseline outputs are cached, so re-runs only pay for batchsum.

    python -m bench.eval_sets [--shared ../shared] [--sets qmsum,pubmed] [--limit N] [--half 0|1] [--jobs 2]

``--half 0`` / ``--half 1`` evaluate every other document: tune on one half, report the other.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SETS = ("diaries", "pubmed", "squality", "qmsum", "crd3")  # cheapest first
# QMSum's AMI/ICSI transcripts are partly lowercased and the PubMed bodies fully, so entities are
# matched case-insensitively there.
CASE_INSENSITIVE = {"qmsum", "pubmed"}


def _refs_dir(set_dir: Path) -> Path:
    multi = set_dir / "refs_multi"
    return multi if multi.is_dir() and any(multi.iterdir()) else set_dir / "refs"


def main(argv: list[str] | None = None) -> int:
    """Evaluate every available set; exit 0 (a missing ../shared is a clear skip, not an error)."""
    ap = argparse.ArgumentParser(prog="python -m bench.eval_sets", description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated set names under <shared>/bench")
    ap.add_argument("--limit", type=int, default=None, help="only the first N documents of each set")
    ap.add_argument("--half", type=int, choices=(0, 1), default=None, help="every other document (0 or 1)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="processes for the baselines")
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench-out" / "eval")
    ap.add_argument("--json", type=Path, default=None, help="also write all reports to this JSON file")
    args = ap.parse_args(argv)

    bench = args.shared / "bench"
    if not bench.is_dir():
        print(f"make eval: SKIPPED - {bench} not found (the shared evaluation data is not on this machine)")
        return 0
    from batchsum.errors import BatchsumError
    from batchsum.evaluate.runner import EvalOptions, evaluate, render_table

    args.workdir.mkdir(parents=True, exist_ok=True)
    reports = []
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        set_dir = bench / name
        if not (set_dir / "docs").is_dir():
            print(f"{name}: SKIPPED - {set_dir / 'docs'} not found")
            continue
        out = args.workdir / name
        if out.exists():
            shutil.rmtree(out)  # a fresh tree: no incremental reuse, honest seconds per document
        opts = EvalOptions(
            docs_dir=set_dir / "docs",
            refs_dir=_refs_dir(set_dir),
            out=out,
            budget="ref",
            baselines=True,
            case_insensitive=name in CASE_INSENSITIVE,
            dataset=name,
            metrics_db=args.workdir / "metrics.duckdb",
            jobs=max(1, args.jobs),
            limit=args.limit,
            half=args.half,
        )
        print(f"== {name}: {opts.docs_dir} vs {opts.refs_dir}", flush=True)
        t0 = time.perf_counter()
        try:
            report = evaluate(opts, progress=lambda msg, n=name: print(f"   [{n}] {msg}", flush=True))
        except BatchsumError as exc:
            print(f"{name}: ERROR - {exc}", flush=True)
            continue
        for problem in report.problems:
            print(f"   warning: {problem.line()}")
        print(render_table(report))
        print(f"({time.perf_counter() - t0:.0f}s; eval id {report.eval_id})\n", flush=True)
        reports.append(report.as_dict())
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
