"""A hit hidden as a repeat of a passage already shown neither caps the scores of the hits listed below it nor
reorders them (reviewer's s8 defect: a digest quoting an entry, placed just below it and hidden, had tied the two
entries below at its lower score and listed the newer first). Run on search's listing functions with hand-made
candidates: the situation needs a digest scored far below the entries it quotes."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from batchsum.index.match_tiers import first_shown, shown_order

# 0: entry E, 1: a month's digest D quoting E (same snippet, placed just below it), 2: entry B, 3: entry C (newer)
RANKED = np.array([1.0, 0.99, 0.98, 0.97])
FINAL = np.array([0.9, 0.5, 0.8, 0.7])
SOURCE = ["e.md", "2024-05", "b.md", "c.md"]
DATED: list[int | None] = [300, None, 100, 200]
KEYS = ["e passage", "e passage", "b passage", "c passage"]
DIGEST = np.array([False, True, False, False])


def _listed(k: int) -> list[int]:
    order_of = functools.partial(shown_order, ranked=RANKED, final=FINAL, source=SOURCE, dated=DATED,
                                 rank_class=[(0.0, 0.0)] * 4, fixed=DIGEST)  # fmt: skip
    got = first_shown([0, 1, 2, 3], k, order_of, np.zeros((4, 4), bool), lambda i: ("", [], "", KEYS[i]), DIGEST)
    return list(got)


def _shown_scores(listed: list[int]) -> list[float]:
    return np.minimum.accumulate(FINAL[listed]).tolist()


def test_a_hidden_digest_neither_caps_nor_reorders_the_hits_below_it() -> None:
    listed = _listed(3)
    assert 1 not in listed  # the digest repeats its entry's passage
    # The hits shown keep their own scores (B's 0.8 is no longer shown as 0.7) and their rank order.
    assert _shown_scores(listed) == [float(FINAL[i]) for i in listed]
    assert listed == [0, 2, 3]


def test_the_top_k_stays_a_prefix_of_the_top_k_plus_one_with_rank_one_uncapped() -> None:
    lists = {k: _listed(k) for k in (1, 2, 3, 4)}
    for k in (1, 2, 3):
        assert lists[k] == lists[k + 1][:k], k
    for listed in lists.values():
        assert _shown_scores(listed)[0] == float(FINAL[listed[0]])
        assert all(a >= b for a, b in itertools.pairwise(_shown_scores(listed)))
