"""Hostile inputs by family, for ``make faults``: each case runs the real CLI (or ``serve`` over HTTP) and
is judged **crashed** (a traceback, a death by signal, or a memory limit hit), **hung** (no answer within
its time limit) or **lost** (a file outside the output clobbered, a secret sent upstream, text or facts
that never reach the output). Targets: all zero but "tried".
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import batchsum_cmd

REPO = Path(__file__).resolve().parent.parent
HANG_S = 60.0  # a case that takes longer than this is counted as hung (each takes a few seconds)
MEMORY_CAP = 3 << 30  # address-space cap per case, so an unbounded read is a crash, not a swapped machine
SECRETS = {
    "postgres://admin:Sup3rS3cretPw@db.internal:5432/app": "Sup3rS3cretPw",
    "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "gitlab glpat-AbCdEfGhIjKlMnOpQrSt": "glpat-AbCdEfGhIjKlMnOpQrSt",
    "npm npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "hf hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH": "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH",
    "AccountKey=" + "Zm9vYmFy" * 11: "Zm9vYmFy" * 11,
}


@dataclass
class Family:
    """Outcomes of one family's cases."""

    name: str
    tried: int = 0
    crashed: int = 0
    hung: int = 0
    lost: int = 0
    notes: list[str] = field(default_factory=list)

    def run(
        self, case: str, cmd: list[str], *, timeout: float = HANG_S, **kw: object
    ) -> subprocess.CompletedProcess[str]:
        """Run ``cmd``; count it tried, and crashed or hung."""
        self.tried += 1

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

        env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO))}
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=cap, env=env, **kw)  # type: ignore[call-overload]
        except subprocess.TimeoutExpired:
            self.hung += 1
            self.notes.append(f"{case}: no answer within {timeout:g} s")
            return subprocess.CompletedProcess(cmd, -1, "", "")
        if "Traceback (most recent call last)" in proc.stderr or proc.returncode < 0 or "MemoryError" in proc.stderr:
            self.crashed += 1
            last = (proc.stderr.strip().splitlines() or [""])[-1][:160]
            self.notes.append(f"{case}: crashed ({proc.returncode}): {last}")
        return proc

    def lose(self, case: str, why: str) -> None:
        self.lost += 1
        self.notes.append(f"{case}: lost: {why}")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


PARAGRAPH = "The harbour committee met on Tuesday and agreed to repaint the north pier before the storms. " * 6


