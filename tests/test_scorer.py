"""The extractive scorer: features, the fitted linear relevance, and the oracle/fit that trains it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from batchsum.backends.scorer import (
    FEATURES,
    SCORER,
    TRAINED_WEIGHTS,
    Matrix,
    boundary_distance,
    features,
    figure_share,
    opening_prior,
    relevance,
    rule_relevance,
    trained_relevance,
)
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
    by_position = relevance(units, mat, False, True, replace(SCORER, weights=tuple(only), trained_share=1.0))
    assert int(np.argmax(by_position)) == 0
    only = [0.0] * len(FEATURES)
    only[FEATURES.index("centrality")] = 1.0
    by_centrality = relevance(units, mat, False, True, replace(SCORER, weights=tuple(only), trained_share=1.0))
    # The sentences sharing "harbour budget" with the others are central; the gull is not.
    gull = next(i for i, u in enumerate(units) if "gull" in u.body)
    assert by_centrality[gull] < by_centrality.max()
    assert float(by_position.max()) <= 1.0


def test_trained_share_fuses_the_rule_and_the_trained_score() -> None:
    units = _units()
    mat = Matrix(units)
    # Trained weights on sentence length alone rank the long sentence first, the rule the opening one.
    only = [0.0] * len(FEATURES)
    only[FEATURES.index("length")] = 1.0
    params = replace(SCORER, weights=tuple(only))
    rule = rule_relevance(units, mat, False, True, params)
    trained = trained_relevance(units, mat, False, True, params)
    longest = max(range(len(units)), key=lambda i: len(units[i].terms))
    assert int(np.argmax(rule)) == 0 and int(np.argmax(trained)) == longest != 0
    penalty = np.array([params.context_w * u.context + u.penalty for u in units])

    def fused(share: float) -> np.ndarray:
        return relevance(units, mat, False, True, replace(params, trained_share=share)) + penalty

    # Share 0 is the rule alone (the default), share 1 the trained score alone; in between the linear blend.
    assert params.trained_share == 0.0 and np.allclose(fused(0.0), rule)
    assert np.allclose(fused(1.0), trained)
    assert np.allclose(fused(0.3), 0.7 * rule + 0.3 * trained)
    # Without weights of its own the trained score is the pooled fit's.
    pooled = trained_relevance(units, mat, False, True, SCORER)
    assert np.allclose(pooled, trained_relevance(units, mat, False, True, replace(SCORER, weights=TRAINED_WEIGHTS)))


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


CHUNK = (
    "The pump failed twice during the night shift in the east wing. "
    "Engineers traced the pump failure to a worn seal in the east wing. "
    "A replacement seal for the pump arrived from the supplier on Monday. "
    "Lunch was served late on Tuesday. "
    "After the new seal the pump ran for a week without failure."
)


def _relevance(units: list, whole: bool) -> np.ndarray:
    return relevance(units, Matrix(units), meta=False, whole=whole, params=SCORER)


def test_where_a_chunk_cuts_the_text_is_no_boundary() -> None:
    # A chunk of a longer text without headings: no sentence is nearer a boundary than another, so the
    # ranking does not depend on the order the sentences come in (a whole text's does: its start is one).
    units = _units(CHUNK)
    assert np.isinf(boundary_distance(units, SCORER.section_alpha)).all()
    backwards = _units(" ".join(reversed([u.text for u in units])))
    assert np.allclose(_relevance(units, whole=False), _relevance(backwards, whole=False)[::-1])
    assert not np.allclose(_relevance(units, whole=True), _relevance(backwards, whole=True)[::-1])


def test_headings_are_boundaries_at_both_ends_of_a_section() -> None:
    text = CHUNK + "\n\nRESULTS\n\n" + CHUNK.replace("pump", "valve") + "\n\nDISCUSSION\n\n" + CHUNK
    units = _units(text)
    dist = boundary_distance(units, 0.5)
    sections = [u.section for u in units]
    first = sections.index(1)
    last = len(sections) - 1 - sections[::-1].index(1)
    assert dist[first] == 0.0 and dist[last] == 0.0  # the first and last sentences of RESULTS
    assert dist[first + 2] > 0.0
    # Before the chunk's first heading only that heading is a boundary, not where the chunk starts.
    assert dist[0] == 0.5 * (sections.count(0) - 1) and dist[sections.count(0) - 1] == 0.0
    assert dist[-1] == sections.count(2) - 1  # after the last one, only that heading: the chunk's end is none


def test_a_sentence_stating_figures_gains_over_its_twin_without() -> None:
    text = (
        "Revenue in the quarter grew across every region we serve. "
        "Revenue in the quarter grew 12% to $4.1 billion across every region. "
        "The board thanked the staff for a strong quarter of work."
    )
    units = _units(text)
    mat = Matrix(units)
    with_figures = relevance(units, mat, False, False, SCORER)
    without = relevance(units, mat, False, False, replace(SCORER, figure_w=0.0))
    assert figure_share(units)[1] > 0 and figure_share(units)[0] == 0
    assert figure_share(units)[1] == 2 / units[1].words  # "12%" and "$4.1": one figure per token
    assert with_figures[1] - without[1] > 0
    assert with_figures[0] == without[0] and with_figures[2] == without[2]


def test_a_time_of_day_is_no_figure() -> None:
    """British English writes the time with a dot ("at 5.30"): a diary's times had drawn the bonus for
    amounts, and its final had read "It was born at 1.20. Our Goldfinch roosts at 5.30."."""
    units = _units(
        "Our Goldfinch roosts at 5.30 every evening in the old yew. "
        "In bed till 12.30 reading the new book about beetles. "
        "Earnings rose to 1.20 per share in the third quarter of the year."
    )
    shares = figure_share(units)
    assert shares[0] == 0 and shares[1] == 0 and shares[2] > 0
    # "from 10.20 to 12.45" is as often a price or an index as a time: it keeps its bonus.
    assert figure_share(_units("Between the two meetings the index rose from 10.20 to 12.45 on heavy trading."))[0] > 0


def test_amounts_and_rates_count_as_figures_and_bare_integers_do_not() -> None:
    text = (
        "The margin rose 100 basis points and costs fell by 6 percent on 1,200 orders. "
        "She rolled an 18 on the die in 2020 and dealt 11 points of damage. "
        "Release 2.10.5 went out on 12.03.2026 with the new login page."
    )
    units = _units(text)
    assert figure_share(units)[0] == 3 / units[0].words  # "100" (basis points), "6" (percent), "1,200"
    assert figure_share(units)[1] == 0  # a die roll, a year and a count state no result
    assert figure_share(units)[2] == 0  # nor does a version or a date


GAME_CHUNK = (
    "Roll damage on the troll. "
    "The troll takes nine damage. "
    "The troll roars as Fjord rolls damage with his falchion, and the blow throws the troll across the wet "
    "stone floor of the cavern toward the river, where the cold current drags the wounded troll under the surface. "
    "Fjord rolls damage on the troll again. "
    "Ten damage to the troll. "
    "Everyone at the table laughs at the joke about snacks."
)


def test_in_a_long_texts_node_the_sentence_that_tells_what_happened_outranks_short_lines() -> None:
    # Cosine centrality favours short lines of a chunk's most frequent words; in the nodes of a long
    # text the length factor saturates late (section_length_norm), so the narration wins the chunk.
    units = _units(GAME_CHUNK)
    mat = Matrix(units)
    narration = next(i for i, u in enumerate(units) if "falchion" in u.body)
    assert int(np.argmax(relevance(units, mat, False, False, SCORER))) == narration
    early = replace(SCORER, section_length_norm=SCORER.length_norm)
    assert int(np.argmax(relevance(units, mat, False, False, early))) != narration
    # A whole short text keeps its own, early saturation: its short opening still leads.
    assert np.allclose(relevance(units, mat, False, True, SCORER), relevance(units, mat, False, True, early))
    assert int(np.argmax(relevance(units, mat, False, True, SCORER))) == 0


def test_the_opening_prior_decays_over_the_first_sentences_whatever_the_texts_length() -> None:
    # The prior follows the sentence's index (Ouyang et al. 2010), not its share of the text: the k-th
    # sentence gets the same prior in a short text and in a long one, highest at the first sentence.
    short = _units(TEXT)
    long = _units(" ".join([TEXT, CHUNK, TEXT.replace("harbour", "river"), CHUNK.replace("pump", "valve")]))
    assert len(long) > 2 * len(short)
    params = replace(SCORER, position_decay=2.0)
    p_short, p_long = opening_prior(short, params), opening_prior(long, params)
    assert p_short[0] == params.position_w and np.all(np.diff(p_short) < 0)
    assert np.allclose(p_short, p_long[: len(short)])
    # The share-of-text form spreads the prior over a long text's first quarter instead.
    share = opening_prior(long, replace(SCORER, position_decay=0.0))
    quarter = len(long) // 4
    assert share[quarter] > 0.5 * params.position_w > p_long[quarter]


def test_a_meta_node_keeps_the_prior_over_its_parts_in_order() -> None:
    # A meta node's k-th unit is not the text's k-th sentence: there the prior follows the parts' order.
    units = _units(CHUNK)
    for i, u in enumerate(units):
        u.pos = i / len(units)
    decayed = opening_prior(units, replace(SCORER, position_decay=2.0), meta=True)
    assert np.allclose(decayed, opening_prior(units, replace(SCORER, position_decay=0.0), meta=True))
    assert np.all(np.diff(decayed) < 0)
