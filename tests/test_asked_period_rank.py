"""A query that names a period asks for it: the digest of another period (another year's April, another year)
ranks below every entry of the period asked for ("what happened in April 2023" had ranked 2025-04 and the
2024 year digest second and third, their day labels holding "April")."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

ENTRIES = {
    # The asked month's entries name it: candidates by their words, not only by their date ("happened" asks, and
    # matches nothing).
    "2023-04-08.md": "Something sad this April: we went to the funeral of my old teacher. Everyone sang his hymn.",
    "2023-04-20.md": "A good April day: we signed the lease for the flat on Elm Street. We move in May.",
    "2024-04-05.md": "The company changed its logo again and nobody at work liked the new colours at all.",
    "2024-04-15.md": "In life a person has to learn to do what is difficult without waiting for help from anyone.",
    "2024-09-10.md": "The garden gave us more tomatoes than we could eat, so we gave some to the neighbours.",
    "2025-04-02.md": "My exhaustion had left me with a heart flutter, and the doctor told me to rest for a week.",
    "2025-04-16.md": "April rain all day. I read by the window and finished the long novel about the sea.",
}


def test_another_periods_digest_ranks_below_the_asked_periods_entries(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in ENTRIES.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    hits = search(RunConfig(paths=[], out=out), "what happened in April 2023", k=10)
    order = [h.source_path for h in hits]
    assert order[0] == "digests/2023/2023-04.md", order
    own = [n for n, h in enumerate(hits) if h.level != 4 and h.doc_date.startswith("2023-04")]
    assert own, order
    others = [
        n
        for n, h in enumerate(hits)
        if h.level == 4 and not any(p in h.source_path for p in ("2023-04.md", "digests/2023.md"))
    ]
    assert all(n > max(own) for n in others), order
