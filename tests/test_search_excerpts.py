"""A pasted excerpt longer than a passage finds the text it was copied from (real runs, real index): the query is
matched against windows of passages as long as itself, so its own text holds all of it, where one passage of
~100 words held a few percent of it, as much as any other text on the same subject."""

from __future__ import annotations

import random
from pathlib import Path

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.search import search

SYLLABLES = "ba ko ri tu ne sa lo mi pe du ga fo".split()
SPEAKERS = ("Anna", "Boris", "Carla")


def transcript(seed: int, words: int = 900) -> str:
    """A meeting of ``words`` words of one shared made-up vocabulary, drawn as a language's are (Zipf: a few words
    in every meeting, most rare), in turns."""
    rng = random.Random(seed)
    vocabulary = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in ("n", "r", "l")]
    text = rng.choices(vocabulary, weights=[1 / (rank + 1) for rank in range(len(vocabulary))], k=words)
    turns = [f"{SPEAKERS[i % 3]}: {' '.join(text[i * 15 : i * 15 + 15])}." for i in range(words // 15)]
    return "\n".join(turns) + "\n"


def test_a_long_excerpt_finds_its_own_text_first(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(6):
        (corpus / f"meeting{n}.txt").write_text(transcript(n), encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    cfg = IndexConfig(out=out)
    words = (corpus / "meeting3.txt").read_text(encoding="utf-8").split()
    for start, length in ((0, 400), (130, 600)):
        hits = search(cfg, " ".join(words[start : start + length]), k=5, warn=False)
        assert hits[0].source_path == "meeting3.txt"
        # All of the excerpt is in its text: it is found as a whole, well above the others.
        assert hits[0].relevance >= 0.8 and all(h.relevance < hits[0].relevance - 0.1 for h in hits[1:])