def lock_and_state(base: Path) -> Family:
    fam = Family("state files (lock, manifest)")
    corpus = _write(base / "c" / "a.md", "# A\n\n" + PARAGRAPH).parent
    victim = _write(base / "victim.txt", "precious\n")
    out = base / "out-link"
    (out / ".batchsum").mkdir(parents=True)
    (out / ".batchsum" / "lock").symlink_to(victim)
    fam.run("lock is a symlink", batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics"))
    if victim.read_text() != "precious\n":
        fam.lose("lock is a symlink", f"the link's target {victim} was overwritten")
    out = base / "out-fifo"
    (out / ".batchsum").mkdir(parents=True)
    os.mkfifo(out / ".batchsum" / "lock")
    fam.run("lock is a FIFO", batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics"))
    out = base / "out-snapshot"
    fam.run("first run", batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics"))
    (out / ".batchsum" / "manifest.json").unlink(missing_ok=True)
    os.mkfifo(out / ".batchsum" / "manifest.json")
    proc = fam.run(
        "manifest is a FIFO", batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics")
    )
    if proc.returncode == 0 and not list(out.rglob("final.md")):
        fam.lose("manifest is a FIFO", "no final after the run")
    return fam


def facts(base: Path) -> Family:
    from tests.fakeserver import FakeLLMServer

    fam = Family("facts answers")
    journal = _write(base / "src" / "journal" / "life.md", "## 2026-10-01\nI live in Porto with my partner Ana.\n")
    src = journal.parent.parent  # relpath journal/life.md: a journal, so its entries yield facts
    out = base / "out"
    with FakeLLMServer().start() as server:
        llm = ["--base-url", server.base_url, "--model", "fake", "--rpm", "0", "--max-attempts", "1", "--no-index"]
        server.configure(rules=[{"content": '{"facts": ' + "[" * 100_000 + "]" * 100_000 + "}"}])
        fam.run("answer nested 100,000 levels", batchsum_cmd("facts", str(src), "--out", str(out), *llm))
        fam.run("the same, second run", batchsum_cmd("facts", str(src), "--out", str(out), *llm))
        server.configure(rules=[{"content": json.dumps({"facts": ["The user lives in Porto."]})}])
        fam.run("server answers well again", batchsum_cmd("facts", str(src), "--out", str(out), *llm))
        found = [p for p in out.rglob("facts/*.md") if "Porto" in p.read_text(encoding="utf-8")]
        if not found:
            fam.lose("server answers well again", "the entry's facts were never extracted")
    return fam


def tree_order(base: Path) -> Family:
    fam = Family("tree names (path order)")
    work = _write(base / "work" / "notes" / "todo.md", "# Todo\n\nThe budget review moved to Thursday. " * 8).parent
    home = _write(base / "home" / "notes" / "todo.md", "# Todo\n\nThe garden fence needs paint. " * 8).parent
    trees = []
    for i, order in enumerate(((work, home), (home, work))):
        out = base / f"out{i}"
        fam.run(
            f"order {i + 1}", batchsum_cmd("run", *map(str, order), "--out", str(out), "--no-index", "--no-metrics")
        )
        trees.append({str(p.relative_to(out)): "budget" in p.read_text() for p in sorted(out.rglob("final.md"))})
    if trees[0] != trees[1]:
        fam.lose("order 2", f"another tree: {sorted(trees[0].items())} vs {sorted(trees[1].items())}")
    return fam


def compact(base: Path) -> Family:
    fam = Family("compact inputs")
    fifo = base / "session.fifo"
    os.mkfifo(fifo)
    deep = _write(base / "deep.json", "[" * 100_000 + "]" * 100_000)
    deep_args = _write(
        base / "args.json",
        json.dumps([{"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function",
                    "function": {"name": "read_file", "arguments": "[" * 50_000 + "]" * 50_000}}]},
                    {"role": "tool", "tool_call_id": "1", "content": "x"}]),
    )  # fmt: skip
    for case, path in (("/dev/zero", "/dev/zero"), ("a FIFO", str(fifo)), ("JSON nested 100,000 levels", str(deep)),
                       ("tool arguments nested 50,000 levels", str(deep_args))):  # fmt: skip
        fam.run(case, batchsum_cmd("compact", path, "--context-window", "1000"))
    return fam


def redaction(base: Path) -> Family:
    fam = Family("--redact rule set")
    text = "# Ops notes\n\n" + "\n\n".join(f"For the deploy we used {s} yesterday." for s in SECRETS) + "\n"
    corpus = _write(base / "c" / "ops.md", text).parent
    out = base / "out"
    # Thresholds above the note's size: its final is the whole (redacted) text, so every secret is judged.
    cmd = batchsum_cmd("run", str(corpus), "--out", str(out), "--redact", "--no-metrics", "--no-index",
                       "--thresholds", "100000,200000,300000,400000")  # fmt: skip
    fam.run("run --redact", cmd)
    written = "\n".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file() and p.suffix == ".md")
    for secret in SECRETS.values():
        if secret in written:
            fam.lose(f"secret {secret[:12]}...", "in the summaries")
    return fam


def subtitles(base: Path) -> Family:
    fam = Family("subtitles")
    cues = "\n".join(
        f"00:00:{i:02d}.000 --> 00:00:{i:02d}.900\nItem {i} of the agenda was approved." for i in range(30)
    )
    corpus = _write(base / "c" / "call.vtt", "WEBVTT\n" + cues + "\n").parent
    out = base / "out"
    fam.run(
        "cues without blank lines", batchsum_cmd("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics")
    )
    finals = list(out.rglob("final.md"))
    if not finals or "agenda" not in finals[0].read_text():
        fam.lose("cues without blank lines", "no summary of the cues' text")
    return fam


def long_runs(base: Path) -> Family:
    fam = Family("long runs of blanks or dots")
    cases = {
        "blank.md": "\n" * 200_000,
        "blank_then_text.md": " \n" * 100_000 + "Then one line of text at the very end of the file.\n",
        "leader.md": "Contents " + ". " * 60_000 + "5\n\nThe committee met and agreed on the plan.\n" * 3,
        "spaces.md": "The committee met on Tuesday." + " " * 100_000 + ",\nThe plan was agreed.\n",
    }
    for name, text in cases.items():
        corpus = _write(base / name.removesuffix(".md") / name, text).parent
        fam.run(name, batchsum_cmd("run", str(corpus), "--out", str(base / "out" / name), "--no-index", "--no-metrics"))
    return fam


@contextmanager
def _serving(fam: Family, out: Path, upstream: str, *extra: str) -> Iterator[str | None]:
    cmd = batchsum_cmd("serve", "--out", str(out), "--port", "0", "--base-url", upstream, "--model", "fake",
                       "--rpm", "0", "--max-attempts", "1", "--no-facts", "--no-summaries", *extra)  # fmt: skip
    fam.tried += 1
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        yield line.split("listening on ")[1].split()[0] if "listening on " in line else None
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=HANG_S)
            except subprocess.TimeoutExpired:
                fam.hung += 1
                proc.kill()
                proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
        if "Traceback (most recent call last)" in err:
            fam.crashed += 1
            fam.notes.append(f"serve: traceback: {err.strip().splitlines()[-1][:160]}")


