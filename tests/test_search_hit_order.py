"""The order hits are shown in (real runs, real index): another node of a file already shown comes after every
other file's hit, and hits shown with the same score are listed the more recent first (docs/search.md)."""

from __future__ import annotations

import itertools
from datetime import date
from pathlib import Path

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.search import search
from batchsum.model import Thresholds

FILL = "We talked about the schedule, the budget and who would write the minutes for the next week. "
TOPICS = (
    "The remote control needs a cheap battery and a clear display for the living room. ",
    "The marketing report says young buyers want fashion, fruit colours and a spongy feel. ",
    "The evaluation scores the prototype on price, weight and how it survives a drop. ",
)


def run(
    corpus: Path, files: dict[str, str], chunk_size: int = 3000, thresholds: Thresholds | None = None
) -> IndexConfig:
    """A real run and index of ``files`` (name: text) written under ``corpus``."""
    for name, text in files.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    out = corpus.parent / "out"
    levels = thresholds or Thresholds()
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0, chunk_size=chunk_size, thresholds=levels))
    return IndexConfig(out=out)


def test_a_second_node_of_a_file_comes_after_every_other_file(tmp_path: Path) -> None:
    said = ("Anna: The case should be yellow rubber, soft to hold.", "Boris: Yellow rubber again, I agree.",
            "Carla: We close with the yellow rubber case.")  # fmt: skip
    design = "\n\n".join(topic * 10 + line + " " + topic * 10 for line, topic in zip(said, TOPICS, strict=True))
    hashmaps = "# Hash maps\n\nThe Yellow team has 50 points. " + FILL * 3 + "The rubber duck explains the code. "
    others = {f"other{i}.md": f"Note {i}: {topic}" + FILL for i, topic in enumerate(TOPICS)}
    cfg = run(tmp_path / "corpus", {"design.txt": design, "hashmaps.md": hashmaps, **others},
              chunk_size=300, thresholds=Thresholds(brief=100, standard=200))  # fmt: skip
    files = [h.source_path for h in search(cfg, "yellow rubber", k=5, warn=False)]
    assert files.count("design.txt") > 1 and "hashmaps.md" in files  # the file's chunks are hits, and so is the other
    firsts = [f for n, f in enumerate(files) if f not in files[:n]]
    assert files[: len(firsts)] == firsts  # every file's first hit before any file's second


def test_hits_shown_with_the_same_score_are_listed_the_most_recent_first(tmp_path: Path) -> None:
    # The oldest entry names the lighthouse in five places (the most evidence: ranked first), the others once
    # (more relevant each, so all are shown with the first one's score).
    entries = {
        "journal/2021-05-01.md": " ".join(["The lighthouse was dark again tonight. " + FILL * 3] * 5),
        "journal/2022-02-03.md": "Walked to the lighthouse with Ida. " + FILL,
        "journal/2023-07-09.md": "The lighthouse keeper waved from the gallery. " + FILL,
        "journal/2020-01-04.md": "Painted the lighthouse door red. " + FILL,
    }
    hits = search(run(tmp_path / "corpus", entries), "lighthouse", k=5, today=date(2030, 1, 1), warn=False)
    assert len(hits) == 4  # tied when capped in rank order; the cap then applies in the order shown (none rises)
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert [h.doc_date for h in hits] == sorted((h.doc_date or "" for h in hits), reverse=True)
