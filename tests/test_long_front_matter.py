"""Front matter of any length is front matter: a year digest of more than ~40 entries lists more than 60
lines of finals, and a bound of 60 lines had left the list's tail as the digest's text, so a search for the
year showed a final's path ("../2024/2024-04-21.md/summaries/L3/final.md") as its snippet."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search
from batchsum.readers.note_syntax import front_matter

PLACES = ("harbour", "orchard", "library", "market", "quarry", "chapel", "bakery", "ferry", "meadow")


def test_a_year_digest_with_a_long_list_of_finals_is_found_by_its_summary_text(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    day = dt.date(2024, 1, 3)
    for n in range(70):  # more finals than the 60 lines the old bound allowed
        place = PLACES[n % len(PLACES)]
        (src / f"{day.isoformat()}.md").write_text(
            f"I walked to the {place} this morning and met neighbour number {n} there.\n", encoding="utf-8"
        )
        day += dt.timedelta(days=5)
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8")
    front = front_matter(year)
    assert front is not None and front.group(1).count("\n") > 60
    hits = search(RunConfig(paths=[], out=out), "what happened in 2024", k=1)
    assert hits and hits[0].source_path == "digests/2024.md"
    assert "final.md" not in hits[0].snippet and "summaries/" not in hits[0].snippet, hits[0].snippet
    assert any(place in hits[0].snippet for place in PLACES), hits[0].snippet
