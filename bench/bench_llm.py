"""LLM path: how close a whole-corpus run gets to the task-graph lower bound.

Starts the loopback test server (``tests/fakeserver.py``) as a subprocess at a fixed 200 ms per
request, no RPM/TPM cap, then runs ``batchsum run <shared>/bench/qmsum/docs`` as a fresh process
(wall time from process start, so imports, reading and tokenizing count). For each setting:

* calls and peak concurrency as the *server* saw them, tokens as the run reported them;
* the lower bound ``max(depth × latency, calls × latency / concurrency[, calls / (rpm/60)])``,
  where depth is the longest L1 -> L2 -> L3 chain of the same plan and calls the server's count;
* wall / bound. Targets: ≤ 1.15 at --concurrency 16, ≤ 1.5 at 64; --rpm 600 is reported as is.

Quick mode summarizes a subset of the meetings.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit, skip

AREA = "llm"
LATENCY_S = 0.2
QUICK_DOCS = 8
REPO = Path(__file__).resolve().parent.parent
LEVEL_DEPTH = {"HIERARCHICAL": 3, "DETAILED": 2, "STANDARD": 1, "BRIEF": 1}
SETTINGS: list[tuple[str, int, int, float]] = [
    # (label, concurrency, rpm (0 = unlimited), target wall/bound (0 = informational))
    ("concurrency 16", 16, 0, 1.15),
    ("concurrency 64", 64, 0, 1.5),
    ("rpm 600", 16, 600, 0.0),
]


class _FakeServer:
    """``python -m tests.fakeserver`` as a child process."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakeserver", "--port", "0", "--latency", str(latency)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.base_url = self._wait_ready(timeout=30.0)

    def _wait_ready(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"fake server exited with {self.proc.returncode}")
            if sel.select(timeout=0.5):
                line = self.proc.stdout.readline()
                if line.startswith("READY "):
                    return line.split()[1]
        self.close()
        raise RuntimeError("fake server did not print READY in time")

    def _call(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        root = self.base_url.removesuffix("/v1")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(root + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            result: dict[str, Any] = json.loads(resp.read())
            return result

    def reset(self) -> None:
        self._call("/_control", {"reset_log": True})

    def log(self) -> dict[str, Any]:
        return self._call("/_log")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _depth(levels: dict[str, int]) -> int:
    """Longest chain of sequential calls in the plan (L1 -> L2 -> L3)."""
    return max((LEVEL_DEPTH.get(level, 0) for level, n in levels.items() if n), default=0)


def _run_once(
    server: _FakeServer, inputs: list[str], out: Path, concurrency: int, rpm: int
) -> tuple[float, dict[str, Any], dict[str, Any]]:
    server.reset()
    shutil.rmtree(out, ignore_errors=True)
    cmd = batchsum_cmd(
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
        str(rpm),
        "--tpm",
        "0",
        "--no-index",
        "--no-metrics",
        "--no-cache",
        "--no-progress",
        "--json",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("OPENAI_API_KEY", None)
    started = time.time()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"batchsum run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    log = server.log()
    log["started"] = started
    return wall, json.loads(proc.stdout), log


def run(ctx: BenchContext) -> list[BenchResult]:
    """Wall time vs the task-graph bound at concurrency 16 and 64, and under --rpm 600."""
    docs = ctx.bench_data("qmsum", "docs")
    if docs is None:
        return skip(AREA, "shared/bench/qmsum/docs not found")
    files = sorted(p for p in docs.iterdir() if p.is_file())
    inputs = [str(p) for p in files[:QUICK_DOCS]] if ctx.quick else [str(docs)]
    label_docs = f"{min(len(files), QUICK_DOCS) if ctx.quick else len(files)} meetings"
    results: list[BenchResult] = []
    server = _FakeServer(LATENCY_S)
    try:
        for label, concurrency, rpm, target in SETTINGS:
            if ctx.quick and rpm:
                continue  # the paced run takes calls/10 seconds by design; full runs only
            wall, summary, log = _run_once(server, inputs, ctx.workdir / f"llm-{concurrency}-{rpm}", concurrency, rpm)
            run_rec = summary["run"]
            calls = int(log["count"])
            depth = _depth(summary.get("levels", {}))
            bound = max(depth * LATENCY_S, calls * LATENCY_S / concurrency)
            if rpm:
                bound = max(bound, calls / (rpm / 60.0))
            ratio = wall / bound if bound else float("nan")
            tokens = int(run_rec.get("prompt_tokens", 0)) + int(run_rec.get("completion_tokens", 0))
            reqs = log["requests"]
            # Where the time goes: before the first request reaches the server (startup, reading,
            # tokenizing), the graph itself, and after the last response (writing, exit).
            first = min((r["arrival"] for r in reqs), default=log["started"]) - log["started"]
            span = max((r["finish"] or r["arrival"] for r in reqs), default=0.0) - min(
                (r["arrival"] for r in reqs), default=0.0
            )
            fallbacks = sum(int(f.get("fallback_nodes", 0)) for f in summary.get("files", []))
            results += [
                emit(BenchResult(AREA, f"{label}: wall ({label_docs})", wall, "s")),
                emit(BenchResult(AREA, f"{label}: calls (server) / depth", f"{calls} / {depth}")),
                emit(BenchResult(AREA, f"{label}: tokens (prompt+completion)", str(tokens))),
                emit(
                    BenchResult(
                        AREA,
                        f"{label}: peak in flight (server)",
                        str(log["peak_inflight"]),
                        target=f"<= {concurrency}",
                        ok=int(log["peak_inflight"]) <= concurrency,
                    )
                ),
                emit(BenchResult(AREA, f"{label}: start -> first request", first, "s")),
                emit(BenchResult(AREA, f"{label}: first request -> last response", span, "s")),
                # The graph and client alone, start-up (interpreter, imports, first file) left out.
                emit(BenchResult(AREA, f"{label}: (first request -> last response) / bound", span / bound, "x")),
                emit(BenchResult(AREA, f"{label}: lower bound", bound, "s")),
                emit(
                    BenchResult(
                        AREA,
                        f"{label}: wall / bound",
                        ratio,
                        "x",
                        target=f"<= {target}" if target else "",
                        ok=(ratio <= target) if target else None,
                    )
                ),
            ]
            if fallbacks or int(run_rec.get("llm_calls", calls)) != calls:
                results.append(
                    emit(
                        BenchResult(
                            AREA,
                            f"{label}: client calls / fallback nodes",
                            f"{run_rec.get('llm_calls')} / {fallbacks}",
                            ok=False,
                        )
                    )
                )
    finally:
        server.close()
    return results
