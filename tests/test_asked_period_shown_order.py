"""The shown order keeps what the asked-period rule ranked: for "what happened in March 2024" an entry of March 2023
that holds "March" and "2024" ("March 2024 plans") ranks below 10 March 2024's entry, and listing hits shown with
one score by their match level had put it back above (a code reviewer's report)."""

from __future__ import annotations

from datetime import date

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

DAYS = {
    "2023-03-05.md": "# 2023-03-05\n\nMarch 2024 plans: visit Lisbon again.\n",
    "2024-03-10.md": "# 2024-03-10\n\nWent to Lisbon with Anna. The tram was crowded.\n",
    "2024-04-02.md": "# 2024-04-02\n\nBaked sourdough bread in April. The crust was great.\n",
    "2024-05-01.md": "# 2024-05-01\n\nThe accident happened near the bridge. Nothing else.\n",
}
TODAY = date(2026, 11, 30)  # recency fades long before: the order is the rank's


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    base = tmp_path_factory.mktemp("periods")
    (base / "src").mkdir()
    for name, text in DAYS.items():
        (base / "src" / name).write_text(text, encoding="utf-8")
    batchsum.run([base / "src"], out=base / "out", content_type="journal", metrics=False)
    return RunConfig(paths=[], out=base / "out")


def test_an_entry_of_another_period_stays_below_the_asked_periods_entries(cfg: RunConfig) -> None:
    hits = search(cfg, "what happened in March 2024", k=6, today=TODAY)
    entries = [h.source_path for h in hits if h.level != 4]
    assert "2024-03-10.md" in entries and "2023-03-05.md" in entries, entries
    assert entries.index("2024-03-10.md") < entries.index("2023-03-05.md"), [(h.source_path, h.score) for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
