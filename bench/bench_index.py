"""Search index benchmarks: cost of indexing, size on disk, search latency and retrieval quality.

* first-run cost: ``batchsum run`` with the index vs the same run with ``--no-index`` (same window,
  wall and peak RSS) on scott_daily, the 35 QMSum meetings and (full only) the 100 Gutenberg books
  -> ratio <= 2; peak RSS <= 400 MB (scott_daily), <= 1 GiB (books); index on disk (everything under
  .batchsum but the tree, node store and metrics) <= 2x the corpus bytes on the books; the quiet
  re-run right after a changing run <= 3 % of the first run.

* throughput: a Markdown tree of >= 10,000 nodes (quick: 300) built from paragraphs of the
  gutenberg books, indexed from scratch with ``rebuild_index`` -> nodes/s (target >= 250).
* latency: ``search()`` p50/p95 over that index with the full pipeline (retrieve k*3 per level,
  MaxSim rerank, recency, MMR) -> target p50 <= 50 ms.
* quality: the QMSum meetings summarized by ``batchsum run`` (extractive) and indexed (dense + the
  BM25 channel over summaries and source passages); for every specific query of
  ``queries/<id>.json``, is the right meeting among the top 5? -> recall@5 >= 0.9.
  Also reported: how often the right meeting is anywhere in the reranked candidate pool (dense
  alone, and dense + BM25), which separates what retrieval misses from what ranking loses. Quick: 5 meetings.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import time
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, skip
from bench.eval_search import ceiling

if TYPE_CHECKING:
    from batchsum.config import RunConfig

AREA = "index"
_WS = re.compile(r"\s+")


def _paragraphs(books: Path, want: int, min_words: int = 30, max_words: int = 150) -> list[tuple[str, str]]:
    """(book stem, paragraph) pairs, round-robin over the books so topics mix."""
    per_book: list[tuple[str, list[str]]] = []
    for path in sorted(books.glob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        start = text.find("*** START")
        end = text.find("*** END")
        body = text[start if start >= 0 else 0 : end if end > 0 else len(text)]
        paras = []
        for block in re.split(r"\n\s*\n", body):
            flat = _WS.sub(" ", block).strip()
            if min_words <= len(flat.split()) <= max_words:
                paras.append(flat)
        if paras:
            per_book.append((path.stem, paras))
    out: list[tuple[str, str]] = []
    i = 0
    while len(out) < want and per_book:
        progressed = False
        for stem, paras in per_book:
            if i < len(paras):
                out.append((stem, paras[i]))
                progressed = True
                if len(out) >= want:
                    break
        if not progressed:
            break
        i += 1
    return out


def _write_tree(out: Path, paras: list[tuple[str, str]], per_doc: int = 5) -> int:
    """One DETAILED-style doc per ``per_doc`` paragraphs: per_doc-1 L1 chunks and an L3 final."""
    from batchsum.tree import node_path, write_node

    types = ("document", "journal", "conversation")
    written = 0
    for d in range(0, len(paras), per_doc):
        group = paras[d : d + per_doc]
        stem = group[0][0][:40]
        rel = f"gutenberg/{stem}/part_{d // per_doc:05d}.txt"
        day = (date(2024, 1, 1) + timedelta(days=(d // per_doc) % 700)).isoformat()
        ctype = types[(d // per_doc) % 3]
        for i, (_, body) in enumerate(group):
            final = i == len(group) - 1
            level, index = (3, None) if final else (1, i)
            meta = {
                "id": f"{rel}:summary:L{level}:{'final' if final else i}",
                "doc_id": rel,
                "source_path": rel,
                "source_sha256": "0" * 64,
                "role": "summary",
                "level": level,
                **({"chunk_index": i} if not final else {}),
                "is_final": final,
                "summary_level": "DETAILED",
                "input_tokens": 3000,
                "output_tokens": len(body.split()),
                "compression_ratio": 0.07,
                "content_type": ctype,
                "backend": "extractive",
                "created_at": "2025-01-01T00:00:00Z",
                "doc_date": day,
            }
            write_node(node_path(out, rel, level, index), meta, body)
            written += 1
    (out / ".batchsum").mkdir(exist_ok=True)  # an output folder: the index refuses to build into any other
    return written


def _queries_from(paras: list[tuple[str, str]], n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    picks = rng.sample(paras, min(n, len(paras)))
    queries = []
    for _, text in picks:
        words = text.split()
        start = rng.randrange(0, max(1, len(words) - 10))
        queries.append(" ".join(words[start : start + 8]))
    return queries


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _throughput_and_latency(ctx: BenchContext) -> list[BenchResult]:
    from batchsum.config import RunConfig
    from batchsum.index.embed import get_static_embedder
    from batchsum.index.search import search
    from batchsum.index.store import rebuild_index

    books = ctx.bench_data("gutenberg", "docs")
    if books is None:
        return skip(AREA, "shared/bench/gutenberg/docs not found")
    # Quick: the whole quick suite has two minutes, and this CPU embeds ~10-25 nodes/s.
    n_nodes = 300 if ctx.quick else 10_000
    paras = _paragraphs(books, n_nodes)
    out = ctx.workdir / "index-tree"
    if out.exists():
        import shutil

        shutil.rmtree(out)
    written = _write_tree(out, paras)
    results: list[BenchResult] = []
    emb = get_static_embedder()
    tokens = sum(len(t) for t in emb.token_ids([p for _, p in paras]))
    results.append(emit(BenchResult(AREA, "tree nodes (gutenberg paragraphs)", float(written), "nodes")))
    results.append(emit(BenchResult(AREA, "mean WordPiece tokens per node", tokens / max(1, written), "tokens")))
    cfg = RunConfig(paths=[], out=out)
    stats = rebuild_index(cfg)
    rate = stats.nodes_indexed / stats.seconds if stats.seconds else 0.0
    results.append(emit(BenchResult(AREA, "index throughput (rebuild: static vectors + BM25)", rate, "nodes/s",
                                    ">= 250", rate >= 250)))  # fmt: skip
    results.append(emit(BenchResult(AREA, "embedding throughput", tokens / stats.seconds, "tokens/s")))

    queries = _queries_from(paras, 30 if ctx.quick else 100)
    search(cfg, "warm up the model and the collection")
    lat: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        search(cfg, q, k=5)
        lat.append((time.perf_counter() - t0) * 1000)
    p50, p95 = statistics.median(lat), _percentile(lat, 0.95)
    results.append(emit(BenchResult(AREA, f"search latency p50 ({written} nodes, k=5)", p50, "ms", "<= 50", p50 <= 50)))
    results.append(emit(BenchResult(AREA, f"search latency p95 ({written} nodes, k=5)", p95, "ms")))
    return results


def _pool_sources(cfg: RunConfig, query: str, k: int = 5) -> tuple[set[str], set[str]]:
    """Source paths of the candidates that get scored (before the floor and MMR): (dense, dense + BM25)."""
    from batchsum.index.dense import open_dense
    from batchsum.index.embed import get_embedder
    from batchsum.index.lexical import LexFilter
    from batchsum.index.search import CANDIDATES_PER_LEVEL, LEXICAL_PER_LEVEL, lexical_candidates

    emb = get_embedder(cfg)
    dense_index = open_dense(cfg, emb)
    try:
        ids = dense_index.nearest(emb.embed([query])[0], k * CANDIDATES_PER_LEVEL, LexFilter())
    finally:
        dense_index.close()
    dense = {i.split(":summary:")[0] for i in ids}
    lex = lexical_candidates(cfg, query, k * LEXICAL_PER_LEVEL, LexFilter(), dense)
    return dense, dense | {i.split(":summary:")[0] for i in lex.candidates}


def _qmsum(ctx: BenchContext, name: str = "qmsum") -> list[BenchResult]:
    """Recall of the right meeting for the specific queries of one QMSum split (nothing tuned on either)."""
    from batchsum.config import RunConfig
    from batchsum.index.search import search
    from batchsum.index.store import rebuild_index

    docs = ctx.bench_data(name, "docs")
    qdir = ctx.bench_data(name, "queries")
    if docs is None or qdir is None:
        return skip(AREA, f"shared/bench/{name} not found")
    meetings = sorted(docs.glob("*.txt"))
    if ctx.quick:
        meetings = meetings[:: max(1, len(meetings) // 5)]  # a spread of AMI, ICSI and parliament meetings
    # Quick and full runs keep separate outputs: a quick run given 5 files would otherwise search
    # the full run's meetings (those files are not deleted: they belong to another corpus root).
    out = ctx.workdir / (f"{name}-out-quick" if ctx.quick else f"{name}-out")
    proc = subprocess.run(
        batchsum_cmd("run", *map(str, meetings), "--out", str(out), "--no-index"), capture_output=True, text=True
    )
    if proc.returncode not in (0, 1):
        return skip(AREA, f"batchsum run on {name} failed ({proc.returncode}): {proc.stderr.strip()[-160:]}")
    cfg = RunConfig(paths=[], out=out)
    stats = rebuild_index(cfg)
    results = [emit(BenchResult(AREA, f"{name}: meetings / summary nodes indexed", f"{len(meetings)} / "
                                f"{stats.nodes_indexed}"))]  # fmt: skip
    hits1 = hits5 = pool_hits = dense_pool_hits = total = 0
    queries: list[str] = []
    asked: list[tuple[str, str]] = []
    for m in meetings:
        qfile = qdir / f"{m.stem}.json"
        if not qfile.is_file():
            continue
        specific = [q["query"] for q in json.loads(qfile.read_text(encoding="utf-8")).get("specific_query_list", [])]
        for query in specific[:2] if ctx.quick else specific:
            queries.append(query)
            asked.append((m.stem, query))
            found = [h.source_path for h in search(cfg, query, k=5)]
            ranks = [i for i, sp in enumerate(found) if m.stem in sp]
            total += 1
            hits5 += bool(ranks)
            hits1 += bool(ranks) and ranks[0] == 0
            dense_pool, pool = _pool_sources(cfg, query)
            dense_pool_hits += any(m.stem in sp for sp in dense_pool)
            pool_hits += any(m.stem in sp for sp in pool)
    if not total:
        return [*results, *skip(AREA, f"no {name} specific queries found")]
    r5, r1 = hits5 / total, hits1 / total
    label = f"{name} recall@5 of the right meeting ({total} queries, {len(meetings)} meetings)"
    results.append(emit(BenchResult(AREA, label, r5, "", ">= 0.9", r5 >= 0.9)))
    results.append(emit(BenchResult(AREA, f"{name} recall@1", r1, "")))
    best, shared = ceiling(asked)
    results.append(emit(BenchResult(AREA, f"{name} recall@5 ceiling (one list per question text; {shared} queries"
                                    " share their text with another meeting's)", best, "")))  # fmt: skip
    results.append(emit(BenchResult(AREA, f"{name} right meeting in the dense 3k-per-level pool",
                                    dense_pool_hits / total, "")))  # fmt: skip
    results.append(emit(BenchResult(AREA, f"{name} right meeting in the dense + BM25 pool", pool_hits / total, "")))
    if name == "qmsum":
        results += _cli_query_wall(ctx, cfg, queries[:3], name)
    return results


def _cli_query_wall(ctx: BenchContext, cfg: RunConfig, queries: list[str], name: str) -> list[BenchResult]:
    """``batchsum search`` as a user runs it: wall time of a whole command (median of 7 after one warm-up,
    so the page cache is warm), and whether it returns exactly the library's hits."""
    from batchsum.index.search import search

    walls: list[float] = []
    same = True
    for i, query in enumerate(queries or ["budget"]):
        cmd = batchsum_cmd("search", query, "--out", str(cfg.out), "--json")
        subprocess.run(cmd, capture_output=True, text=True, check=True)  # warm-up
        for _ in range(7 if i == 0 else 1):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            walls.append(time.perf_counter() - t0)
        cli = [(h["node_id"], h["score"]) for h in json.loads(proc.stdout)]
        same &= cli == [(h.node_id, h.score) for h in search(cfg, query, k=5)]
    wall = statistics.median(walls[:7])
    return [
        emit(BenchResult(AREA, f"{name}: CLI search wall (median of 7, warm)", wall, "s", "<= 0.5", wall <= 0.5)),
        emit(
            BenchResult(AREA, f"{name}: CLI hits = library hits ({len(queries)} queries)", str(same), "", "True", same)
        ),
    ]


