"""A query that names a month or a year retrieves that period's dated entries by their dates, whatever their
words: "what happened in March 2023?" had listed April's, February's and August's digests and not the entry of
2 March, whose text names no month."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

ENTRIES = {
    # March's entries name neither the month nor the year: only their dates say when they were written.
    "2023-03-02.md": "I was alone at the house, opened a beer and the cap flew off and it spilled everywhere.",
    "2023-03-25.md": "We drove to the coast with the kids and watched the boats come back in the evening.",
    # Other months' entries write "March" and "2023" in their text.
    "2023-02-07.md": "Planning for March 2023: the roof repair, the dentist and the school trip.",
    "2023-04-30.md": "Looking back on March 2023, the hardest part was the long wait for the test results.",
    "2023-08-16.md": "The garden gave us more tomatoes than we could eat in August 2023; March 2023 was cold.",
}


def test_the_named_months_entries_are_retrieved_by_their_dates(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in ENTRIES.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for level in (None, "final"):
        hits = search(cfg, "what happened in March 2023?", k=10, level=level)
        order = [h.source_path for h in hits]
        own = [n for n, h in enumerate(hits) if h.level != 4 and (h.doc_date or "").startswith("2023-03")]
        assert {order[n] for n in own} == {"2023-03-02.md", "2023-03-25.md"}, order
        # Every page of another period (an entry, a month's digest) comes after them; the year holds March.
        others = [n for n, h in enumerate(hits) if h.doc_date not in (None, "2023") and h.doc_date[:7] != "2023-03"]
        assert others and all(n > max(own) for n in others), order
