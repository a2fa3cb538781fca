"""A query that names a day lists the documents dated that day before the texts that merely write it: a note of
12 March holding a task due that day ("⏳ 2024-03-14") had led the two notes of 14 March, all shown at 1.000."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

TUESDAY = (
    "---\ndate: 2024-03-12\n---\n# Tuesday\n\nWe agreed to replace the tide gauge at pier four.\n\n"
    "- [ ] Order new pressure sensor 📅 2024-03-15\n- [ ] Book the boat for Thursday ⏳ 2024-03-14\n\n"
    "Evening: read two chapters and went to bed early.\n"
)
THURSDAY = "---\ndate: 2024-03-14\n---\nRough sea today. I stayed ashore and cleaned the workshop.\n"
JOURNAL = "- Took the boat out to buoy seven to swap the sensor.\n- The swell was two metres.\n"


def test_entries_dated_on_the_day_lead_the_texts_that_write_it(tmp_path: Path) -> None:
    src, out = tmp_path / "vault", tmp_path / "out"
    (src / "Daily").mkdir(parents=True)
    (src / "journals").mkdir()
    (src / "Daily" / "2024-03-12.md").write_text(TUESDAY, encoding="utf-8")
    (src / "Daily" / "2024-03-14.md").write_text(THURSDAY, encoding="utf-8")
    (src / "journals" / "2024_03_14.md").write_text(JOURNAL, encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for query in ("what happened on 14 March 2024", "2024-03-14"):
        hits = search(cfg, query, k=5)
        order = [h.source_path for h in hits]
        assert {h.doc_date for h in hits[:2]} == {"2024-03-14"}, (query, order)
        # The note that only writes the day is still one of its texts, after the day's own.
        assert order[2:] == ["Daily/2024-03-12.md"], (query, order)
