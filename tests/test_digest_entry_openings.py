"""A digest's entries are peers, each a whole text: the opening prior starts again in each one, so an
entry's first sentence (what happened) outranks its details where centrality does not tell them apart."""

from __future__ import annotations

import numpy as np

from batchsum.backends.scorer import SCORER, opening_prior
from batchsum.backends.units import units_from_text

ENTRIES = [
    "Dad was taken to hospital with a heart attack. The surgeon says the bypass went well.",
    "I was offered the job at the library today. The interview lasted almost three hours.",
    "We sold the old car to our neighbour. The paperwork took the whole afternoon.",
]


def test_the_opening_prior_starts_again_in_each_entry_of_a_digest() -> None:
    units = [u for part, text in enumerate(ENTRIES) for u in units_from_text(text, "document", part=part)]
    prior = opening_prior(units, SCORER, peers=True)
    firsts = [i for i, u in enumerate(units) if i == 0 or units[i - 1].part != u.part]
    assert len(firsts) == len(ENTRIES)
    # Every entry's first sentence gets the whole text's first-sentence prior, its second one less.
    assert np.allclose(prior[firsts], SCORER.position_w)
    assert all(prior[i + 1] < prior[i] for i in firsts)
    # Read as one text (no peers), the third entry's opening would count for almost nothing.
    assert opening_prior(units, SCORER)[firsts[-1]] < 0.2 * SCORER.position_w
