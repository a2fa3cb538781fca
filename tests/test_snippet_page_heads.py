"""A search snippet from a paper converted from PDF is a sentence of its text, never the running head printed on
its pages nor a heading: a source passage reads as the summarizer reads it (real run, real index)."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.search import search

HEAD = "OKAFOR ET AL.                    TIDAL STORAGE IN ESTUARIES"
FOOT = "Journal of Coastal Power 12 (2024) 101"
PROSE = [
    "We measured how much energy a small lagoon can hold between two tides.",
    "The basin filled in four hours and emptied through two turbines.",
    "Storage losses were highest in winter, when the sluices froze at night.",
    "The estuary's silt narrowed the channel by a fifth over the study period.",
    "Operators dredged the inlet twice, each time for about a week.",
    "Output fell when the wind pushed against the ebb for more than a day.",
]


def _paper() -> str:
    pages = []
    for page in range(4):
        lines = [HEAD, ""] if page % 2 else []  # a running head on odd pages, a running foot on every page
        lines += [f"{sentence[:-1]} in section {page}{i}." for i, sentence in enumerate(PROSE)]
        lines += ["", f"{FOOT}   {page + 1}", ""]
        pages.append("\n".join(lines))
    return "PAPER ON LAGOONS\n\n" + "\n".join(pages)


def test_a_snippet_is_no_running_head_of_the_pages(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "okafor2024.txt").write_text(_paper(), encoding="utf-8")
    (corpus / "other.txt").write_text("The harbour master logged the ferries and the weather.\n", encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    cfg = IndexConfig(out=out)
    for query in ["tidal storage in estuaries", "journal of coastal power", "paper on lagoons"]:
        hits = search(cfg, query, k=3, warn=False)
        assert hits and hits[0].source_path == "okafor2024.txt", query
        for hit in hits:
            assert "OKAFOR ET AL" not in hit.snippet and FOOT not in hit.snippet, (query, hit.snippet)
            assert "PAPER ON LAGOONS" not in hit.snippet, (query, hit.snippet)
