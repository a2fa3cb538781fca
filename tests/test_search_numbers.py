"""Figures in search: a number with its decimals or thousands is one word of the index and of the query, so
"$1.2 billion" finds the report that says it, not the one that says "$7.8 billion" (real run, real index)."""

from __future__ import annotations

from pathlib import Path

from batchsum.index.analysis import analyze
from batchsum.index.search import search
from tests.test_search_phrases import indexed_corpus

REPORTS = {
    "a.md": "Revenue reached $1.2 billion this year, driven by automation. Gross margin was 38.6% for the year."
    " Adjusted EPS guidance is $4.10 to $4.30. We shipped 1,450 units.",
    "b.md": "Revenue reached $7.8 billion this year, driven by services. Gross margin was 38.1% for the year."
    " Adjusted EPS guidance is $2.10 to $2.30. We shipped 980 units.",
}


def test_a_decimal_figure_finds_the_document_that_states_it(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, REPORTS)
    for query, figure in [("$1.2 billion", "1.2"), ("38.6%", "38.6"), ("4.10", "4.10"), ("1,450 units", "1,450")]:
        hits = search(cfg, query, k=5, warn=False)
        assert hits and hits[0].source_path == "a.md", (query, [(h.source_path, h.terms) for h in hits])
        assert figure in hits[0].terms, (query, hits[0].terms)
        assert all(h.source_path != "b.md" or h.relevance < hits[0].relevance for h in hits[1:]), query


def test_dates_and_integers_stay_words_of_their_own() -> None:
    # A date's or an address's pieces are no decimals: "2025" still finds "14.03.2025".
    assert {"14", "03", "2025"} <= set(analyze("Am 14.03.2025 in Berlin", "de"))
    assert {"192", "168"} <= set(analyze("host 192.168.1.1")) and "2019" in analyze("in 2019.")
    assert analyze("1,2,3 and v1.2") == ["v1"]
