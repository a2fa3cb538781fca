"""A query naming a day finds the finals whose Facets print a task due that day ("(due: Friday 2026-11-20)"),
after the day's own entries, and shows each text by a sentence that writes the day ("by November 20"), not by
its summary's opening (docs/search.md: "The day's entries are also those whose text writes the day")."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.analysis import day_term
from batchsum.index.search import search
from batchsum.periods import days_named

STANDUP = (
    "Maya Chen: Morning. The release branch is frozen.\n\n"
    "Raj Patel: The last two fixes went in overnight.\n\n"
    "Maya Chen: Good. Then we tag it after lunch.\n"
)
SYNC = (
    "Priya Raman: Hi everyone, let's go through the on-call rotation.\n\n"
    "Jonas Weber: We still have a gap in the second week of December.\n\n"
    "Priya Raman: Jonas, please find a volunteer by Friday.\n\n"
    "Jonas Weber: Will do.\n"
)
BUDGET = (
    "Priya Raman: Let's start with the hardware budget for next year.\n\n"
    "Jonas Weber: We spent forty-two thousand euros on servers this year.\n\n"
    "Priya Raman: Ana, could you get a quote from the reseller by November 20?\n\n"
    "Ana Silva: Sure, I'll ask Northwind Hardware.\n"
)


def _writes(text: str, day: str) -> bool:
    return day_term(day) in {day_term(d) for d in days_named(text)}


def test_a_day_query_finds_the_tasks_due_that_day_shown_by_the_day(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2026-11-20-standup.txt").write_text(STANDUP, encoding="utf-8")
    (src / "2026-11-18-sync.txt").write_text(SYNC, encoding="utf-8")
    (src / "2026-11-05-budget.txt").write_text(BUDGET, encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    for query in ("2026-11-20", "November 20"):
        hits = search(RunConfig(paths=[], out=out), query, k=6)
        order = [h.source_path for h in hits]
        # The day's own entry first; the task due that day (its Facets resolve "by Friday") is found after it.
        assert order[0] == "2026-11-20-standup.txt", (query, order)
        assert "2026-11-18-sync.txt" in order and "2026-11-05-budget.txt" in order, (query, order)
        for hit in hits[1:]:
            assert _writes(hit.snippet, "2026-11-20"), (query, hit.source_path, hit.snippet)
