"""A named day's hit in a file of many days shows what that day's part of it writes: "12 March 2024" and "20 March
2024" had both shown the month file's first entry, "Bought a new bike." of 1 March (a journal keeper's report)."""

from __future__ import annotations

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search
from batchsum.index.snippets import day_passage

MONTH = """# March 2024

## 1 March 2024

Bought a new bike.

## 12 March 2024

Dentist at nine, then the train to Leeds.

## 20 March 2024

Finished the quarterly report.
"""

TRAVEL = """# Travel journal

June 2, 2024.--Left Lisbon on the early train and reached Porto by noon; the river was brown after the rain.

August 14, 2024.--Climbed to the old lighthouse with Marta and counted forty gulls on the rocks.

October 2, 2024.--Took the ferry to Vigo; the harbour smelled of diesel and sardines.
"""


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    base = tmp_path_factory.mktemp("month")
    (base / "src").mkdir()
    (base / "src" / "2024-03.md").write_text(MONTH, encoding="utf-8")
    (base / "src" / "travel.md").write_text(TRAVEL, encoding="utf-8")
    batchsum.run([base / "src"], out=base / "out", content_type="journal", metrics=False)
    return RunConfig(paths=[], out=base / "out")


@pytest.mark.parametrize(
    ("query", "shown", "not_shown"),
    [("12 March 2024", "Dentist", "bike"), ("20 March 2024", "quarterly", "bike"),
     ("what happened on 12 March 2024?", "Dentist", "bike")],
)  # fmt: skip
def test_a_named_days_hit_shows_that_days_text(cfg: RunConfig, query: str, shown: str, not_shown: str) -> None:
    hit = search(cfg, query, k=1)[0]
    assert hit.source_path == "2024-03.md" and shown in hit.snippet and not_shown not in hit.snippet, hit.snippet


def test_a_day_that_opens_its_paragraph_is_that_days_text() -> None:
    assert "lighthouse" in day_passage(TRAVEL, ["--08-14"]) and "Porto" not in day_passage(TRAVEL, ["--08-14"])
    digest = "**1 March.** Bought a new bike. **12 March.** Dentist at nine. **20 March.** Finished the report."
    assert day_passage(digest, ["--03-12"]).split() == ["**12", "March.**", "Dentist", "at", "nine."]
    assert day_passage(MONTH, ["--03-13"]) == MONTH  # no text of the day: the text as it is


@pytest.fixture(scope="module")
def daily(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    base = tmp_path_factory.mktemp("daily")
    (base / "src").mkdir()
    for name, text in (("2024-03-01.md", "Bought a new bike."), ("2024-03-12.md", "Dentist at nine, then Leeds.")):
        (base / "src" / name).write_text(text + "\n", encoding="utf-8")
    batchsum.run([base / "src"], out=base / "out", content_type="journal", metrics=False)
    return RunConfig(paths=[], out=base / "out")


def test_a_day_at_the_period_level_is_the_digests_paragraph_of_it(daily: RunConfig) -> None:
    hits = search(daily, "12 March 2024", k=3, level="period")
    assert hits and all(h.level == 4 for h in hits), hits
    assert "Dentist" in hits[0].snippet and "bike" not in hits[0].snippet, hits[0].snippet
    assert search(daily, "13 March 2024", k=3, level="period") == []  # no text of the day: no match
