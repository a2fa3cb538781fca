"""A search snippet from a screenplay's dialogue names its speaker and leaves out the parenthetical, as the
summary does ("ROSA: There is no road ...", not "(pouring) There is no road ..."); a document's headings in
capitals over its paragraphs are no cues (real run, real index)."""

from __future__ import annotations

from pathlib import Path

from batchsum.index.search import search
from batchsum.index.snippets import markdown_window
from tests.test_search_phrases import indexed_corpus

SCENE = (
    "INT. DINER - NIGHT\n\nA chrome diner lit by one buzzing sign. ROSA wipes the counter.\n\n"
    "ROSA\nKitchen's closed. Coffee's not.\n\nJONAH\nCoffee, then. And the road to Millbrook.\n\n"
    "ROSA\n(pouring)\nThere is no road to Millbrook. Not since the dam was built.\n\n"
    "JONAH\nMy brother wrote to me from Millbrook last week.\n\n"
    "ROSA\nThen your brother is writing from the bottom of a lake.\n\n"
    "EXT. DINER - NIGHT\n\nJonah walks out into the rain.\n"
)
REPORT = (
    "SUMMARY\nThe reservoir flooded the valley in 1961 and the village under it was abandoned.\n\n"
    "BACKGROUND\nThe valley farms were bought by the water board over ten years.\n\n"
    "FINDINGS\nThe old church tower shows above the water in dry summers.\n"
)


def _snippet(tmp_path: Path, files: dict[str, str], query: str, source: str) -> str:
    cfg = indexed_corpus(tmp_path, files)
    hits = [h for h in search(cfg, query, k=5, warn=False) if h.source_path == source and h.snippet_from == "source"]
    assert hits, search(cfg, query, k=5, warn=False)
    return hits[0].snippet


def test_a_screenplay_snippet_names_its_speaker_without_the_parenthetical(tmp_path: Path) -> None:
    snippet = _snippet(tmp_path, {"scene.md": SCENE}, "There is no road to Millbrook", "scene.md")
    assert snippet.startswith("ROSA: There is no road to Millbrook"), snippet
    assert "pouring" not in snippet, snippet


def test_a_reports_capital_headings_are_no_speakers() -> None:
    """Three headings over three paragraphs are no screenplay (type detection's four cues): no speakers."""
    window = markdown_window(REPORT, 0, len(REPORT))
    assert "church tower" in window and "FINDINGS:" not in window and "SUMMARY:" not in window, window
