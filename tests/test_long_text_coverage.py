"""The final of a long text draws on its whole length: a meta node gives a part not yet represented the
bonus of a whole part (``coverage_w`` 1), so no part is quoted twice while another, about as relevant, is
not quoted at all. At 0.1 the opening prior had filled Jane Eyre's final from its first tenth (Gateshead
and Lowood; Thornfield, Rochester and Moor House absent)."""

from __future__ import annotations

import random
from collections import Counter

from batchsum.backends.extractive import summarize_text
from batchsum.tokens import get_tokenizer

WORDS = (
    "apple bread candle doctor engine forest garden hammer island jacket kettle lemon mirror needle ocean pillow "
    "quilt river saddle tunnel violin wagon yarn zebra anchor basket castle dragon feather glove helmet ivory "
    "jungle kitten ladder marble nickel orbit pepper rabbit silver timber umbrella valley walnut"
).split()


def test_no_part_is_quoted_twice_while_another_is_left_out() -> None:
    rng = random.Random(3)
    parts = []
    for _ in range(12):  # twelve parts of a long text in order, each of three sentences alike in kind
        sentences = []
        for _ in range(3):
            w = rng.sample(WORDS, 6)
            sentences.append(f"Jane saw the {w[0]} and the {w[1]} near the {w[2]}, then she carried the {w[3]} "
                             f"past the {w[4]} to the {w[5]}.")  # fmt: skip
        parts.append(" ".join(sentences))
    out = summarize_text("\n\n".join(parts), parts=parts, target_tokens=150, max_tokens=150, kind="meta",
                         content_type="document", tokenizer=get_tokenizer())  # fmt: skip
    picked = [i for i, part in enumerate(parts) for s in part.split(". ") if s.rstrip(".")[:40] in out]
    assert 3 <= len(picked) <= len(parts), picked
    assert max(Counter(picked).values()) == 1, picked
    assert max(picked) >= len(parts) // 2, picked  # the second half of the text is in it
