"""Retrieval quality of ``batchsum search`` on QMSum's specific queries, both splits, with every miss listed.

For every specific query of ``<shared>/bench/<set>/queries/<id>.json``: is the meeting it was asked
about among the top 5 (and first) of the search behind ``batchsum search``? The meetings are run once
(extractive default, with the index) into ``--workdir/<set>-out`` and reused while that folder exists.
Nothing is fitted here: the same code ranks both splits (``qmsum`` val, 35 meetings; ``qmsum_train``,
162 meetings).

    python -m bench.eval_search [--shared ../shared] [--sets qmsum,qmsum_train] [--misses 20]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench.common import batchsum_cmd

REPO = Path(__file__).resolve().parent.parent
SETS = ("qmsum", "qmsum_train")


def built_output(data: Path, out: Path) -> Path:
    """The run's output folder for the meetings of ``data`` (made when absent)."""
    if not (out / ".batchsum" / "lexical-batchsum.sqlite3").is_file():
        cmd = batchsum_cmd("run", str(data / "docs"), "--out", str(out), "--quiet")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"batchsum run on {data} failed ({proc.returncode}): {proc.stderr[-400:]}")
    return out


def queries_of(data: Path) -> list[tuple[str, str]]:
    """(meeting id, query) of every specific query of a split."""
    out: list[tuple[str, str]] = []
    for qfile in sorted((data / "queries").glob("*.json")):
        spec = json.loads(qfile.read_text(encoding="utf-8")).get("specific_query_list", [])
        out.extend((qfile.stem, q["query"]) for q in spec)
    return out


def normalized(query: str) -> str:
    """A query's words, lowercased, without punctuation: what makes two questions the same question."""
    return " ".join(re.findall(r"\w+", query.lower()))


def ceiling(queries: list[tuple[str, str]], k: int = 5) -> tuple[float, int]:
    """(best recall@k of any ranking that gives one list per question text, queries whose text was asked
    of more than one meeting). A text asked of m > k meetings can find at most k of them."""
    asked: dict[str, Counter[str]] = {}
    for meeting, query in queries:
        asked.setdefault(normalized(query), Counter())[meeting] += 1
    best = sum(sum(n for _, n in meetings.most_common(k)) for meetings in asked.values())
    shared = sum(sum(meetings.values()) for meetings in asked.values() if len(meetings) > 1)
    return best / max(len(queries), 1), shared


def evaluate(out: Path, queries: list[tuple[str, str]]) -> tuple[float, float, list[str], float]:
    """(recall@5, recall@1, misses, median ms per query) of the library search over ``out``."""
    from batchsum.config import IndexConfig
    from batchsum.index.search import search

    cfg = IndexConfig(out=out)
    hits1 = hits5 = 0
    misses: list[str] = []
    times: list[float] = []
    for meeting, query in queries:
        t0 = time.perf_counter()
        found = [Path(h.source_path).stem for h in search(cfg, query, k=5, warn=False)]
        times.append(time.perf_counter() - t0)
        hits5 += meeting in found
        hits1 += bool(found) and found[0] == meeting
        if meeting not in found:
            misses.append(f"{meeting}: {query!r} -> {found}")
    n = max(len(queries), 1)
    times.sort()
    return hits5 / n, hits1 / n, misses, 1000 * times[len(times) // 2] if times else 0.0


def main(argv: list[str] | None = None) -> int:
    """Build (once), evaluate and print recall per split."""
    ap = argparse.ArgumentParser(prog="python -m bench.eval_search", description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench-out" / "search")
    ap.add_argument("--misses", type=int, default=0, help="print this many misses per split")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    figures: dict[str, dict[str, object]] = {}
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        data = args.shared / "bench" / name
        if not (data / "queries").is_dir():
            print(f"eval_search: {name} SKIPPED - {data} not found")
            continue
        out = built_output(data, args.workdir / f"{name}-out")
        queries = queries_of(data)
        r5, r1, misses, ms = evaluate(out, queries)
        meetings = len({m for m, _ in queries})
        best, shared = ceiling(queries)
        print(f"{name}: {len(queries)} queries, {meetings} meetings: recall@5 {r5:.3f}  recall@1 {r1:.3f}"
              f"  (median {ms:.0f} ms a query in-process, this machine's load); ceiling {best:.3f}"
              f" ({shared} queries share their text with another meeting's)")  # fmt: skip
        for miss in misses[: args.misses]:
            print(f"  miss: {miss}")
        figures[name] = {"queries": len(queries), "recall@5": r5, "recall@1": r1, "ceiling@5": best, "misses": misses}
    if args.json is not None:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
