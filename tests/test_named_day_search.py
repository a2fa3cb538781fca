"""A query that names a day asks for that day's entries: another day's entry does not match by the words of
the date ("March" and "2022" had made 7 March a full match, 1.000, of "8 March 2022"), and the day's entry
holds the day's words, so "what happened on 8 March 2022?" finds it as a good match, not at 0.28."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

POTTERY = "# Tuesday, March 08, 2022\n\nPottery class again. My bowl came out of the kiln without cracking.\n"
OFFICE = "# Monday, March 07, 2022\n\nLong day at the office. The quarterly review ran two hours over.\n"


def test_another_days_entry_does_not_match_by_the_dates_words(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2022-03-08.md").write_text(POTTERY, encoding="utf-8")
    (src / "2022-03-07.md").write_text(OFFICE, encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    cfg = RunConfig(paths=[], out=out)
    hits = search(cfg, "8 March 2022", k=3)
    assert hits[0].source_path == "2022-03-08.md" and hits[0].score == 1.0
    assert all(h.score < 0.5 for h in hits[1:]), [(h.source_path, h.score) for h in hits]
    asked = search(cfg, "what happened on 8 March 2022?", k=3)
    assert asked[0].source_path == "2022-03-08.md" and asked[0].score >= 0.5, asked[0].score
    assert all(h.score < asked[0].score for h in asked[1:])
