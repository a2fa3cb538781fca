"""Fit the extractive scorer's parameters on the eight shared sets pooled, and report leave-one-genre-out.

Every document goes through the real pipeline (read, classify, plan, every node summarized by the
extractive backend with the candidate parameters, the final at its level's budget), and the final is
scored like ``make eval`` does (ROUGE against each reference, cut to the reference's length). The
objective is the mean over sets of (R-1 + R-2 + R-Lsum) / 3, so each kind of text weighs the same
whatever its number of documents. A grid over the fitted parameters is scored once; the pooled fit
is its best point on all sets, and leave-one-genre-out picks the best point on seven sets and
reports the eighth.

    python -m bench.fit_scorer [--shared ../shared] [--docs 4] [--half 0] [--grid vector_w=0,0.5] [--json fit.json]

Documents: every other document of each set (``--half 0``, the first ``--docs`` of them), so the
other half stays for checking.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SETS = ("qmsum", "qmsum_train", "squality", "crd3", "diaries", "pubmed", "dialogsum_dev", "ectsum_val")
GRID: dict[str, tuple[float, ...]] = {
    "beta": (0.0, 0.5),
    "backward_w": (-0.5, 0.5),
    "position_w": (0.0, 0.3, 1.0),
    "length_norm": (8.0, 30.0),
}
# Very long documents (CRD3 sessions run to 54k words) cost as much as a set of short ones.
FEWER = {"crd3": 2}


@dataclass
class _Child:
    output: Any
    output_tokens: int


def _refs(set_dir: Path, doc_id: str) -> list[str]:
    multi = sorted((set_dir / "refs_multi").glob(f"{doc_id}.*.txt")) if (set_dir / "refs_multi").is_dir() else []
    paths = multi or [set_dir / "refs" / f"{doc_id}.txt"]
    return [p.read_text(encoding="utf-8") for p in paths if p.is_file()]


def _load(shared: Path, name: str, n: int, half: int) -> list[tuple[Any, list[str]]]:
    """(plan, references) of the set's documents."""
    from batchsum.config import RunConfig
    from batchsum.engine.prepare import prepare_file
    from batchsum.tokens import get_tokenizer
    from batchsum.walk import SourceRef

    set_dir = shared / "bench" / name
    docs = sorted(p for p in (set_dir / "docs").iterdir() if p.is_file())[half::2][:n]
    cfg = RunConfig(paths=[set_dir / "docs"], out=Path("/nonexistent"), index=False, metrics=False)
    tok = get_tokenizer()
    out = []
    for path in docs:
        refs = _refs(set_dir, path.stem)
        prepared = prepare_file(SourceRef(path, path.name, set_dir / "docs"), cfg, tok)
        if refs and prepared.plan is not None:
            out.append((prepared.plan, refs))
    return out


def _memoize_leaves() -> None:
    """Units and similarity matrices depend on a node's text, not on the parameters: compute them once per
    text for the whole grid (a leaf's text is the same at every grid point; meta nodes' texts differ)."""
    from batchsum.backends import extractive

    units_of = extractive.units_from_text
    matrix = extractive.Matrix
    units_memo: dict[tuple[Any, ...], list[Any]] = {}
    matrix_memo: dict[tuple[Any, ...], Any] = {}

    def units_from_text(text: str, content_type: Any, min_words: int = 5, part: int = 0) -> list[Any]:
        key = (text, content_type, min_words, part)
        if key not in units_memo:
            units_memo[key] = units_of(text, content_type, min_words, part)
        return [replace(u) for u in units_memo[key]]

    def memo_matrix(units: list[Any], vector_w: float = 0.0) -> Any:
        key = (tuple(u.body for u in units), vector_w)
        if key not in matrix_memo:
            if len(matrix_memo) > 20000:
                matrix_memo.clear()
            matrix_memo[key] = matrix(units, vector_w)
        return matrix_memo[key]

    extractive.units_from_text = units_from_text  # type: ignore[assignment]
    extractive.Matrix = memo_matrix  # type: ignore[assignment,misc]


