"""Chunks use their budget (about as many as fixed-size splitting), yet an append or a middle edit
moves few cuts and redoes few nodes."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.chunking import SECTION_MIN, WINDOW, Chunk, chunk_text
from batchsum.cli import main
from batchsum.tokens import get_tokenizer

TOK = get_tokenizer()
WORDS = (
    "budget remote design battery button meeting market colour speech kitchen lamp river train "
    "decision schedule prototype customer price survey report screen wheel voice plastic"
).split()
SPEAKERS = ("Project Manager", "Marketing", "Industrial Designer", "User Interface")


def transcript(seed: int, lines: int) -> str:
    """A meeting transcript: one utterance a line, as in QMSum."""
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 40)))
        out.append(f"{rng.choice(SPEAKERS)}: {words.capitalize()} .")
    return "\n".join(out) + "\n"


def prose(seed: int, paragraphs: int) -> str:
    """Paragraphs of a few sentences, as in a journal."""
    rng = random.Random(seed)
    paras = []
    for _ in range(paragraphs):
        sents = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 25))).capitalize() + "."
            for _ in range(rng.randint(1, 7))
        ]
        paras.append(" ".join(sents))
    return "\n\n".join(paras) + "\n"


def fixed_size_count(tokens: int, size: int = 3000, overlap: int = 200) -> int:
    """Chunks of the seed's fixed windows (``shared/tools/llm_bench/bound.py``)."""
    return 1 if tokens <= size else 1 + math.ceil((tokens - size) / (size - overlap))


def insert_at_line(text: str, frac: float, sentence: str) -> tuple[str, int]:
    at = text.find("\n", int(len(text) * frac)) + 1
    return text[:at] + sentence + text[at:], at


def moved_cuts(before: list[Chunk], after: list[Chunk], at: int, shift: int) -> int:
    ends = {c.end for c in after}
    return sum(1 for c in before[:-1] if (c.end + shift if c.end >= at else c.end) not in ends)


@pytest.mark.parametrize("make", [transcript, prose], ids=["transcript", "prose"])
def test_chunks_fill_their_budget(make) -> None:  # type: ignore[no-untyped-def]
    text = make(1, 1500 if make is transcript else 700)
    tokens = TOK.count(text)
    assert 20_000 < tokens < SECTION_MIN * 3000  # one section: only the last chunk may be short
    chunks = chunk_text(text, TOK, 3000, 200)
    assert len(chunks) <= fixed_size_count(tokens) + 1
    assert all(c.tokens <= 3000 for c in chunks)
    assert all(c.tokens >= 3000 * (1 - WINDOW) for c in chunks[:-1])


def test_append_changes_only_the_last_chunk_or_two() -> None:
    text = transcript(2, 4000)  # ~100k tokens: more than one section
    before = chunk_text(text, TOK)
    after = chunk_text(text + transcript(3, 40), TOK)
    kept = set(after)
    assert sum(1 for c in before if c not in kept) <= 2
    assert after[: len(before) - 2] == before[:-2]


@pytest.mark.parametrize("make", [transcript, prose], ids=["transcript", "prose"])
def test_middle_edit_moves_few_cuts(make) -> None:  # type: ignore[no-untyped-def]
    text = make(4, 4000 if make is transcript else 1800)
    before = chunk_text(text, TOK)
    assert len(before) > 20
    sentence = "Someone added this sentence in the middle later on . "
    moved = []
    for frac in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        edited, at = insert_at_line(text, frac, sentence)
        after = chunk_text(edited, TOK)
        moved.append(moved_cuts(before, after, at, len(sentence)))
        changed = {c.text for c in after} - {c.text for c in before}
        assert len(changed) <= 2 + moved[-1]  # the edited chunk (two in an overlap), one per moved cut
    # Fixed-size windows move every cut after the edit (half of them on average, ~10 here).
    assert max(moved) <= 3
    assert sum(moved) <= 4


def _run(corpus: Path, out: Path) -> dict:  # type: ignore[type-arg]
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["files"][0]


def test_append_and_edit_redo_few_nodes(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    meeting = corpus / "meeting.txt"
    text = transcript(5, 3000)
    meeting.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    first = _run(corpus, out)
    assert first["level"] == "HIERARCHICAL" and first["chunks"] >= 15
    # Appending redoes the last chunk or two, their group and the final.
    meeting.write_text(text + transcript(6, 30), encoding="utf-8")
    appended = _run(corpus, out)
    assert appended["nodes_recomputed"] <= 5
    # A sentence in the middle: its chunk, its group and the final.
    edited, _ = insert_at_line(text + transcript(6, 30), 0.5, "Marketing: One more remark on the price .\n")
    meeting.write_text(edited, encoding="utf-8")
    assert _run(corpus, out)["nodes_recomputed"] <= 4


def test_cjk_text_is_cut_after_its_full_stops() -> None:
    # No spaces and no line breaks: only the full stops say where a sentence ends.
    text = "".join(f"第{i}回の会議では予算と日程について長い議論があり、結論は次回に持ち越された。" for i in range(400))
    chunks = chunk_text(text, TOK, 600, 50)
    assert len(chunks) > 5
    assert all(c.text.endswith("。") for c in chunks)
