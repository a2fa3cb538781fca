"""The extractive scorer: features, the fitted linear relevance, and the oracle/fit that trains it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from batchsum.backends.scorer import FEATURES, SCORER, Matrix, features, relevance
from batchsum.backends.units import terms, units_from_text
from bench.fit_scorer import fit_logistic, oracle

TEXT = (
    "The council approved the new harbour budget after a long debate. "
    "Fishermen said the harbour budget ignores the old pier. "
    "A gull landed on the railing. "
    "The mayor promised that the harbour budget would fund repairs to the pier next spring. "
    "Nobody mentioned the weather."
)


def _units(text: str = TEXT) -> list:
    units = units_from_text(text, "document")
    for u in units:
        u.terms = terms(u.body)
    return units


def test_features_are_scaled_per_node() -> None:
    units = _units()
    x = features(units, Matrix(units), meta=False, whole=True, params=SCORER)
    assert x.shape == (len(units), len(FEATURES))
    assert float(x.min()) >= 0.0 and float(x.max()) <= 1.0
    # A chunk of a longer text has no opening of its own: no position signal.
    chunk = features(units, Matrix(units), meta=False, whole=False, params=SCORER)
    assert not chunk[:, FEATURES.index("opening")].any() and not chunk[:, FEATURES.index("part_order")].any()


def test_weights_decide_the_ranking() -> None:
    units = _units()
    mat = Matrix(units)
    only = [0.0] * len(FEATURES)
    only[FEATURES.index("opening")] = 1.0
    by_position = relevance(units, mat, False, True, replace(SCORER, weights=tuple(only)))
    assert int(np.argmax(by_position)) == 0
    only = [0.0] * len(FEATURES)
    only[FEATURES.index("centrality")] = 1.0
    by_centrality = relevance(units, mat, False, True, replace(SCORER, weights=tuple(only)))
    # The sentences sharing "harbour budget" with the others are central; the gull is not.
    gull = next(i for i, u in enumerate(units) if "gull" in u.body)
    assert by_centrality[gull] < by_centrality.max()
    assert float(by_position.max()) <= 1.0


def test_oracle_picks_what_the_reference_says() -> None:
    sentences = [u.body for u in _units()]
    labels = oracle(sentences, [True] * len(sentences), "The mayor promised repairs to the pier next spring.")
    picked = [s for s, y in zip(sentences, labels, strict=True) if y]
    assert picked and any("mayor" in s for s in picked)
    assert not any("gull" in s for s in picked)
    # A sentence that is not a candidate is never an oracle pick.
    mayor = next(i for i, s in enumerate(sentences) if "mayor" in s)
    cand = [i != mayor for i in range(len(sentences))]
    assert oracle(sentences, cand, "The mayor promised repairs to the pier next spring.")[mayor] == 0


def test_fit_finds_the_informative_feature() -> None:
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(30):
        x = rng.random((20, len(FEATURES)))
        y = (x[:, 0] + 0.1 * rng.standard_normal(20) > 0.7).astype(float)
        rows.append((x, y))
    w = fit_logistic({"a": rows[:15], "b": rows[15:]})
    assert w.shape == (len(FEATURES),)
    assert w[0] > 0 and w[0] == max(w, key=abs)