def final_text(plan: Any, params: Any) -> str:
    """The final of one planned document, every node summarized with ``params``."""
    from batchsum.backends.extractive import ExtractiveBackend
    from batchsum.config import LLMConfig
    from batchsum.engine.nodes import heights, make_job
    from batchsum.tokens import get_tokenizer

    if plan.kept_whole:
        return str(plan.doc.text)
    backend = ExtractiveBackend(get_tokenizer(), params=params)
    done: dict[str, _Child] = {}
    height = heights(plan)
    for node in plan.nodes:
        children = [done[c] for c in node.inputs]
        job = make_job(("extractive", None), LLMConfig(), plan, node, children, height.get(node.node_id, 0))  # type: ignore[arg-type]
        out = backend.summarize_now(job.request)
        done[node.node_id] = _Child(out, out.completion_tokens)
    return str(done[plan.final_id].output.text)


def score_set(docs: list[tuple[Any, list[str]]], params: Any) -> tuple[float, float, float]:
    """Mean R-1, R-2, R-Lsum of the finals, each cut to its reference's length (as ``make eval``)."""
    from batchsum.evaluate.scoring import score, word_count

    r1 = r2 = rl = 0.0
    for plan, refs in docs:
        text = final_text(plan, params)
        own = word_count(text)
        s = score(text, refs, budget_words=[min(word_count(r), own) for r in refs])
        r1, r2, rl = r1 + s.rouge1, r2 + s.rouge2, rl + s.rougeLsum
    n = max(1, len(docs))
    return r1 / n, r2 / n, rl / n


def main(argv: list[str] | None = None) -> int:
    """Score the grid, print the pooled fit and the leave-one-genre-out table."""
    ap = argparse.ArgumentParser(prog="python -m bench.fit_scorer", description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--docs", type=int, default=4, help="documents per set")
    ap.add_argument("--half", type=int, choices=(0, 1), default=0)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--json", type=Path, default=None, help="write every grid point's scores here")
    ap.add_argument("--limit", type=int, default=None, help="only the first N grid points (a timing check)")
    ap.add_argument(
        "--grid", action="append", default=[], metavar="NAME=V1,V2", help="values of one parameter (replaces its row)"
    )
    args = ap.parse_args(argv)
    from batchsum.backends.scorer import SCORER

    names = [s for s in args.sets.split(",") if (args.shared / "bench" / s / "docs").is_dir()]
    if not names:
        print(f"fit_scorer: SKIPPED - no shared sets under {args.shared / 'bench'}")
        return 0
    data = {name: _load(args.shared, name, min(args.docs, FEWER.get(name, args.docs)), args.half) for name in names}
    _memoize_leaves()
    grid = dict(GRID)
    for item in args.grid:
        name, _, values = item.partition("=")
        grid[name] = tuple(float(v) for v in values.split(","))
    keys = list(grid)
    points = [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())][: args.limit]
    results: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for k, point in enumerate(points):
        params = replace(SCORER, **point)
        per_set = {name: score_set(docs, params) for name, docs in data.items()}
        results.append({"params": point, "scores": per_set})
        print(f"[{k + 1}/{len(points)} {time.perf_counter() - t0:.0f}s] {point} {_objective(per_set):.4f}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(render(results, names))
    return 0


def _objective(per_set: dict[str, tuple[float, float, float]], skip: str | None = None) -> float:
    vals = [sum(v) / 3.0 for name, v in per_set.items() if name != skip]
    return sum(vals) / max(1, len(vals))


def render(results: list[dict[str, Any]], names: list[str]) -> str:
    """The pooled fit and the leave-one-genre-out table (R-1 / R-2 / R-Lsum of the held-out set)."""
    best = max(results, key=lambda r: _objective(r["scores"]))
    lines = [
        f"pooled fit: {best['params']}",
        "",
        "| held-out set | fit on the other seven | R-1 | R-2 | R-Lsum | pooled fit's R-1/R-2/R-Lsum |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        fold = max(results, key=lambda r, n=name: _objective(r["scores"], skip=n))
        r1, r2, rl = fold["scores"][name]
        p1, p2, pl = best["scores"][name]
        lines.append(f"| {name} | {fold['params']} | {r1:.3f} | {r2:.3f} | {rl:.3f} | {p1:.3f} / {p2:.3f} / {pl:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
