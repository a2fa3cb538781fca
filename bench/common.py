"""Shared benchmark plumbing: every bench module exposes ``run(ctx) -> list[BenchResult]``."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BenchContext:
    """Where the data is, how big a run to do, and where to put scratch output."""

    shared: Path | None  # ../shared, or None when absent
    quick: bool
    workdir: Path  # scratch folder for this bench run

    def bench_data(self, *parts: str) -> Path | None:
        """A folder under shared/bench, or None when shared is absent."""
        if self.shared is None:
            return None
        p = self.shared.joinpath("bench", *parts)
        return p if p.exists() else None


@dataclass
class BenchResult:
    """One figure: printed as `area | name | value unit | target | OK/MISS/INFO`."""

    area: str
    name: str
    value: float | str
    unit: str = ""
    target: str = ""
    ok: bool | None = None  # None: informational, no target

    def line(self) -> str:
        val = f"{self.value:.3f}" if isinstance(self.value, float) else str(self.value)
        verdict = "INFO" if self.ok is None else ("OK" if self.ok else "MISS")
        return f"{self.area:<12} | {self.name:<46} | {val:>12} {self.unit:<8} | {self.target:<22} | {verdict}"


def emit(result: BenchResult) -> BenchResult:
    """Print a result line at once (so partial progress is visible) and return it."""
    print(result.line(), flush=True)
    return result


def skip(area: str, reason: str) -> list[BenchResult]:
    """A benchmark that cannot run here (e.g. ../shared absent) says so clearly."""
    return [emit(BenchResult(area, f"SKIPPED: {reason}", "-", ok=None))]


def batchsum_cmd(*args: str) -> list[str]:
    """The batchsum CLI as users (and cron) run it: the ``batchsum`` script installed beside this
    interpreter, else ``python -m batchsum`` (which also imports runpy, ~5 ms more per start)."""
    script = Path(sys.executable).with_name("batchsum")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), *args]
    return [sys.executable, "-m", "batchsum", *args]


def timed_run(cmd: list[str], env: dict[str, str] | None = None, check: bool = True) -> tuple[float, int]:
    """Run ``cmd``; return (wall seconds, peak RSS of children in KiB)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if check and proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
