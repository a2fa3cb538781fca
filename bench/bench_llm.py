"""LLM path: batchsum next to the plain reference client, both against the task-graph bound.

One loopback server (``shared/tools/llm_bench/fake_openai.py``: aiohttp, a fixed 200 ms a request,
one JSONL line per request) serves, in the same window and alternating:

* ``batchsum run <qmsum docs> --no-index --no-metrics --no-cache`` as a fresh process;
* ``ref_pipeline.py``, the ~100-line asyncio client that runs exactly the same task graph.

For each client and concurrency: process wall (interpreter start to exit: imports, reading and
tokenizing count), calls and peak in flight as the *server* saw them, and
``bound = max(depth × latency, calls × latency / concurrency)`` from those calls. Targets:
batchsum wall / bound ≤ 1.25 at ``--concurrency 16`` and ≤ 1.6 at 64, and no further from the bound
than the reference client measured in the same run (the best of ``REPEATS`` runs each, so a
neighbour's burst on this shared machine does not decide). Quick mode: 8 meetings, one repeat.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, skip

AREA = "llm"
LATENCY_S = 0.2
QUICK_DOCS = 8
REPEATS = 3
REPO = Path(__file__).resolve().parent.parent
LEVEL_DEPTH = {"HIERARCHICAL": 3, "DETAILED": 2, "STANDARD": 1, "BRIEF": 1}
# (concurrency, target wall / bound for batchsum)
SETTINGS: list[tuple[int, float]] = [(16, 1.25), (64, 1.6)]


class _Server:
    """``fake_openai.py`` as a child process, logging every request to ``log``."""

    def __init__(self, tools: Path, workdir: Path, latency_s: float) -> None:
        self.log = workdir / "llm-server.jsonl"
        self.log.unlink(missing_ok=True)
        port_file = workdir / "llm-server.port"
        port_file.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(tools / "fake_openai.py"),
                "--port",
                "0",
                "--port-file",
                str(port_file),
                "--log",
                str(self.log),
                "--latency-ms",
                str(latency_s * 1000),
                "--max-runtime-s",
                "1800",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"fake_openai.py exited with {self.proc.returncode}")
            if port_file.exists() and port_file.read_text().strip():
                self.base_url = f"http://127.0.0.1:{int(port_file.read_text())}/v1"
                return
            time.sleep(0.05)
        self.close()
        raise RuntimeError("fake_openai.py did not report its port in time")

    def requests(self, since: float, until: float) -> list[dict[str, Any]]:
        """The server's log lines of requests that arrived in [since, until]."""
        out = []
        with open(self.log, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if since <= rec["t_arrival"] <= until:
                    out.append(rec)
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _peak(reqs: list[dict[str, Any]]) -> int:
    events = sorted([(r["t_arrival"], 1) for r in reqs] + [(r["t_finish"], -1) for r in reqs])
    cur = best = 0
    for _, d in events:
        cur += d
        best = max(best, cur)
    return best


def _batchsum(server: _Server, inputs: list[str], out: Path, concurrency: int) -> list[str]:
    shutil.rmtree(out, ignore_errors=True)
    return batchsum_cmd(
        "run",
        *inputs,
        "--out",
        str(out),
        "--base-url",
        server.base_url,
        "--model",
        "fake",
        "--concurrency",
        str(concurrency),
        "--rpm",
        "0",
        "--tpm",
        "0",
        "--no-index",
        "--no-metrics",
        "--no-cache",
        # The bound's graph (and the reference client) asks one question per node; the shared server
        # answers a facets request with no JSON, so each conversation's final would be asked twice.
        "--no-facets",
        "--no-progress",
        "--json",
    )


def _measure(cmd: list[str], server: _Server, env: dict[str, str]) -> tuple[float, list[dict[str, Any]], str]:
    started = time.time()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    time.sleep(0.05)  # the server writes its log line just after the response
    return wall, server.requests(started, time.time()), proc.stdout


def run(ctx: BenchContext) -> list[BenchResult]:
    """Wall / bound of batchsum and of the reference client at concurrency 16 and 64."""
    docs = ctx.bench_data("qmsum", "docs")
    tools = ctx.shared / "tools" / "llm_bench" if ctx.shared is not None else None
    if docs is None:
        return skip(AREA, "shared/bench/qmsum/docs not found")
    if tools is None or not (tools / "fake_openai.py").exists():
        return skip(AREA, "shared/tools/llm_bench not found")
    files = sorted(p for p in docs.iterdir() if p.is_file())
    if ctx.quick:
        corpus = ctx.workdir / "llm-corpus"
        shutil.rmtree(corpus, ignore_errors=True)
        corpus.mkdir(parents=True)
        for p in files[:QUICK_DOCS]:
            shutil.copy(p, corpus / p.name)
        files = sorted(corpus.iterdir())
    else:
        corpus = docs
    label_docs = f"{len(files)} meetings"
    repeats = 1 if ctx.quick else REPEATS
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("OPENAI_API_KEY", None)
    results: list[BenchResult] = []
    server = _Server(tools, ctx.workdir, LATENCY_S)
    try:
        for concurrency, target in SETTINGS:
            best: dict[str, tuple[float, float, list[dict[str, Any]], int]] = {}
            for _ in range(repeats):
                # Alternate the two clients so both see the same neighbours on this shared machine.
                cmd = _batchsum(server, [str(corpus)], ctx.workdir / f"llm-{concurrency}", concurrency)
                wall, reqs, stdout = _measure(cmd, server, env)
                summary = json.loads(stdout)
                depth = max((LEVEL_DEPTH.get(lv, 0) for lv, n in summary.get("levels", {}).items() if n), default=0)
                fallbacks = sum(int(f.get("fallback_nodes", 0)) for f in summary.get("files", []))
                bound = max(depth * LATENCY_S, len(reqs) * LATENCY_S / concurrency)
                if "batchsum" not in best or wall / bound < best["batchsum"][1]:
                    best["batchsum"] = (wall, wall / bound, reqs, fallbacks)
                ref = [
                    sys.executable,
                    str(tools / "ref_pipeline.py"),
                    str(corpus),
                    "--base-url",
                    server.base_url,
                    "--concurrency",
                    str(concurrency),
                ]
                wall, reqs, _ = _measure(ref, server, env)
                bound = max(3 * LATENCY_S, len(reqs) * LATENCY_S / concurrency)
                if "reference" not in best or wall / bound < best["reference"][1]:
                    best["reference"] = (wall, wall / bound, reqs, 0)
            for client in ("reference", "batchsum"):
                wall, ratio, reqs, fallbacks = best[client]
                label = f"C={concurrency} {client}"
                first = min(r["t_arrival"] for r in reqs) if reqs else 0.0
                last = max(r["t_finish"] for r in reqs) if reqs else 0.0
                bound = wall / ratio
                results += [
                    emit(BenchResult(AREA, f"{label}: process wall ({label_docs})", wall, "s")),
                    emit(BenchResult(AREA, f"{label}: calls / peak in flight", f"{len(reqs)} / {_peak(reqs)}")),
                    emit(BenchResult(AREA, f"{label}: requests span / bound", (last - first) / bound, "x")),
                ]
                if client == "batchsum":
                    ref_ratio = best["reference"][1]
                    ok = ratio <= target and fallbacks == 0 and _peak(reqs) <= concurrency
                    results += [
                        emit(BenchResult(AREA, f"{label}: lower bound", bound, "s")),
                        emit(BenchResult(AREA, f"{label}: wall / bound", ratio, "x", target=f"<= {target}", ok=ok)),
                        emit(
                            BenchResult(
                                AREA,
                                f"C={concurrency} batchsum vs reference (wall/bound)",
                                f"{ratio:.3f} vs {ref_ratio:.3f}",
                                target="batchsum <= reference",
                                ok=ratio <= ref_ratio,
                            )
                        ),
                    ]
                    if fallbacks:
                        results.append(emit(BenchResult(AREA, f"{label}: fallback nodes", str(fallbacks), ok=False)))
                else:
                    results.append(emit(BenchResult(AREA, f"{label}: wall / bound", ratio, "x")))
    finally:
        server.close()
    return results
