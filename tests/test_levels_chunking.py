"""Level thresholds, chunk coverage/overlap and append-stability."""

from __future__ import annotations

import itertools
import random

import pytest

from batchsum.chunking import chunk_text
from batchsum.model import SummaryLevel, Thresholds
from batchsum.tokens import get_tokenizer


@pytest.mark.parametrize(
    ("tokens", "level"),
    [
        (0, SummaryLevel.NONE),
        (99, SummaryLevel.NONE),
        (100, SummaryLevel.BRIEF),
        (499, SummaryLevel.BRIEF),
        (500, SummaryLevel.STANDARD),
        (2999, SummaryLevel.STANDARD),
        (3000, SummaryLevel.DETAILED),
        (14999, SummaryLevel.DETAILED),
        (15000, SummaryLevel.HIERARCHICAL),
        (10**7, SummaryLevel.HIERARCHICAL),
    ],
)
def test_level_boundaries(tokens: int, level: SummaryLevel) -> None:
    assert Thresholds().level_for(tokens) is level


def test_custom_thresholds() -> None:
    t = Thresholds(10, 20, 30, 40)
    assert [t.level_for(n).value for n in (9, 10, 19, 20, 29, 30, 39, 40)] == [
        "NONE",
        "BRIEF",
        "BRIEF",
        "STANDARD",
        "STANDARD",
        "DETAILED",
        "DETAILED",
        "HIERARCHICAL",
    ]


def test_tokenizer_is_exact_offline() -> None:
    tok = get_tokenizer("cl100k_base")
    assert tok.exact
    assert tok.count("hello world") == 2
    text = "naïve café — 日本語 🙂 text"
    starts = tok.token_starts(text)
    assert len(starts) == tok.count(text)
    assert list(starts) == sorted(starts) and starts[0] == 0


def _corpus(seed: int, paragraphs: int) -> str:
    rng = random.Random(seed)
    words = "alpha beta gamma delta budget meeting river lighthouse decision quarterly plan garden".split()
    paras = []
    for _ in range(paragraphs):
        sents = []
        for _ in range(rng.randint(1, 8)):
            sents.append(" ".join(rng.choice(words) for _ in range(rng.randint(4, 30))).capitalize() + ".")
        paras.append(" ".join(sents))
    return "\n\n".join(paras)


def test_chunks_cover_every_token_and_overlap() -> None:
    tok = get_tokenizer()
    text = _corpus(1, 400)
    chunks = chunk_text(text, tok, 600, 50)
    assert len(chunks) > 5
    # Tiling: each chunk's new content starts where the previous ended; no character is lost.
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for prev, cur in itertools.pairwise(chunks):
        assert cur.start <= prev.end  # overlap or adjacency, never a gap
        assert 0 < cur.overlap_tokens <= 50
        assert text[cur.start : prev.end]  # the overlap is real text from the previous chunk
    for c in chunks:
        assert c.tokens <= 600
        assert c.text == text[c.start : c.end]
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert covered == set(range(len(text)))


def test_long_sentence_and_unpunctuated_text_fall_back() -> None:
    tok = get_tokenizer()
    text = "word " * 5000  # one paragraph, one "sentence": character fallback
    chunks = chunk_text(text, tok, 1000, 100)
    assert len(chunks) >= 5
    assert all(c.tokens <= 1000 for c in chunks)
    assert chunks[-1].end == len(text)


def test_chunking_is_deterministic() -> None:
    tok = get_tokenizer()
    text = _corpus(2, 200)
    assert chunk_text(text, tok, 500, 40) == chunk_text(text, tok, 500, 40)


def test_append_changes_only_last_chunks() -> None:
    tok = get_tokenizer()
    text = _corpus(3, 300)
    before = chunk_text(text, tok, 700, 60)
    after = chunk_text(text + "\n\n" + _corpus(4, 3), tok, 700, 60)
    same = sum(1 for a, b in zip(before, after, strict=False) if a == b)
    assert same >= len(before) - 1
    assert len(after) >= len(before)


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("   \n\n  ", get_tokenizer()) == []
