"""Fault injection: kill -9 at random points, a full disk, damaged state, and what the next run finds.

Each case runs the real ``batchsum`` command on a copy of ``sample_corpus`` and classifies the outcome:

* **crashed**: a Python traceback on stderr, or a death by signal we did not send;
* **lost**: after the recovery run, a source without its final, a node file whose front matter does
  not parse, or a summary that differs from an undisturbed reference run;
* **unclear**: an exit code the README does not document, or a failure without a one-line reason.

Then the hostile inputs of :mod:`bench.fault_families`, printed as a table of tried / crashed / hung /
lost per family.

Targets: all counts at 0 but "tried". ``make faults`` runs this module alone; ``make bench`` includes it.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import BenchContext, BenchResult, batchsum_cmd, emit
from bench.fault_families import run_families, table
from tests.readonly import CannotMakeReadOnly, read_only_view

AREA = "faults"
REPO = Path(__file__).resolve().parent.parent
DOCUMENTED_EXITS = {0, 1, 2, 3, 4}


def _bodies(out: Path) -> dict[str, str] | None:
    """Every node file's summary text, or None when one does not parse."""
    sys.path.insert(0, str(REPO))
    from batchsum.tree import read_node

    found: dict[str, str] = {}
    for path in sorted(out.rglob("summaries/L*/*.md")):
        if "deleted" in path.parts or "history" in path.parts:
            continue
        try:
            _, body = read_node(path)
        except (OSError, ValueError):
            return None
        found[str(path.relative_to(out))] = body
    return found


class Tally:
    """Outcomes of the cases tried so far."""

    def __init__(self) -> None:
        self.tried = self.crashed = self.lost = self.unclear = 0
        self.notes: list[str] = []

    def judge(self, name: str, proc: subprocess.CompletedProcess[str], *, expect_failure: bool = False) -> None:
        self.tried += 1
        if "Traceback (most recent call last)" in proc.stderr or proc.returncode < 0:
            self.crashed += 1
            self.notes.append(f"{name}: crashed ({proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
        elif proc.returncode not in DOCUMENTED_EXITS or (expect_failure and proc.returncode != 0 and not proc.stderr):
            self.unclear += 1
            self.notes.append(f"{name}: exit {proc.returncode} without a clear reason")

    def check_tree(self, name: str, out: Path, reference: dict[str, str]) -> None:
        got = _bodies(out)
        if got is None or got != reference:
            self.lost += 1
            missing = sorted(set(reference) - set(got or {}))[:3]
            self.notes.append(f"{name}: tree differs from the reference after recovery (missing {missing})")


def _run(out: Path, corpus: Path, *extra: str, preexec: object = None) -> subprocess.CompletedProcess[str]:
    cmd = batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", *extra)
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=preexec,  # type: ignore[arg-type]
    )


