"""The chat endpoint's latency: retrieval, and what ``batchsum serve`` adds over its upstream.

An output with the summaries of ``scott_daily`` journals (a subset in quick mode) and synthetic facts;
``batchsum serve`` in front of the loopback test server (``tests/fakeserver.py``, no added latency, so
its own time is what is left); the same questions sent to the upstream directly and through serve.
Figures: the first request's latency right after serve says it is listening, retrieval p50/p95 (from
serve's ``Server-Timing``), end-to-end p50 direct and through serve, and the overhead (through serve
minus direct, p50).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, skip

AREA = "serve"
QUESTIONS = [
    "What did I do at the weekend?",
    "How was work this week?",
    "Who did I have dinner with?",
    "When did I go to the doctor?",
    "What books am I reading?",
    "Where did we go on holiday?",
    "How am I sleeping lately?",
    "What did I cook on Sunday?",
]
FACTS = 300
REPO = Path(__file__).resolve().parent.parent


def _facts(out: Path, n: int) -> None:
    """Synthetic facts written and indexed the way the memory does (no LLM needed)."""
    from batchsum.config import RunConfig
    from batchsum.memory.files import Fact, write_fact
    from batchsum.memory.store import FactIndex

    things = ["visited the market", "called my sister", "read a novel", "went running", "cooked pasta",
              "met Anna for coffee", "fixed the bicycle", "worked late on the report"]  # fmt: skip
    facts = []
    for i in range(n):
        fact = Fact(text=f"On day {i} the user {things[i % len(things)]} (note {i}).", scope="journal",
                    doc_date=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}", source_path=f"journal/{i}.md")  # fmt: skip
        write_fact(out, fact)
        facts.append(fact)
    FactIndex(RunConfig(paths=[], out=out)).upsert(facts)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(ctx: BenchContext) -> list[BenchResult]:
    """Build the output, start upstream and serve, time the questions."""
    data = ctx.bench_data("journals", "scott_daily")
    if data is None:
        return skip(AREA, "../shared/bench/journals/scott_daily not found")
    import httpx

    n_files = 20 if ctx.quick else 400
    rounds = 2 if ctx.quick else 6
    work = ctx.workdir / AREA
    shutil.rmtree(work, ignore_errors=True)
    src, out = work / "journal", work / "out"
    src.mkdir(parents=True)
    for p in sorted(data.glob("*.md"))[:n_files]:
        shutil.copy(p, src / p.name)
    subprocess.run(batchsum_cmd("run", str(src), "--out", str(out), "-q", "--no-metrics"), check=True,
                   capture_output=True)  # fmt: skip
    _facts(out, FACTS // 3 if ctx.quick else FACTS)

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    upstream = subprocess.Popen([sys.executable, "-m", "tests.fakeserver", "--port", "0"], stdout=subprocess.PIPE,
                                text=True, env=env)  # fmt: skip
    serve = None
    try:
        assert upstream.stdout is not None
        base = upstream.stdout.readline().split()[1]
        serve = subprocess.Popen(
            batchsum_cmd("serve", "--out", str(out), "--port", "0", "--base-url", base, "--model", "fake",
                         "--rpm", "0", "--no-facts", "--no-summaries", "-q"),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        )  # fmt: skip
        assert serve.stdout is not None
        url = serve.stdout.readline().split("listening on ")[1].split()[0]
        retrieval, direct, through = [], [], []
        with httpx.Client(timeout=60) as http:
            # The first request right after serve says it is listening: it loads nothing more than any other.
            body = {"model": "fake", "messages": [{"role": "user", "content": QUESTIONS[0]}]}
            t0 = time.perf_counter()
            http.post(f"{url}/chat/completions", json=body).raise_for_status()
            first = (time.perf_counter() - t0) * 1000
            for _ in range(rounds):
                for q in QUESTIONS:
                    body = {"model": "fake", "messages": [{"role": "user", "content": q}]}
                    t0 = time.perf_counter()
                    http.post(f"{base}/chat/completions", json=body).raise_for_status()
                    direct.append((time.perf_counter() - t0) * 1000)
                    t0 = time.perf_counter()
                    r = http.post(f"{url}/chat/completions", json=body)
                    r.raise_for_status()
                    through.append((time.perf_counter() - t0) * 1000)
                    m = re.search(r"retrieval;dur=([\d.]+)", r.headers.get("Server-Timing", ""))
                    if m:
                        retrieval.append(float(m.group(1)))
    finally:
        for proc in (serve, upstream):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    overhead = statistics.median(through) - statistics.median(direct)
    label = f"{n_files} journal files, {FACTS // 3 if ctx.quick else FACTS} facts, {len(through)} requests"
    return [
        emit(BenchResult(AREA, "first request after listening", first, "ms", "<= 300 ms", first <= 300)),
        emit(
            BenchResult(
                AREA,
                f"retrieval p50 ({label})",
                statistics.median(retrieval),
                "ms",
                "<= 100 ms",
                statistics.median(retrieval) <= 100,
            )
        ),
        emit(BenchResult(AREA, "retrieval p95", _percentile(retrieval, 0.95), "ms")),
        emit(BenchResult(AREA, "upstream direct p50", statistics.median(direct), "ms")),
        emit(BenchResult(AREA, "through serve p50", statistics.median(through), "ms")),
        emit(BenchResult(AREA, "serve overhead over upstream (p50)", overhead, "ms", "<= 150 ms", overhead <= 150)),
    ]
