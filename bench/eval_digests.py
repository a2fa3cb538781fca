"""Digests judged against their own periods: coverage, search and incremental work.

Coverage: each month, year and folder digest is scored against the finals of its period's files (what
it was made from): entity and number recall (``batchsum.evaluate.scoring``), beside two baselines of the
same length in words: ``lead`` (the period's finals in date order, cut at the digest's length) and
``firsts`` (the first sentence of each final in turn, what index.md shows, cut likewise).

Search: for each month, ``what happened in <Month YYYY>?`` and an events query (the month's name with
the three entities of its finals most specific to it, tf-idf against the other months); the rank of
the month's digest among the hits (top-1 and top-3 counts, and each miss with what outranked it).

Incremental (``--incremental``): on a copy of the corpus, one line appended to one entry, then a run:
files summarized, digests redone (and which), wall time; then an unchanged run.

    python -m bench.eval_digests [--corpus PATH] [--out PATH] [--incremental] [--search N]

Defaults: ``../shared/bench/journals/scott_daily`` into ``.bench-out/digests/``. Nothing here is tuned.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from statistics import mean
from urllib.parse import unquote

from batchsum.evaluate.scoring import entities, entity_recall, number_recall
from batchsum.navigation import summary_only
from batchsum.periods import MONTH_NAMES, one_line
from batchsum.tree import read_node

REPO = Path(__file__).resolve().parent.parent
# ../shared from the main checkout, ../../shared from a worktree under wt/.
DEFAULT_CORPUS = next(
    (
        p
        for p in (r / "shared" / "bench" / "journals" / "scott_daily" for r in (REPO.parent, REPO.parent.parent))
        if p.is_dir()
    ),
    REPO.parent / "shared" / "bench" / "journals" / "scott_daily",
)


def batchsum(*args: str, log: Path | None = None) -> tuple[float, list[dict[str, object]]]:
    """Run the CLI; (seconds, JSON log events)."""
    extra = ["--log-format", "json", "--log-file", str(log)] if log is not None else []
    if log is not None:
        log.unlink(missing_ok=True)  # a log file is appended to: only this run's events
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "batchsum", *args, *extra], check=True, cwd=REPO, capture_output=True)
    seconds = time.perf_counter() - t0
    events = [json.loads(line) for line in log.read_text().splitlines()] if log is not None and log.exists() else []
    return seconds, events


def digest_text(body: str) -> str:
    """A digest's summary, without its title."""
    return body.split("\n\n", 1)[1].strip() if body.startswith("# ") and "\n\n" in body else body.strip()


def final_texts(path: Path, meta: dict[str, object]) -> list[str]:
    """The summary text of each final a digest links to, in date order."""
    texts = []
    for link in meta.get("finals") or []:  # type: ignore[union-attr]
        try:
            _, body = read_node((path.parent / unquote(str(link))).resolve())
        except (OSError, ValueError):
            continue
        texts.append(summary_only(body).split("\n\n## ", 1)[0].strip())
    return texts


def cut_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def coverage(out: Path) -> dict[str, dict[str, float]]:
    """Mean recall per kind of period, for the digest and the two baselines."""
    rows: dict[str, list[dict[str, float | None]]] = {}
    for path in sorted((out / "digests").rglob("*.md")):
        meta, body = read_node(path)
        if meta.get("role") != "digest":
            continue
        summary = digest_text(body)
        finals = final_texts(path, meta)
        ref = "\n\n".join(finals)
        n = len(summary.split())
        firsts = " ".join(one_line(t) for t in finals)
        row: dict[str, float | None] = {"words": n}
        for name, text in (("digest", summary), ("lead", cut_words(ref, n)), ("firsts", cut_words(firsts, n))):
            row[f"{name}_entity"] = entity_recall(text, ref)
            row[f"{name}_number"] = number_recall(text, ref)
        rows.setdefault(str(meta["period_kind"]), []).append(row)
    result = {}
    for kind, rs in rows.items():
        agg: dict[str, float] = {"digests": len(rs)}
        for key in rs[0]:
            vals = [r[key] for r in rs if r[key] is not None]
            agg[key] = round(mean(vals), 3) if vals else float("nan")  # type: ignore[arg-type]
        result[kind] = agg
    return result