def run(ctx: BenchContext) -> list[BenchResult]:
    """Repeat the fault cases and print tried / crashed / lost / unclear."""
    rng = random.Random(20261122)
    kills = 3 if ctx.quick else 10
    tally = Tally()
    with tempfile.TemporaryDirectory(dir=ctx.workdir) as tmp:
        base = Path(tmp)
        corpus = base / "corpus"
        shutil.copytree(REPO / "sample_corpus", corpus)
        ref_out = base / "reference"
        ref = _run(ref_out, corpus)
        reference = _bodies(ref_out) or {}
        if ref.returncode != 0 or not reference:
            return [emit(BenchResult(AREA, "reference run", "failed", "", "exit 0", False))]

        # kill -9 at a random moment of a first run, then the recovery run.
        for i in range(kills):
            out = base / f"kill{i}"
            proc = subprocess.Popen(
                batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(0.2, 3.0))
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            recovery = _run(out, corpus)
            tally.judge(f"kill -9 #{i}", recovery)
            tally.check_tree(f"kill -9 #{i}", out, reference)

        # A disk that fills up: a file-size limit far below what the run writes, then space again.
        out = base / "full"

        def small_files() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill by signal
            resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

        tally.judge("disk full", _run(out, corpus, preexec=small_files), expect_failure=True)
        recovery = _run(out, corpus)
        tally.judge("disk full: recovery", recovery)
        tally.check_tree("disk full", out, reference)

        # Damaged state: garbage lock, a lock folder, a torn manifest entry, a corrupt metrics database.
        for name, damage in (
            ("garbage lock", lambda o: (o / ".batchsum" / "lock").write_bytes(os.urandom(64))),
            ("lock is a folder", lambda o: ((o / ".batchsum" / "lock").unlink(), (o / ".batchsum" / "lock").mkdir())),
            ("torn manifest", lambda o: next((o / ".batchsum" / "manifest").glob("*.json")).write_text('{"relp')),
            ("deleted chunk", lambda o: next(o.rglob("summaries/L1/chunk_0.md")).unlink()),
        ):
            out = base / name.replace(" ", "-")
            shutil.copytree(ref_out, out)
            try:
                damage(out)
            except (OSError, StopIteration) as exc:
                tally.notes.append(f"{name}: could not inject ({exc})")
                continue
            tally.judge(name, _run(out, corpus))
            tally.check_tree(name, out, reference)
        out = base / "corrupt-metrics"
        shutil.copytree(ref_out, out)
        (out / ".batchsum" / "metrics.duckdb").write_bytes(b"garbage" * 100)
        damaged = _run(out, corpus)
        tally.judge("corrupt metrics database", damaged, expect_failure=True)
        if damaged.returncode != 2:
            tally.unclear += 1
            tally.notes.append(f"corrupt metrics database: exit {damaged.returncode}, expected 2")

        # Read-only output: search works from a copy of the index; a run says read-only (exit 2).
        indexed = base / "indexed"
        first = subprocess.run(batchsum_cmd("run", str(corpus), "--out", str(indexed)), capture_output=True, text=True)
        tally.judge("indexed run for read-only", first)
        try:
            with read_only_view(indexed, base / "read-only") as ro:
                found = subprocess.run(
                    batchsum_cmd("search", "harbor", "--out", str(ro)), capture_output=True, text=True
                )
                tally.judge("read-only: search", found)
                if found.returncode != 0 or "corrupt" in found.stderr:
                    tally.unclear += 1
                    tally.notes.append(f"read-only: search exit {found.returncode}: {found.stderr.strip()[-200:]}")
                ran = _run(ro, corpus)
                tally.judge("read-only: run", ran, expect_failure=True)
                if ran.returncode != 2 or "read-only" not in ran.stderr:
                    tally.unclear += 1
                    tally.notes.append(f"read-only: run exit {ran.returncode}: {ran.stderr.strip()[-200:]}")
        except CannotMakeReadOnly as exc:
            tally.notes.append(f"read-only: not tried ({exc})")

    families = run_families(ctx.workdir)
    for note in tally.notes:
        print(f"{AREA:<12} | {note}", flush=True)
    for fam in families:
        for note in fam.notes:
            print(f"{AREA:<12} | {fam.name}: {note}", flush=True)
    print(table(families), flush=True)
    bad = {k: sum(getattr(f, k) for f in families) for k in ("crashed", "hung", "lost")}
    return [
        emit(BenchResult(AREA, "hostile-input cases tried", sum(f.tried for f in families), "", "", None)),
        *(emit(BenchResult(AREA, f"hostile inputs {k}", n, "", "0", n == 0)) for k, n in bad.items()),
        emit(BenchResult(AREA, "cases tried", tally.tried, "", "", None)),
        emit(BenchResult(AREA, "crashed (traceback or signal)", tally.crashed, "", "0", tally.crashed == 0)),
        emit(BenchResult(AREA, "lost (tree differs after recovery)", tally.lost, "", "0", tally.lost == 0)),
        emit(BenchResult(AREA, "unclear (undocumented exit, no reason)", tally.unclear, "", "0", tally.unclear == 0)),
    ]
