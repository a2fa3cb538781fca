"""A query whose only words no index term can be ("C++" and "C#" are "c", "x") asks for words the corpus lacks:
it scores as a query about something absent (its meaning's share at most), not by its meaning alone, which had
shown "C++" at 0.79 on a pancreatic-cancer passage; a query of function words alone is still judged by meaning."""

from __future__ import annotations

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import WEIGHT_COSINE, WEIGHT_COVERAGE, WEIGHT_EVIDENCE, search

NOTES = {
    "parser.txt": "We rewrote the parser in C and C++ last week. The C# client still calls the old x86 build.\n",
    "garden.txt": "The tomatoes in the garden need water every morning. The roses bloomed early this year.\n",
}
MEANING_SHARE = WEIGHT_COSINE / (WEIGHT_COVERAGE + WEIGHT_COSINE + WEIGHT_EVIDENCE)


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    base = tmp_path_factory.mktemp("unheld")
    for name, text in NOTES.items():
        (base / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (base / "src" / name).write_text(text, encoding="utf-8")
    batchsum.run([base / "src"], out=base / "out", metrics=False)
    return RunConfig(paths=[], out=base / "out")


@pytest.mark.parametrize("query", ["C++", "C#", "x", "c"])
def test_a_query_of_unindexable_words_scores_as_absent(cfg: RunConfig, query: str) -> None:
    hits = search(cfg, query, k=3)
    assert all(h.relevance <= MEANING_SHARE + 1e-6 and not h.terms for h in hits), [
        (h.node_id, h.relevance) for h in hits
    ]


def test_a_held_word_beside_them_is_still_found(cfg: RunConfig) -> None:
    hits = search(cfg, "C++ parser", k=3)
    assert hits and hits[0].source_path == "parser.txt" and hits[0].relevance > MEANING_SHARE
