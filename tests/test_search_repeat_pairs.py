"""Which candidates can hide each other as repeats (match_tiers.may_repeat), and that a candidate related to no other
one has its snippet built only when it is listed: search builds no snippet it neither shows nor compares."""

from __future__ import annotations

import functools

import numpy as np

from batchsum.index.match_tiers import first_shown, may_repeat, shown_order

# 0: a.md's final, 1: a.md's L1 repeating it, 2: b.md (English, same snippet as a.md: another text), 3: c.md,
# 4: d.md, 5: e.md (5 is the only one below the top 4)
SOURCE = ["a.md", "a.md", "b.md", "c.md", "d.md", "e.md"]
RANKED = np.array([1.0, 0.95, 0.9, 0.85, 0.8, 0.75])
KEYS = ["a passage", "a passage", "a passage", "c passage", "d passage", "e passage"]
NONE = np.zeros(6, dtype=bool)


def _listed(k: int, foreign: np.ndarray, digest: np.ndarray = NONE) -> tuple[list[int], list[int]]:
    built: list[int] = []

    def passage(i: int) -> tuple[str, list[str], str, str]:
        built.append(i)
        return KEYS[i], [], "summary", KEYS[i]

    order_of = functools.partial(shown_order, ranked=RANKED, final=RANKED, source=SOURCE, dated=[None] * 6,
                                 rank_class=[(0.0,)] * 6, fixed=NONE)  # fmt: skip
    related = may_repeat(SOURCE, digest, foreign)
    got = first_shown(list(range(6)), k, order_of, np.zeros((6, 6), bool), passage, digest, related)
    return list(got), built


def test_lone_candidates_build_their_snippet_only_when_listed() -> None:
    listed, built = _listed(3, NONE)
    assert listed == [0, 2, 3]  # a.md's L1 repeats its final; b.md, another English file, keeps its place
    assert sorted(set(built)) == [0, 1, 2, 3]  # d.md and e.md are listed below k: no snippet built
    assert _listed(4, NONE)[0] == [*listed, 4]  # the top k is a prefix of the top k+1


def test_two_files_the_embedder_cannot_read_hide_a_repeated_snippet() -> None:
    listed, built = _listed(3, np.ones(6, dtype=bool))
    assert listed == [0, 3, 4]  # b.md may be a copy of a.md: its snippet repeats a.md's
    assert set(built) == set(range(6))  # all can repeat each other: every snippet compared


def test_a_digest_is_compared_with_every_candidate() -> None:
    digest = np.array([False, False, False, False, False, True])
    related = may_repeat(SOURCE, digest, NONE)
    assert related[5].all() and related[:, 5].all()
    assert not related[2, 3] and related[0, 1]
