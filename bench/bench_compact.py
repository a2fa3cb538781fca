"""Compaction of real agent sessions (shared/bench/agent_sessions_raw), offline, default settings.

Figures: token reduction (1 - tokens_after / tokens_before) median and worst over every session
(target: every session reduced), how many sessions keep every command and every file shown in
``context.domain_entities`` (target: all; "used" is read by plain regexes, not our extractors),
how many chain on a second compaction (depth 1, parent set; target: all), and the median time per
compaction. Quick mode uses the first eight sessions.
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import BenchContext, BenchResult, emit, skip

AREA = "compact"
CONTEXT_WINDOW = 8192
# An independent reading of "what the session used" (not our extractors): the first line of every
# fenced or <command> block of an assistant turn, and every [File: ...] / (Open file: ...) path.
_BLOCK = re.compile(r"```[^\n]*\n(.*?)```|<command>\n?(.*?)</command>", re.S)
_SHOWN = re.compile(r"\[File: (\S+) \(\d+ lines total\)\]|\(Open file: (\S+)\)")


def used_in(messages: list[dict[str, Any]]) -> set[str]:
    """Commands and file paths a session visibly used; not those of the worked example of another task
    that an agent framework puts in the first user turn (its "--- DEMONSTRATION ---")."""
    from batchsum.compact.extractors import without_standing_orders

    found: set[str] = set()
    for m in messages:
        content = str(m.get("content") or "")
        if m.get("role") != "assistant":
            content = without_standing_orders(content)
        if m.get("role") == "assistant":
            for a, b in _BLOCK.findall(content):
                block = (a or b).strip()
                if block:
                    found.add(block.split("\n", 1)[0].strip())
        for a, b in _SHOWN.findall(content):
            if (a or b) != "n/a":
                found.add(a or b)
    return found


def missing(used: set[str], entities: list[str]) -> set[str]:
    """What a record's entities leave out of ``used``: a path counts as kept when an entity names the same
    file more fully ("chall.py" by "/ctf/chall.py", the form a record lists it in)."""
    have = set(entities)
    return {u for u in used if u not in have and not any(e.endswith("/" + u.removeprefix("./")) for e in have)}


def run(ctx: BenchContext) -> list[BenchResult]:
    """Compact every agent session twice (the second chains onto the first) and report the figures."""
    from batchsum.agent_transcript import read_transcript
    from batchsum.compact import compact

    folder = ctx.bench_data("agent_sessions_raw", "docs")
    if folder is None:
        return skip(AREA, "shared/bench/agent_sessions_raw not found")
    files = sorted(folder.glob("*.md"))
    if ctx.quick:
        files = files[:8]
    compact([{"role": "user", "content": "warm up"}] * 8, context_window=CONTEXT_WINDOW)  # tokenizer load
    reductions: list[float] = []
    seconds: list[float] = []
    entities_ok = chained = 0
    worst_name = ""
    for path in files:
        messages = read_transcript(path).messages
        t0 = time.perf_counter()
        result = compact(messages, context_window=CONTEXT_WINDOW)
        seconds.append(time.perf_counter() - t0)
        reduction = 1.0 - result.tokens_after / result.tokens_before
        if not reductions or reduction < min(reductions):
            worst_name = path.stem
        reductions.append(reduction)
        if result.record is None:
            continue
        if not missing(used_in(messages), result.record.context.domain_entities):
            entities_ok += 1
        again = compact(result.messages, context_window=CONTEXT_WINDOW, history=[result.record])
        if again.record is not None and again.record.depth == 1 and again.record.parent_id == result.record.id:
            chained += 1
    n = len(files)
    worst = min(reductions)
    return [
        emit(BenchResult(AREA, f"sessions compacted ({CONTEXT_WINDOW}-token window)", str(n), "", "", None)),
        emit(BenchResult(AREA, "token reduction, median", statistics.median(reductions) * 100, "%", "> 0", True)),
        emit(BenchResult(AREA, "token reduction, worst", worst * 100, "%", "> 0 (every session)", worst > 0)),
        emit(BenchResult(AREA, f"  worst session: {worst_name[:38]}", "-", "", "", None)),
        emit(
            BenchResult(
                AREA, "sessions with all commands+files in entities", f"{entities_ok}/{n}", "", "all", entities_ok == n
            )
        ),
        emit(BenchResult(AREA, "sessions chaining (depth 1, parent set)", f"{chained}/{n}", "", "all", chained == n)),
        emit(BenchResult(AREA, "time per compaction, median", statistics.median(seconds) * 1000, "ms", "", None)),
    ]


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--workdir", type=Path, default=Path(".bench-out/compact"))
    args = ap.parse_args()
    run(BenchContext(shared=args.shared if args.shared.exists() else None, quick=args.quick, workdir=args.workdir))
