"""A book's final draws on its whole length: a meta node of many parts (``BOOK_PARTS``) gives a part not yet
represented the bonus of a whole sentence's relevance, so no part is quoted twice while another, about as
relevant, is not quoted at all. The opening prior over parts had filled Jane Eyre's final from its first
tenth (Gateshead and Lowood; Thornfield, Rochester and Moor House absent). A text of a few parts keeps its
most relevant sentences first."""

from __future__ import annotations

import random
from collections import Counter

from batchsum.backends.extractive import BOOK_PARTS, summarize_text
from batchsum.tokens import get_tokenizer

WORDS = (
    "apple bread candle doctor engine forest garden hammer island jacket kettle lemon mirror needle ocean pillow "
    "quilt river saddle tunnel violin wagon yarn zebra anchor basket castle dragon feather glove helmet ivory "
    "jungle kitten ladder marble nickel orbit pepper rabbit silver timber umbrella valley walnut"
).split()


def _parts(n: int) -> list[str]:
    """``n`` parts of a long text in order, each of three sentences alike in kind."""
    rng = random.Random(3)
    parts = []
    for _ in range(n):
        sentences = []
        for _ in range(3):
            w = rng.sample(WORDS, 6)
            sentences.append(f"Jane saw the {w[0]} and the {w[1]} near the {w[2]}, then she carried the {w[3]} "
                             f"past the {w[4]} to the {w[5]}.")  # fmt: skip
        parts.append(" ".join(sentences))
    return parts


def _picked(parts: list[str]) -> list[int]:
    """The part of each sentence a 150-token meta summary of ``parts`` quotes."""
    out = summarize_text("\n\n".join(parts), parts=parts, target_tokens=150, max_tokens=150, kind="meta",
                         content_type="document", tokenizer=get_tokenizer())  # fmt: skip
    return [i for i, part in enumerate(parts) for s in part.split(". ") if s.rstrip(".")[:40] in out]


def test_no_part_of_a_book_is_quoted_twice_while_another_is_left_out() -> None:
    parts = _parts(12)
    picked = _picked(parts)
    assert 3 <= len(picked) <= len(parts), picked
    assert max(Counter(picked).values()) == 1, picked
    assert max(picked) >= len(parts) // 2, picked  # the second half of the text is in it


def test_a_text_of_few_parts_keeps_its_most_relevant_sentences_first() -> None:
    picked = _picked(_parts(BOOK_PARTS - 1))
    assert max(Counter(picked).values()) > 1, picked  # the opening's second sentence before a later part's first