def serve(base: Path) -> Family:
    from tests.fakeserver import FakeLLMServer

    fam = Family("serve")
    note = (
        "# Deploy\n\nThe staging deploy failed because the gateway rejected the key sk_live_4eC39HqLyjWDarjtT1zdp7dc.\n"
    )
    corpus = _write(base / "src" / "notes" / "deploy.md", note).parent.parent
    out = base / "out"
    cmd = batchsum_cmd("run", str(corpus), "--out", str(out), "--no-redact", "-q")
    fam.run("summarize without redaction", cmd, timeout=5 * HANG_S)  # the first index load is slow on a busy machine
    key = "serve-secret-key-123"
    with FakeLLMServer().start() as upstream:
        extra: tuple[str, ...] = ("--serve-key", key, "--redact")
        with _serving(fam, out, upstream.base_url, *extra) as url:
            if url is not None:
                _ask(fam, out, upstream, key, url)
        if url is None:  # no --redact option: that is a leak; the other cases are tried without it
            fam.lose("serve --redact", "serve has no --redact option")
            with _serving(fam, out, upstream.base_url, "--serve-key", key) as url:
                if url is None:
                    fam.crashed += 1
                    fam.notes.append("serve did not start")
                else:
                    _ask(fam, out, upstream, key, url)
    return fam


def _ask(fam: Family, out: Path, upstream: Any, key: str, url: str) -> None:
    import httpx

    lock = (out / ".batchsum" / "lock").read_text(errors="replace")
    if key in lock:
        fam.lose("--serve-key", "written in clear text into the lock file")
    headers = {"Authorization": f"Bearer {key}"}
    ask = {"model": "fake", "messages": [{"role": "user", "content": "Why did the staging deploy fail?"}]}
    with httpx.Client(timeout=HANG_S) as client:
        fam.tried += 1
        client.post(f"{url}/chat/completions", json=ask, headers=headers)
        sent = "\n".join(str(m.get("content")) for e in upstream.log for m in e.messages)
        if "sk_live_4eC39HqLyjWDarjtT1zdp7dc" in sent:
            fam.lose("serve --redact", "a secret of a summary was sent upstream")
        fam.tried += 1
        deep = '{"model": "fake", "messages": ' + "[" * 100_000 + "]" * 100_000 + "}"
        r = client.post(
            f"{url}/chat/completions", content=deep, headers={**headers, "Content-Type": "application/json"}
        )
        if r.status_code >= 500:
            fam.crashed += 1
            fam.notes.append(f"deeply nested body: HTTP {r.status_code}")
        fam.tried += 1
        upstream.configure(rules=[{"content": "plain", "bad_body": True}])
        r = client.post(f"{url}/chat/completions", json={**ask, "stream": True}, headers=headers)
        if r.status_code == 200 and "error" not in r.text:
            fam.lose("non-SSE upstream on a stream", "passed on as HTTP 200 without an error")


FAMILIES: tuple[Callable[[Path], Family], ...] = (
    lock_and_state,
    facts,
    tree_order,
    compact,
    redaction,
    subtitles,
    long_runs,
    serve,
)


def run_families(workdir: Path, only: set[str] | None = None) -> list[Family]:
    """Every family (or those named in ``only``), each in its own temporary folder."""
    found = []
    sys.path.insert(0, str(REPO))
    for family in FAMILIES:
        if only and family.__name__ not in only:
            continue
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(dir=workdir) as tmp:
            try:
                fam = family(Path(tmp))
            except Exception as exc:  # a bench bug must not hide the other families
                fam = Family(family.__name__, tried=1, crashed=1, notes=[f"bench error: {type(exc).__name__}: {exc}"])
        fam.notes.append(f"({time.perf_counter() - t0:.0f} s)")
        found.append(fam)
    return found


def table(families: list[Family]) -> str:
    """The per-family table."""
    rows = [f"{'family':<30} {'tried':>5} {'crashed':>7} {'hung':>5} {'lost':>5}"]
    for f in families:
        rows.append(f"{f.name:<30} {f.tried:>5} {f.crashed:>7} {f.hung:>5} {f.lost:>5}")
    total = [sum(getattr(f, k) for f in families) for k in ("tried", "crashed", "hung", "lost")]
    rows.append(f"{'total':<30} {total[0]:>5} {total[1]:>7} {total[2]:>5} {total[3]:>5}")
    return "\n".join(rows)


def main() -> None:
    """``python -m bench.fault_families``: the families alone, for a before/after table."""
    only = set(sys.argv[1:])  # family function names, e.g. "serve"; none: all
    with tempfile.TemporaryDirectory() as tmp:
        families = run_families(Path(tmp), only)
    for f in families:
        for note in f.notes:
            print(f"{f.name}: {note}")
    print(table(families))


if __name__ == "__main__":
    main()
