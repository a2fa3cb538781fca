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
    """Run ``cmd``; return (wall seconds, peak RSS in KiB of the largest process run so far).

    For a run's memory use :func:`measure_tree`, which counts its worker processes."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if check and proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


@dataclass
class TreeUsage:
    """What a command and every process it started used (worker pools included)."""

    wall: float  # seconds, start to the command's exit
    cpu: float  # user + system seconds of the whole process tree
    peak_rss_kib: int  # the tree's largest total memory (summed PSS, polled), at least the command's own peak RSS
    exit_code: int
    crashed: bool = False  # its output holds a Python traceback: exit code 1 then is a crash, not failed files

    @property
    def completed(self) -> bool:
        """Whether a ``batchsum run`` got to its end: exit code 0, or 1 (some files failed), and no crash."""
        return self.exit_code in (0, 1) and not self.crashed


def tree_pids(root: int) -> list[int]:
    """``root`` and its live descendants (read from ``/proc``)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                parents[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # exited meanwhile
    tree, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.append(child)
                frontier.append(child)
    return tree


def rss_pss_kib(pid: int) -> tuple[int, int]:
    """A process's resident and proportional set sizes (KiB); its RSS for both where the kernel gives
    no PSS, and (0, 0) once it has exited."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
        return rss, pss
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            rss = int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0, 0
    return rss, rss


def _tree_memory_kib(root: int) -> int:
    """Memory (KiB) of ``root`` and its live descendants: their proportional set sizes summed, so
    pages forked workers share with their fork server count once (RSS where PSS is unavailable)."""
    return sum(rss_pss_kib(pid)[1] for pid in tree_pids(root))


def measure_tree(cmd: list[str], log: Path, poll: float = 0.05) -> TreeUsage:
    """Run ``cmd`` with its output in ``log``; CPU and memory count every process it starts.

    A command's worker processes may outlive it by a moment or belong to a fork server it started:
    this process becomes their "subreaper" (Linux), so they are reaped here and their CPU time lands
    in this process's children's usage. Memory is the tree's total (proportional set sizes, polled
    every ``poll`` s), and at least the run's own exact peak RSS."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = 0
    with open(log, "w", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_memory_kib(proc.pid))
            time.sleep(poll)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = max(peak, int(usage.ru_maxrss))  # the run's own exact peak, in case polling missed it
    deadline = time.monotonic() + 10.0  # orphaned workers and fork servers exit with their run
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.01)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    crashed = "Traceback (most recent call last)" in log.read_text(encoding="utf-8", errors="replace")
    return TreeUsage(wall, cpu, peak, proc.returncode, crashed)
