"""Phrases and other languages in search: words that stand together outrank the same words scattered
(term proximity), and documents in a language the static embedder does not read are never dropped as
copies of each other (real runs, real index)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.proximity import pack_sequence, proximity_scores, unpack_sequence
from batchsum.index.search import _copyable, mmr, search

FILLER = "We walked along the river and talked about the weather, the harvest and the neighbours. "


def indexed_corpus(tmp_path: Path, files: dict[str, str]) -> IndexConfig:
    """A real run and index of ``files`` (name: text, sub-folders allowed) under ``tmp_path``."""
    corpus = tmp_path / "corpus"
    for name, text in files.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    return IndexConfig(out=out)


def test_proximity_scores_adjacent_terms_most() -> None:
    # Terms 0 and 1 are query groups 0 and 1; 2 is another word. One passage over the whole sequence.
    group_of = np.array([0, 1, -1])
    weights = np.array([2.0, 2.0])
    start, stop, k_norm = np.array([0]), np.array([6]), np.array([1.2])

    def score(seq: list[int]) -> float:
        return float(proximity_scores(np.array(seq), group_of, weights, start, stop, k_norm, 1.2)[0])

    adjacent, apart, alone = score([2, 0, 1, 2, 2, 2]), score([0, 2, 2, 2, 1, 2]), score([0, 2, 0, 2, 2, 2])
    assert adjacent > apart > alone == 0.0
    assert score([1, 0, 2, 2, 2, 2]) == adjacent  # Büttcher's score does not depend on the order
    assert list(unpack_sequence(pack_sequence([3, 70000, 0]))) == [3, 70000, 0]


OTHER_TOPICS = [
    "the bakery raised the price of bread",
    "the train to the coast was late again",
    "a letter came from the tax office",
    "the roof leaks when it rains from the west",
    "the choir practised for the winter concert",
    "the dog chased a fox across the field",
]


def test_a_phrase_outranks_its_words_scattered(tmp_path: Path) -> None:
    scattered = (
        "The grand hall was cold. " + FILLER * 2 + "A mirror hung by the door. " + FILLER
        + "The grand piano was out of tune. " + FILLER + "Her mirror was cracked. "
    )  # fmt: skip
    phrase = FILLER * 2 + "She stood before the grand mirror in the attic. " + FILLER * 2
    others = {f"other{i}.md": f"Note {i}: {topic}. " + FILLER for i, topic in enumerate(OTHER_TOPICS)}
    cfg = indexed_corpus(tmp_path, {"scattered.md": scattered, "phrase.md": phrase, **others})
    found = [h.source_path for h in search(cfg, "grand mirror", k=5, level="3", warn=False)]
    assert "phrase.md" in found
    assert "scattered.md" not in found or found.index("phrase.md") < found.index("scattered.md")


def test_documents_in_another_language_are_not_dropped_as_copies() -> None:
    # To the English static embedder any two German texts look alike (cosine about 0.96 on real prose):
    # two different German files both stay; an English copy, or an L1 and the final of one file, go.
    vecs = np.array([[1.0, 0.0], [0.97, 0.243], [0.6, 0.8]], dtype=np.float32)
    scores = np.array([1.0, 0.95, 0.5])

    def picked(languages: list[str | None], groups: list[str]) -> list[int]:
        copyable = _copyable(groups, [{"language": lang, "level": 3} for lang in languages])
        return mmr(scores, vecs, 3, groups=groups, cross_group=0.0, copyable=copyable)

    assert picked(["de", "de", "de"], ["a", "b", "c"]) == [0, 1, 2]
    assert picked(["en", "en", "en"], ["a", "b", "c"]) == [0, 2]
    assert picked([None, None, None], ["a", "b", "c"]) == [0, 2]
    assert picked(["de", "de", "de"], ["a", "a", "c"]) == [0, 2]
