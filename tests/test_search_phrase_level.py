"""An exact phrase ranks first: a whole match one of whose passages holds the query's words next to each other,
in the query's order, outranks whole matches whose passages only repeat them scattered (real run, real index)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from batchsum.index.proximity import phrase_passages
from batchsum.index.search import search
from tests.test_search_phrases import indexed_corpus

FILES = {
    # "gross" three times and "margin" ("margins") twice, never side by side: more BM25 than the phrase.
    "ins.md": "Gross written premiums rose 26%. Gross and net written premiums grew in all lines. Underwriting"
    " margins stayed strong. Gross premiums in specialty rose 9%, and margins held.",
    "pr.md": "Northwind closed the quarter well. Gross margin was 38.9%, up 170 basis points. Revenue was $318"
    " million.",
}


def test_the_exact_phrase_outranks_its_words_repeated_apart(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, FILES)
    found = [h.source_path for h in search(cfg, "gross margin", k=5, warn=False)]
    assert found[:2] == ["pr.md", "ins.md"], found
    # The order is the query's: "margin gross" is no phrase of either, and repeats rank as before.
    found = [h.source_path for h in search(cfg, "gross premiums", k=5, warn=False)]
    assert found[0] == "ins.md", found


def test_a_phrase_is_its_groups_in_order_inside_one_passage() -> None:
    group_of = np.array([0, 1, -1])  # term numbers 0 and 1 are query groups 0 and 1; 2 another word
    sequence = np.array([2, 0, 1, 2, 1, 0, 2, 2])
    starts, stops = np.array([0, 2]), np.array([4, 8])
    assert phrase_passages(sequence, group_of, [0, 1], starts, stops).tolist() == [True, False]
    assert phrase_passages(sequence, group_of, [1, 0], starts, stops).tolist() == [False, True]
    assert not phrase_passages(sequence, group_of, [0], starts, stops).any()
