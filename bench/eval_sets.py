"""``make eval``: ``batchsum eval --baselines --budget ref`` on the eight shared sets.

Meetings (QMSum val and train), long stories (SQuALITY), game transcripts (CRD3), first-person
diaries, biomedical papers (PubMed), short two-person dialogues (DialogSum) and earnings calls
(ECTSum): a change must hold up on every kind of text, not one. After the per-set tables come the
clean-text checks of batchsum's finals (glued words, markup, tokenizer spacing, lines cut
mid-sentence, conversation lines naming their speaker), one table of batchsum against the best
baseline per metric, and the leave-one-genre-out tables of the shipped scorer's last grid fit
(``python -m bench.fit_scorer --grid``, ``bench/fit_grid.json``) and of the trained alternative's
(``python -m bench.fit_scorer``, ``bench/fit_scorer.json``).

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
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SETS = ("diaries", "dialogsum_dev", "pubmed", "ectsum_val", "squality", "qmsum", "qmsum_train", "crd3")
FIT_JSON = REPO / "bench" / "fit_scorer.json"
GRID_JSON = REPO / "bench" / "fit_grid.json"
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
    ap.add_argument("--limit", type=int, default=40, help="only the first N documents of each set (0: all)")
    ap.add_argument(
        "--skip", type=int, default=0, help="leave out the first N documents of each set (120: those no fit looked at)"
    )
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
        if args.skip and sum(1 for p in (set_dir / "docs").iterdir() if p.is_file()) <= args.skip:
            print(f"{name}: SKIPPED - it has no documents after the first {args.skip}")
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
            limit=args.limit or None,
            skip=args.skip,
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
        print(clean_text_line(out), flush=True)
        print(f"({time.perf_counter() - t0:.0f}s; eval id {report.eval_id})\n", flush=True)
        reports.append(report.as_dict())
    if reports:
        print(versus_best(reports))
    print(grid_table(GRID_JSON))
    print(logo_table(FIT_JSON))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2), encoding="utf-8")
    return 0


# A contraction glued to the next word ("let'suppose", "don'think", "we'recording"); words with an
# apostrophe of their own ("o'clock", "fo'c'sle", the name "Tr'en") are not glued.
_GLUED = re.compile(r"(?<![\w'’])[A-Za-z]+['’](?:s|t|re|ve|ll|d|m)[a-z]{2,}")
_MARKUP = re.compile(r"\{[a-z_]+\}|</?[a-z][\w-]*(?:\s[^<>]*)?>|^#{1,6}\s|^>\s|```|bash-\$", re.MULTILINE)
# "word ,", "we 're", "do n't", and a quote spaced off on both sides ('say , " this is it "').
_SPACING = re.compile(
    r"\w [,.;:!?](?=\s|$)|\w '(?:s|t|re|ve|ll|d|m)\b|\w n't\b|(?:^|\s)\"(?=\s|$)", re.IGNORECASE | re.MULTILINE
)
_WHOLE = re.compile(r"[.!?…][\"'”’)\]]*$")


def clean_text_line(out: Path) -> str:
    """Clean-text checks over the finals of one output tree (targets: 0, 0, 0, 0, <= 2 %, >= 80 %)."""
    from batchsum.evaluate.scoring import plain_text
    from batchsum.navigation import summary_only
    from batchsum.text import parse_speaker_line
    from batchsum.tree import iter_tree

    glued = markup = spacing = stray = lines = cut = convo = named = 0
    for node in iter_tree(out):
        if node.path.parent.name != "L3" or node.path.name != "final.md":
            continue
        conversation = node.meta.get("content_type") == "conversation"
        for line in plain_text(summary_only(node.body)).splitlines():
            lines += 1
            glued += len(_GLUED.findall(line))
            markup += len(_MARKUP.findall(line))
            spacing += len(_SPACING.findall(line))
            stray += line.count('"') % 2 + (line.count("“") != line.count("”"))  # a quotation left open or shut
            cut += not _WHOLE.search(line.rstrip())
            if conversation:
                convo += 1
                named += parse_speaker_line(line)[0] is not None
    share = f"{100.0 * named / convo:.0f} %" if convo else "-"
    return (
        f"clean text: {glued} glued words, {markup} markup, {spacing} tokenizer spacings, "
        f"{stray} stray quotation marks, "
        f"{100.0 * cut / max(1, lines):.1f} % of {lines} lines cut, conversation lines naming a speaker {share}"
    )


def versus_best(reports: list[dict[str, Any]]) -> str:
    """batchsum against the best baseline of each metric, per set (target: ahead on all three everywhere)."""
    rows = ["| set | batchsum R-1 / R-2 / R-Lsum | best baseline R-1 / R-2 / R-Lsum | ahead on |", "|---|---|---|---|"]
    keys = ("rouge1", "rouge2", "rougeLsum")
    for rep in reports:
        methods = {m["method"]: m for m in rep["methods"]}
        ours = methods.get("batchsum")
        others = [m for name, m in methods.items() if not name.startswith("batchsum")]
        if ours is None or not others:
            continue
        best = {k: max(others, key=lambda m, k=k: m[k]) for k in keys}
        ahead = sum(ours[k] > best[k][k] for k in keys)
        rows.append(
            f"| {rep['dataset']} | "
            + " / ".join(f"{100 * ours[k]:.1f}" for k in keys)
            + " | "
            + " / ".join(f"{100 * best[k][k]:.1f} ({best[k]['method']})" for k in keys)
            + f" | {ahead} of 3 |"
        )
    return "\n".join(rows) + "\n"


def grid_table(path: Path) -> str:
    """The leave-one-genre-out table of the shipped rule's last grid fit, or how to make it."""
    if not path.is_file():
        return f"leave-one-genre-out: no grid fit recorded ({path} missing; run python -m bench.fit_scorer --grid ...)"
    from bench.fit_scorer import render_grid

    result = json.loads(path.read_text(encoding="utf-8"))
    return "leave-one-genre-out of the shipped scorer (its last grid fit, bench/fit_scorer.py --grid):\n" + render_grid(
        result
    )


def logo_table(path: Path) -> str:
    """The leave-one-genre-out table of the trained alternative scorer's last fit, or how to make it."""
    if not path.is_file():
        return f"leave-one-genre-out: no fit recorded ({path} missing; run python -m bench.fit_scorer --json {path})"
    from bench.fit_scorer import render

    result = json.loads(path.read_text(encoding="utf-8"))
    head = "leave-one-genre-out of the trained alternative scorer (its last fit, bench/fit_scorer.py):\n"
    return head + render(result)


if __name__ == "__main__":
    sys.exit(main())