NONSENSE = "kubernetes cluster autoscaling yaml"
SCOTT_QUERIES = ["when did Lady Scott die?", "money troubles with the printers", "a dinner with friends"]


def _first_runs(ctx: BenchContext, name: str, paths: list[Path], rss_target_mb: float | None,
                disk_target: float | None) -> list[BenchResult]:  # fmt: skip
    """First run with and without the index in one window; size on disk; the quiet re-run after a change."""
    import shutil

    from batchsum.config import RunConfig
    from batchsum.index.store import index_sizes
    from bench.common import timed_run

    base = ctx.workdir / f"first-{name}"
    shutil.rmtree(base, ignore_errors=True)
    plain_wall, plain_rss = _timed_first(paths, base / "plain", "--no-index")
    emit(BenchResult(AREA, f"{name}: peak RSS of the first run --no-index", plain_rss / 1024, "MB"))
    wall, rss = _timed_first(paths, base / "indexed")
    out = base / "indexed"
    results = [emit(BenchResult(AREA, f"{name}: first run --no-index", plain_wall, "s")),
               emit(BenchResult(AREA, f"{name}: first run with the index", wall, "s")),
               emit(BenchResult(AREA, f"{name}: first run index / --no-index", wall / plain_wall, "x", "<= 2",
                                wall / plain_wall <= 2))]  # fmt: skip
    rss_mb = rss / 1024
    target = f"<= {rss_target_mb:.0f}" if rss_target_mb else ""
    results.append(emit(BenchResult(AREA, f"{name}: peak RSS of the first run", rss_mb, "MB", target,
                                    rss_mb <= rss_target_mb if rss_target_mb else None)))  # fmt: skip
    corpus_bytes = sum(f.stat().st_size for p in paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())
    index_bytes = sum(part.bytes for part in index_sizes(RunConfig(paths=[], out=out)))
    ratio = index_bytes / max(1, corpus_bytes)
    results.append(emit(BenchResult(AREA, f"{name}: index on disk / corpus bytes", ratio, "x",
                                    f"<= {disk_target:g}" if disk_target else "",
                                    ratio <= disk_target if disk_target else None)))  # fmt: skip
    if paths[0].is_dir() and paths[0].parent == ctx.workdir:
        # A changing run (one entry edited), then the quiet re-run right after it.
        edited = sorted(paths[0].glob("*.*"))[0]
        edited.write_text(edited.read_text(encoding="utf-8") + "\nA line added for the benchmark.\n", encoding="utf-8")
        timed_run(batchsum_cmd("run", *map(str, paths), "--out", str(out), "--quiet"))
        quiet_wall, _ = timed_run(batchsum_cmd("run", *map(str, paths), "--out", str(out), "--quiet"))
        share = quiet_wall / wall
        results.append(emit(BenchResult(AREA, f"{name}: quiet re-run after a changing run / first run", share * 100,
                                        "%", "<= 3", share <= 0.03)))  # fmt: skip
    hits = subprocess.run(batchsum_cmd("search", NONSENSE, "--out", str(out), "--json"), capture_output=True,
                          text=True)  # fmt: skip
    best = max((h["score"] for h in json.loads(hits.stdout or "[]")), default=0.0) if hits.returncode == 0 else 1.0
    results.append(emit(BenchResult(AREA, f"{name}: best score for '{NONSENSE}'", best, "", "< 0.3", best < 0.3)))
    if name == "scott_daily":
        results += _cli_query_wall(ctx, RunConfig(paths=[], out=out), SCOTT_QUERIES, name)
    return results


