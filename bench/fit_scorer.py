"""Fit the extractive scorer's trained alternative on all genres pooled, and report leave-one-genre-out.

The shipped scorer is the PacSum rule of :mod:`batchsum.backends.scorer`; this fits the weights of its
trained alternative (``Params.weights``). Method: a trainable sentence scorer (Kupiec, Pedersen & Chen
1995, "A Trainable Document Summarizer") as a logistic regression over the handful of features of
:func:`batchsum.backends.scorer.features` (PacSum directed centrality, position, length, TF-IDF
mass, similarity to the node's centroid, centrality x length), trained on greedy ROUGE-oracle labels
(Nallapati, Zhai & Zhou 2017, "SummaRuNNer"): in every node the real pipeline summarizes (a whole
short text, a chunk of a long one, the child summaries of a meta node), the sentences that greedily
maximise ROUGE-1 + ROUGE-2 F1 against the document's reference are the positives.

Data: the training documents of each set are those *after* the first ``--eval-docs`` (the ones
``make eval`` scores), so fit and evaluation never share a document. Each set weighs the same in the
fit whatever its number of nodes and sentences. Genres: the two QMSum sets are one genre (meetings).

Leave-one-genre-out: for each genre, fit on the others and score the held-out genre's evaluation
documents (the first ``--eval-docs``) through the real pipeline, cut to the reference's length as
``make eval`` does. The pooled fit is scored on every set the same way.

    python -m bench.fit_scorer [--shared ../shared] [--train-docs 24] [--eval-docs 40] [--json bench/fit_scorer.json]

``--grid`` fits the shipped rule instead: every point of a grid over its few parameters (e.g.
``--grid backward_w=-0.5,0 position_w=0,0.3``) summarizes the training documents of every set through
the real pipeline, scored like ``make eval``; the objective is the mean over sets of
(R-1 + R-2 + R-Lsum) / 3, so each set weighs the same. The pooled fit is the best point on all
sets; leave-one-genre-out takes the best point without the genre and scores the genre's evaluation
documents with it. Each point after the first is also compared with the first on the same documents:
the objective's paired difference and its standard error (``against_first`` in the JSON), the grid's
noise against which a gain is judged.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SETS = ("diaries", "dialogsum_dev", "pubmed", "ectsum_val", "squality", "qmsum", "qmsum_train", "crd3")
GENRE = {"qmsum": "meetings", "qmsum_train": "meetings"}
TOKENS_PER_WORD = 1.3  # as batchsum.backends.budget: a node's token budget in words
L2 = 1e-2  # ridge on the logistic weights (features are in 0..1)


@dataclass
class _Child:
    output: Any
    output_tokens: int


def genre(name: str) -> str:
    """The genre a set belongs to (both QMSum splits are meetings)."""
    return GENRE.get(name, name)


def _refs(set_dir: Path, doc_id: str) -> list[str]:
    multi = sorted((set_dir / "refs_multi").glob(f"{doc_id}.*.txt")) if (set_dir / "refs_multi").is_dir() else []
    paths = multi or [set_dir / "refs" / f"{doc_id}.txt"]
    return [p.read_text(encoding="utf-8") for p in paths if p.is_file()]


def load(shared: Path, name: str, start: int, n: int) -> list[tuple[Any, list[str]]]:
    """(plan, references) of documents ``start .. start + n`` of a set (sorted by name, as ``make eval``)."""
    from batchsum.config import RunConfig
    from batchsum.engine.prepare import prepare_file
    from batchsum.tokens import get_tokenizer
    from batchsum.walk import SourceRef

    set_dir = shared / "bench" / name
    docs = sorted(p for p in (set_dir / "docs").iterdir() if p.is_file())[start : start + n]
    cfg = RunConfig(paths=[set_dir / "docs"], out=Path("/nonexistent"), index=False, metrics=False)
    tok = get_tokenizer()
    out = []
    for path in docs:
        refs = _refs(set_dir, path.stem)
        prepared = prepare_file(SourceRef(path, path.name, set_dir / "docs"), cfg, tok)
        if refs and prepared.plan is not None:
            out.append((prepared.plan, refs))
    return out


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


def memoize_leaves() -> None:
    """Units and similarity matrices depend on a node's text, not on the grid's parameters (when the
    similarity's own ``vector_w`` is not among them): compute them once per text for the whole grid."""
    from batchsum.backends import extractive

    units_of = extractive.units_from_text
    matrix = extractive.Matrix
    units_memo: dict[tuple[Any, ...], list[Any]] = {}
    matrix_memo: dict[tuple[Any, ...], Any] = {}

    def units_from_text(text: str, content_type: Any, min_words: int = 5, part: int = 0, language: Any = None) -> Any:
        key = (text, content_type, min_words, part, language)
        if key not in units_memo:
            units_memo[key] = units_of(text, content_type, min_words, part, language)
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


def score_set(
    docs: list[tuple[Any, list[str]]], params: Any, per_doc: list[float] | None = None
) -> tuple[float, float, float]:
    """Mean R-1, R-2, R-Lsum of the finals, each cut to its reference's length (as ``make eval``);
    ``per_doc`` collects each document's (R-1 + R-2 + R-Lsum) / 3, for paired standard errors."""
    from batchsum.evaluate.scoring import score, word_count

    r1 = r2 = rl = 0.0
    for plan, refs in docs:
        text = final_text(plan, params)
        own = word_count(text)
        s = score(text, refs, budget_words=[min(word_count(r), own) for r in refs])
        r1, r2, rl = r1 + s.rouge1, r2 + s.rouge2, rl + s.rougeLsum
        if per_doc is not None:
            per_doc.append((s.rouge1 + s.rouge2 + s.rougeLsum) / 3)
    n = max(1, len(docs))
    return r1 / n, r2 / n, rl / n


# ----------------------------------------------------------------------------- oracle labels

_TOKEN = re.compile(r"[a-z0-9]+")


def _grams(text: str) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    from batchsum.backends.units import _stem

    toks = [_stem(t) for t in _TOKEN.findall(text.lower())]
    return Counter(toks), Counter(itertools.pairwise(toks))


def _f1(overlap: int, produced: int, wanted: int) -> float:
    if overlap <= 0 or produced <= 0 or wanted <= 0:
        return 0.0
    p, r = overlap / produced, overlap / wanted
    return 2 * p * r / (p + r)


def oracle(sentences: list[str], candidate: list[bool], reference: str, max_words: int | None = None) -> np.ndarray:
    """Greedy ROUGE oracle (Nallapati et al. 2017): add the sentence that most raises ROUGE-1 + ROUGE-2
    F1 of the selection against ``reference`` until none raises it or the picks reach ``max_words``
    (the node's own budget: a chunk's summary cannot hold the whole reference); 1 for the picks."""
    ref1, ref2 = _grams(reference)
    n1, n2 = sum(ref1.values()), sum(ref2.values())
    grams = [_grams(s) for s in sentences]
    sel1: Counter[str] = Counter()
    sel2: Counter[tuple[str, str]] = Counter()
    o1 = o2 = len1 = len2 = 0
    best = 0.0
    labels = np.zeros(len(sentences))
    while True:
        pick, pick_val, pick_state = -1, best, (0, 0, 0, 0)
        for i, (g1, g2) in enumerate(grams):
            if labels[i] or not candidate[i] or not g1:
                continue
            d1 = sum(min(sel1[t] + c, ref1[t]) - min(sel1[t], ref1[t]) for t, c in g1.items() if t in ref1)
            d2 = sum(min(sel2[t] + c, ref2[t]) - min(sel2[t], ref2[t]) for t, c in g2.items() if t in ref2)
            l1, l2 = len1 + sum(g1.values()), len2 + sum(g2.values())
            val = _f1(o1 + d1, l1, n1) + _f1(o2 + d2, l2, n2)
            if val > pick_val + 1e-9:
                pick, pick_val, pick_state = i, val, (o1 + d1, o2 + d2, l1, l2)
        if pick < 0 or (max_words is not None and len1 >= max_words):
            return labels
        labels[pick] = 1.0
        best = pick_val
        o1, o2, len1, len2 = pick_state
        sel1.update(grams[pick][0])
        sel2.update(grams[pick][1])


Rows = list[tuple[np.ndarray, np.ndarray]]


def _xy(train: dict[str, Rows]) -> dict[str, Rows]:
    return {k: v for k, v in train.items() if v}


def training_rows(docs: list[tuple[Any, list[str]]], params: Any) -> Rows:
    """(features, oracle labels) of the candidate units of every node the pipeline summarizes."""
    from batchsum.backends import extractive

    rows: Rows = []
    original = extractive.relevance
    original_summarize = extractive.summarize_text
    reference = [""]
    budget = [0]

    def summarize(text: str, **kw: Any) -> str:
        budget[0] = int(kw.get("target_tokens") or 0)
        return original_summarize(text, **kw)

    def recording(units: list[Any], mat: Any, meta: bool, whole: bool, p: Any) -> np.ndarray:
        from batchsum.backends.scorer import features

        cand = [bool(u.candidate) for u in units]
        if sum(cand) >= 2:
            x = features(units, mat, meta, whole, p)
            words = round(budget[0] / TOKENS_PER_WORD) if budget[0] > 0 else None
            y = oracle([u.body for u in units], cand, reference[0], words)
            keep = np.array(cand)
            rows.append((x[keep], y[keep]))
        return original(units, mat, meta, whole, p)

    extractive.relevance = recording  # type: ignore[assignment]
    extractive.summarize_text = summarize  # type: ignore[assignment]
    try:
        for plan, refs in docs:
            if plan.kept_whole:
                continue
            reference[0] = refs[0]
            final_text(plan, params)
    finally:
        extractive.relevance = original  # type: ignore[assignment]
        extractive.summarize_text = original_summarize  # type: ignore[assignment]
    return rows


# ----------------------------------------------------------------------------- the fit


def fit_logistic(sets: dict[str, list[tuple[np.ndarray, np.ndarray]]]) -> np.ndarray:
    """Weighted, L2-regularised logistic regression (Newton's method); every set weighs the same in
    total and every node the same within its set. Returns the feature weights (intercept dropped: the
    scorer ranks within a node)."""
    xs, ys, ws = [], [], []
    for rows in sets.values():
        rows = [r for r in rows if len(r[1])]
        for x, y in rows:
            xs.append(x)
            ys.append(y)
            ws.append(np.full(len(y), 1.0 / (len(rows) * len(y))))
    x = np.column_stack([np.vstack(xs), np.ones(sum(len(y) for y in ys))])
    y = np.concatenate(ys)
    w = np.concatenate(ws)
    w = w / w.sum()
    beta = np.zeros(x.shape[1])
    ridge = L2 * np.eye(x.shape[1])
    ridge[-1, -1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (w * (p - y)) + ridge @ beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return beta[:-1]


def main(argv: list[str] | None = None) -> int:
    """Build oracle rows, fit pooled and leave-one-genre-out, score the evaluation documents."""
    ap = argparse.ArgumentParser(prog="python -m bench.fit_scorer", description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--train-docs", type=int, default=24, help="training documents per set (after the evaluated)")
    ap.add_argument("--eval-docs", type=int, default=40, help="the first N documents: evaluated, never trained on")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--no-eval", action="store_true", help="fit only (no leave-one-genre-out scoring)")
    ap.add_argument("--json", type=Path, default=None, help="write the weights and scores here")
    ap.add_argument("--grid", nargs="+", default=None, metavar="NAME=V1,V2", help="fit the rule's parameters")
    args = ap.parse_args(argv)
    from batchsum.backends.scorer import FEATURES, SCORER

    names = [s for s in args.sets.split(",") if (args.shared / "bench" / s / "docs").is_dir()]
    if not names:
        print(f"fit_scorer: SKIPPED - no shared sets under {args.shared / 'bench'}")
        return 0
    if args.grid:
        result = fit_grid(args, names, parse_grid(args.grid))
        print(render_grid(result))
        if args.json:
            args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
        return 0
    t0 = time.perf_counter()
    train: dict[str, Rows] = {}
    for name in names:
        docs = load(args.shared, name, args.eval_docs, args.train_docs)
        train[name] = training_rows(docs, SCORER)
        n_units = sum(len(r[1]) for r in train[name])
        n_pos = int(sum(r[1].sum() for r in train[name]))
        print(
            f"[{time.perf_counter() - t0:.0f}s] {name}: {len(docs)} training documents, "
            f"{len(train[name])} nodes, {n_units} sentences, {n_pos} oracle picks",
            flush=True,
        )
    genres = sorted({genre(n) for n in names})
    pooled = fit_logistic(_xy(train))
    folds = {g: fit_logistic(_xy({k: v for k, v in train.items() if genre(k) != g})) for g in genres}
    print("pooled weights: " + ", ".join(f"{f} {v:+.3f}" for f, v in zip(FEATURES, pooled, strict=True)))
    result: dict[str, Any] = {
        "features": list(FEATURES),
        "pooled": [round(float(v), 4) for v in pooled],
        "folds": {g: [round(float(v), 4) for v in w] for g, w in folds.items()},
        "train_docs": args.train_docs,
        "eval_docs": args.eval_docs,
        "scores": {},
    }

    def params(w: np.ndarray) -> Any:
        return replace(SCORER, weights=tuple(round(float(v), 4) for v in w), trained_share=1.0)

    if not args.no_eval:
        for name in names:
            docs = load(args.shared, name, 0, args.eval_docs)
            fold = score_set(docs, params(folds[genre(name)]))
            full = score_set(docs, params(pooled))
            result["scores"][name] = {"logo": fold, "pooled": full}
            print(
                f"[{time.perf_counter() - t0:.0f}s] {name}: leave-one-genre-out "
                + " / ".join(f"{100 * v:.1f}" for v in fold)
                + "; pooled "
                + " / ".join(f"{100 * v:.1f}" for v in full),
                flush=True,
            )
            if args.json:
                args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(render(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


def parse_grid(specs: list[str]) -> dict[str, list[Any]]:
    """``["backward_w=-0.5,0", "sectioned=0,1"]`` → the values of each parameter, typed like its default."""
    from batchsum.backends.scorer import SCORER

    grid: dict[str, list[Any]] = {}
    for spec in specs:
        name, _, values = spec.partition("=")
        kind = type(getattr(SCORER, name))
        grid[name] = [kind(float(v)) if kind is not bool else v.strip() in ("1", "true") for v in values.split(",")]
    return grid


def _objective(per_set: dict[str, Any], skip: str | None = None) -> float:
    """Mean over the sets (but those of genre ``skip``) of (R-1 + R-2 + R-Lsum) / 3."""
    vals = [sum(v) / 3 for k, v in per_set.items() if genre(k) != skip]
    return sum(vals) / max(1, len(vals))


def paired_difference(base: dict[str, list[float]], other: dict[str, list[float]]) -> tuple[float, float]:
    """The objective's difference between two grid points on the same documents, and its standard error:
    per set the mean paired difference of (R-1 + R-2 + R-Lsum) / 3 and its variance, averaged over sets."""
    means, variances = [], []
    for name, xs in base.items():
        d = np.asarray(other[name]) - np.asarray(xs)
        if len(d):
            means.append(float(d.mean()))
            variances.append(float(d.var(ddof=1)) / len(d) if len(d) > 1 else 0.0)
    k = max(1, len(means))
    return sum(means) / k, float(np.sqrt(sum(variances))) / k


def fit_grid(args: Any, names: list[str], grid: dict[str, list[Any]]) -> dict[str, Any]:
    """Score every grid point on the training documents; pooled and leave-one-genre-out picks, scored
    on the evaluation documents."""
    from batchsum.backends.scorer import SCORER

    memoize_leaves()
    t0 = time.perf_counter()
    train = {n: load(args.shared, n, args.eval_docs, args.train_docs) for n in names}
    train = {n: d for n, d in train.items() if d}
    points = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    scored = []
    first_docs: dict[str, list[float]] = {}
    for point in points:
        docs: dict[str, list[float]] = {n: [] for n in train}
        per_set = {n: score_set(d, replace(SCORER, **point), docs[n]) for n, d in train.items()}
        scored.append({"params": point, "train": per_set})
        line = f"{100 * _objective(per_set):.2f}"
        if first_docs:
            diff, err = paired_difference(first_docs, docs)
            scored[-1]["against_first"] = [round(diff, 5), round(err, 5)]
            line += f" ({100 * diff:+.2f} ± {100 * err:.2f} against the first point)"
        else:
            first_docs = docs
        print(f"[{time.perf_counter() - t0:.0f}s] {point}: {line}", flush=True)
    genres = sorted({genre(n) for n in names})
    pooled = max(scored, key=lambda p: _objective(p["train"]))["params"]
    folds = {g: max(scored, key=lambda p, g=g: _objective(p["train"], g))["params"] for g in genres}
    result: dict[str, Any] = {"grid": grid, "points": scored, "pooled": pooled, "folds": folds, "scores": {}}
    for name in names:
        docs = load(args.shared, name, 0, args.eval_docs)
        full = score_set(docs, replace(SCORER, **pooled))
        fold = full if folds[genre(name)] == pooled else score_set(docs, replace(SCORER, **folds[genre(name)]))
        result["scores"][name] = {"logo": fold, "pooled": full}
        print(f"[{time.perf_counter() - t0:.0f}s] {name}: {fold} / {full}", flush=True)
    return result


def render_grid(result: dict[str, Any]) -> str:
    """The rule's leave-one-genre-out table: each set scored with the grid point best without its genre."""
    lines = [
        f"pooled fit: {result['pooled']}",
        "",
        "| held-out set | fit without its genre | R-1 / R-2 / R-Lsum | pooled fit R-1 / R-2 / R-Lsum |",
        "|---|---|---|---|",
    ]
    for name, s in result.get("scores", {}).items():
        point = result["folds"][genre(name)]
        fit = ", ".join(f"{k} {v}" for k, v in point.items())
        lines.append(f"| {name} | {fit} | {_rouge(s['logo'])} | {_rouge(s['pooled'])} |")
    return "\n".join(lines)


def _rouge(scores: list[float]) -> str:
    """R-1 / R-2 / R-Lsum as percentages, one decimal."""
    return " / ".join(f"{100 * v:.1f}" for v in scores)


def render(result: dict[str, Any]) -> str:
    """The leave-one-genre-out table: each set scored with the weights fit without its genre."""
    feats = result.get("features", [])
    lines = [
        "pooled weights: " + ", ".join(f"{f} {w:+.2f}" for f, w in zip(feats, result.get("pooled", []), strict=False)),
        "",
        "| held-out set | leave-one-genre-out R-1 / R-2 / R-Lsum | pooled fit R-1 / R-2 / R-Lsum |",
        "|---|---|---|",
    ]
    for name, s in result.get("scores", {}).items():
        lines.append(f"| {name} | {_rouge(s['logo'])} | {_rouge(s['pooled'])} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