def month_queries(out: Path) -> list[tuple[str, str, str]]:
    """(digest doc id, plain query, events query) for each month digest."""
    months = []
    for path in sorted((out / "digests").glob("*/*.md")):
        meta, _ = read_node(path)
        if meta.get("period_kind") == "month":
            # Emphasis marks off ("_May_ 3.--"); month names and initials say nothing the title does not.
            ents = Counter(e for t in final_texts(path, meta) for e in entities(t.replace("_", " ")))
            ents = Counter({e: c for e, c in ents.items() if e not in MONTH_NAMES and len(e) > 2})
            months.append((path.relative_to(out).as_posix(), str(meta["title"]), ents))
    df = Counter(e for _, _, ents in months for e in ents)
    out_q = []
    for doc, title, ents in months:
        score = {e: c * math.log(len(months) / df[e]) for e, c in ents.items() if df[e] < len(months)}
        top = [e for e, _ in sorted(score.items(), key=lambda kv: -kv[1])[:3]]
        out_q.append((doc, f"what happened in {title}?", f"{title}: {', '.join(top)}"))
    return out_q


def search_ranks(out: Path, limit: int) -> dict[str, object]:
    """Top-1 and top-3 counts of the month's digest for both kinds of month query, and the misses."""
    queries = month_queries(out)
    step = max(1, len(queries) // limit) if limit else 1
    ranks: dict[str, list[int | None]] = {"plain": [], "events": []}
    misses: list[dict[str, object]] = []  # queries whose month is not in the top 3, with what outranked it
    for doc, plain, events in queries[::step]:
        for kind, q in (("plain", plain), ("events", events)):
            cmd = [sys.executable, "-m", "batchsum", "search", q, "--out", str(out), "--json", "-k", "10"]
            res = subprocess.run(cmd, check=True, cwd=REPO, capture_output=True, text=True)
            ids = [h["doc_id"] for h in json.loads(res.stdout)]
            rank = ids.index(doc) + 1 if doc in ids else None
            ranks[kind].append(rank)
            if rank is None or rank > 3:
                misses.append({"query": q, "want": doc, "rank": rank, "top3": ids[:3]})
    result: dict[str, object] = {"queries": len(ranks["plain"])}
    for kind, rs in ranks.items():
        result[f"{kind}_top1"] = f"{sum(1 for r in rs if r == 1)}/{len(rs)}"
        result[f"{kind}_top3"] = f"{sum(1 for r in rs if r is not None and r <= 3)}/{len(rs)}"
    result["misses"] = misses
    return result


def incremental(corpus: Path, out: Path, work: Path) -> dict[str, object]:
    """Append one line to one entry of a copy and re-run; then an unchanged run."""
    copy = work / "corpus"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(corpus, copy)
    inc_out = work / "inc-out"
    if inc_out.exists():
        shutil.rmtree(inc_out)
    shutil.copytree(out, inc_out, symlinks=True)
    batchsum("run", str(copy), "--out", str(inc_out), "--no-index", log=work / "inc0.jsonl")
    entries = sorted(p for p in copy.rglob("*.md"))
    target = entries[len(entries) // 2]
    with target.open("a", encoding="utf-8") as fh:
        fh.write("\nWalked to the Mound in the evening and met Lockhart, who brought news from London.\n")
    seconds, events = batchsum("run", str(copy), "--out", str(inc_out), "--no-index", log=work / "inc1.jsonl")
    done = [e for e in events if e["event"] == "digests_updated"]
    files = [e["relpath"] for e in events if e["event"] == "file_done"]
    again, events2 = batchsum("run", str(copy), "--out", str(inc_out), "--no-index", log=work / "inc2.jsonl")
    return {
        "appended_to": target.name,
        "files_summarized": files,
        "digests_redone": done[0]["redone"] if done else [],
        "digests_kept": done[0]["kept"] if done else None,
        "digest_seconds": done[0]["seconds"] if done else None,
        "run_seconds": round(seconds, 2),
        "unchanged_run_seconds": round(again, 2),
        "unchanged_run_digests_redone": sum(len(e["redone"]) for e in events2 if e["event"] == "digests_updated"),  # type: ignore[arg-type]
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=REPO / ".bench-out" / "digests" / "out")
    ap.add_argument("--incremental", action="store_true", help="measure one appended line (copies the corpus)")
    ap.add_argument("--search", type=int, default=0, metavar="N", help="rank month digests for N months (0: none)")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"skipped: no corpus at {args.corpus}")
        return 0
    work = args.out.parent
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"corpus": str(args.corpus)}
    if not (args.out / "digests").is_dir():
        seconds, events = batchsum("run", str(args.corpus), "--out", str(args.out), log=work / "first.jsonl")
        done = [e for e in events if e["event"] == "digests_updated"]
        report["first_run_seconds"] = round(seconds, 1)
        report["first_run_digest_seconds"] = done[0]["seconds"] if done else None
    report["coverage"] = coverage(args.out)
    if args.search:
        report["search"] = search_ranks(args.out, args.search)
    if args.incremental:
        report["incremental"] = incremental(args.corpus, args.out, work)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