def _timed_first(paths: list[Path], out: Path, *extra: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (KiB) of one first run, its worker processes included."""
    from bench.common import measure_tree

    cmd = batchsum_cmd("run", *map(str, paths), "--out", str(out), "--quiet", *extra)
    out.parent.mkdir(parents=True, exist_ok=True)
    usage = measure_tree(cmd, out.with_name(out.name + ".log"))
    if not usage.completed:
        raise RuntimeError(f"{' '.join(cmd)} failed ({usage.exit_code}; see {out.name}.log)")
    return usage.wall, usage.peak_rss_kib


def _costs(ctx: BenchContext) -> list[BenchResult]:
    results: list[BenchResult] = []
    scott = ctx.bench_data("journals", "scott_daily")
    if scott is None:
        return skip(AREA, "shared/bench/journals/scott_daily not found")
    # A scratch copy: the quiet re-run is measured right after a run that edited one entry.
    import shutil

    copy = ctx.workdir / "scott_daily"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(scott, copy)
    results += _first_runs(ctx, "scott_daily", [copy], 400, None)
    meetings = ctx.bench_data("qmsum", "docs")
    if meetings is not None:
        results += _first_runs(ctx, "qmsum", [meetings], None, None)
    books = ctx.bench_data("gutenberg", "docs")
    if books is not None and not ctx.quick:
        results += _first_runs(ctx, "gutenberg", [books], 1024, 2.0)
    return results


def run(ctx: BenchContext) -> list[BenchResult]:
    """Throughput, latency and retrieval quality of the search index."""
    ctx.workdir.mkdir(parents=True, exist_ok=True)
    return [*_costs(ctx), *_throughput_and_latency(ctx), *_qmsum(ctx, "qmsum"), *_qmsum(ctx, "qmsum_train")]


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--workdir", type=Path, default=Path(".bench-out/index"))
    args = ap.parse_args()
    run(BenchContext(shared=args.shared if args.shared.exists() else None, quick=args.quick, workdir=args.workdir))
