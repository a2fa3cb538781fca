"""A month's or a year's digest is dated by its period: ``search --since`` had left every one out (they are
indexed without a real date), and a query naming a month ranked another month's entry first ("2024-03": the
entry headed "Tuesday, 2 April 2024", by its "2024") or texts holding "happened" ("what happened in March
2024?") above March's entries."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

NOTES = {
    "2024-03-12.md": "# Tuesday, 12 March 2024\n\nThe mice got into the pantry again. I bought two traps at the"
    " hardware store.\nThe budget for the new kitchen shelves is three hundred euros.\n",
    "2024-03-20.md": "# Wednesday, 20 March 2024\n\nLong run along the river, 14 km. My knee held up.\nWe talked"
    " about the lighthouse project and the budget for the offsite in Lisbon.\n",
    "2024-04-02.md": "# Tuesday, 2 April 2024\n\nA mouse ran across the kitchen floor. The trap did not work.\n"
    "The quarterly budget review moved to Thursday.\n",
}
# Undated texts (their only date is when they were copied) that hold "happened" and nothing of March 2024.
UNDATED = {
    "promotion.txt": "The event that recently happened to me was that I received a promotion at work, early.\n",
    "garden.txt": "Something tragic happened six weeks before the concert: she fell ill in her garden.\n",
}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    (src / "notes").mkdir()
    (src / "diaries").mkdir()
    for name, text in NOTES.items():
        (src / "notes" / name).write_text(text, encoding="utf-8")
    for name, text in UNDATED.items():
        (src / "diaries" / name).write_text(text, encoding="utf-8")
        os.utime(src / "diaries" / name, ns=(COPIED, COPIED))
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return out


def _hits(out: Path, query: str, *options: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "--json", *options])
    assert res.exit_code == 0, res.output
    return list(json.loads(res.output)) if res.output.strip().startswith("[") else []


def _sources(out: Path, query: str, *options: str) -> list[str]:
    return [h["source_path"] for h in _hits(out, query, *options)]


def test_since_admits_the_digests_of_periods_holding_a_later_day(out: Path) -> None:
    every = set(_sources(out, "budget", "--level", "period", "-k", "10"))
    assert {"digests/2024/2024-03.md", "digests/2024/2024-04.md", "digests/2024.md"} <= every, every
    assert set(_sources(out, "budget", "--level", "period", "-k", "10", "--since", "2024")) == every
    # March holds the 15th and the days after it; from April on, March's digest is over, its year is not.
    assert "digests/2024/2024-03.md" in _sources(out, "budget", "--level", "period", "--since", "2024-03-15")
    april = set(_sources(out, "budget", "--level", "period", "-k", "10", "--since", "2024-04-01"))
    assert "digests/2024/2024-03.md" not in april and {"digests/2024/2024-04.md", "digests/2024.md"} <= april, april
    assert _sources(out, "budget", "--level", "period", "--since", "2025-01-01") == []


def test_a_folder_digest_has_no_date_for_since(out: Path) -> None:
    assert any(s.startswith("digests/folders/") for s in _sources(out, "happened promotion", "--level", "period"))
    assert not any(
        s.startswith("digests/folders/")
        for s in _sources(out, "happened promotion", "--level", "period", "--since", "2020")
    )


def test_a_month_query_ranks_that_months_entries_above_another_months(out: Path) -> None:
    order = _sources(out, "2024-03", "--level", "final")
    march = [order.index(f"notes/{n}") for n in ("2024-03-12.md", "2024-03-20.md")]
    assert "notes/2024-04-02.md" not in order or order.index("notes/2024-04-02.md") > max(march), order


def test_happened_is_no_word_that_matches(out: Path) -> None:
    hits = _hits(out, "what happened in March 2024?", "-k", "8")
    order = [h["source_path"] for h in hits]
    assert not any(t.lower().startswith("happen") for h in hits for t in h["terms"]), hits
    march = [order.index(f"notes/{n}") for n in ("2024-03-12.md", "2024-03-20.md")]
    later = [n for n, s in enumerate(order) if s.startswith("diaries/") or s == "notes/2024-04-02.md"]
    assert all(n > max(march) for n in later), order
