"""A day a query names finds the finals dated on it from search's copy of the index: the same finals as
turning every dated final's date into a day, without reading each one's row in Python per query."""

from __future__ import annotations

import random
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from batchsum.index import vectors
from batchsum.index.lexical import LexFilter
from batchsum.index.vectors import NodeRow, VectorStore

TYPES = ["journal", "conversation", "document"]


def _store(path: Path, rng: random.Random, n: int) -> tuple[VectorStore, list[dict[str, Any]]]:
    """A store of ``n`` nodes: finals and chunks, dated and not, from 1700 to 2100, at midnight and not."""
    store = VectorStore(path)
    rows, items = [], []
    for i in range(n):
        day = date(1700, 1, 1) + timedelta(days=rng.randrange(0, 146_000))
        ts = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
        if rng.random() < 0.2:
            ts += rng.randrange(0, 86_400)  # a time of day: still that day
        final = rng.random() < 0.7
        md = {"level": 3 if final else 1, "is_final": final, "content_type": rng.choice(TYPES),
              "doc_ts": ts if rng.random() < 0.9 else None, "dated": rng.random() < 0.85,
              "source_path": f"j/{i}.md"}  # fmt: skip
        rows.append(md)
        items.append((f"j/{i}.md:n{i}", NodeRow(f"h{i}", ts, np.ones(8, np.float32), md)))
    store.put_many(items)
    return store, rows


def _expected(rows: list[dict[str, Any]], days: list[str], filt: LexFilter) -> list[str]:
    """The rule: a dated final whose UTC date is one of ``days``, or whose month and day is a ``--MM-DD``."""
    out = []
    for i, md in enumerate(rows):
        ts = md["doc_ts"]
        if not (md["is_final"] and md["dated"] and ts is not None):
            continue
        if not filt.admits(md["level"], True, md["content_type"], ts, md["source_path"]):
            continue
        day = datetime.fromtimestamp(ts, UTC).date().isoformat()
        if day in days or f"--{day[5:]}" in days:
            out.append(f"j/{i}.md:n{i}")
    return sorted(out)


def test_the_finals_of_a_named_day_are_those_dated_on_it(tmp_path: Path) -> None:
    rng = random.Random(29)
    store, rows = _store(tmp_path / "v.sqlite3", rng, 3000)
    dated = [datetime.fromtimestamp(md["doc_ts"], UTC).date() for md in rows if md["doc_ts"] is not None]
    filters = [LexFilter(), LexFilter(level="final"), LexFilter(level="1"), LexFilter(content_type="journal"),
               LexFilter(since_ts=0), LexFilter(sources={f"j/{i}.md" for i in range(0, 3000, 3)})]  # fmt: skip
    for case in range(300):
        days = []
        for _ in range(rng.randint(1, 3)):
            roll, some = rng.random(), rng.choice(dated)
            if roll < 0.4:
                days.append(some.isoformat())
            elif roll < 0.7:
                days.append(f"--{some.isoformat()[5:]}")
            elif roll < 0.8:
                days.append(rng.choice(["--02-29", "1904-02-29", "2025-02-30", "--02-31", "0000-01-01"]))
            else:
                days.append((some + timedelta(days=rng.choice([-1, 1]))).isoformat())
        filt = rng.choice(filters)
        assert sorted(store.finals_on(days, filt)) == _expected(rows, days, filt), (case, days, filt)
    store.close()


def test_a_named_day_is_found_without_reading_every_dated_final(tmp_path: Path) -> None:
    store, rows = _store(tmp_path / "v.sqlite3", random.Random(3), 2000)
    lines = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        lines += event == "line"
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == vectors.__file__ else None

    day = next(datetime.fromtimestamp(md["doc_ts"], UTC).date().isoformat() for md in rows if md["doc_ts"])
    tracer = sys.gettrace()  # a coverage tool's or a debugger's, given back after
    sys.settrace(calls)
    try:
        found = store.finals_on([day, "--05-15"], LexFilter())
    finally:
        sys.settrace(tracer)
    store.close()
    assert sorted(found) == _expected(rows, [day, "--05-15"], LexFilter())
    # Python lines for 2,000 nodes (1,065 dated finals): a few per day asked and per final found,
    # none per final looked at (it had been 4,277 lines: four per dated final).
    assert lines < 40 + 4 * len(found), (lines, len(found))
