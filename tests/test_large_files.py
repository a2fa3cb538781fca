"""Memory follows the file's text, not its token count: big files are tokenized in pieces."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import batchsum.tokens as tokens_mod
from batchsum.chunking import chunk_text
from batchsum.tokens import _pieces, get_tokenizer

REPO = Path(__file__).resolve().parent.parent


def _mixed_text(n_lines: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    words = "the committee met naïve café 日本語 🙂 on tuesday, agreed: plan. budget! 12.5% x=y (see) 'quoted'".split()
    ends = ["\n", "\n\n", "  \n", " \n\n  ", "\t\n", "\n\n\n", "\r\n"]
    return "".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(0, 40))) + rng.choice(ends) for _ in range(n_lines)
    )


def test_pieces_cover_the_text_and_end_before_a_non_space() -> None:
    text = _mixed_text(3000)
    spans = _pieces(text, 2000)
    assert len(spans) > 10
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (_, a_end), (b_start, _) in itertools.pairwise(spans):
        assert a_end == b_start
        assert text[a_end - 1] == "\n" and not text[a_end].isspace()


def test_piecewise_token_starts_equal_whole_text_tokenization(monkeypatch) -> None:
    tok = get_tokenizer("cl100k_base")
    text = _mixed_text(4000)
    whole = list(tok.token_starts(text))  # below PIECE_CHARS: one piece
    assert len(whole) == tok.count(text)
    for size in (64, 1000, 7777):
        monkeypatch.setattr(tokens_mod, "PIECE_CHARS", size)
        assert list(tok.token_starts(text)) == whole, size


def test_token_starts_step_by_each_tokens_own_length() -> None:
    """Each token starts where the one before it ends, whatever part of the vocabulary the text uses."""
    tok = get_tokenizer("cl100k_base")
    docs = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
    text = "".join(p.read_text(encoding="utf-8") for p in docs).encode("ascii", "ignore").decode()
    tokens = tok.encode(text)
    assert len(set(tokens)) > 5_000  # thousands of different tokens
    starts = list(tok.token_starts(text))
    assert starts[0] == 0 and len(starts) == len(tokens)
    ends = [*starts[1:], len(text)]
    assert [e - s for s, e in zip(starts, ends, strict=True)] == [len(tok.decode([t])) for t in tokens]


def test_chunks_are_the_same_whatever_the_piece_size(monkeypatch) -> None:
    """Units are built a piece at a time; no sentence crosses a piece's end, so the cuts are those of the whole text."""
    tok = get_tokenizer("cl100k_base")
    text = _mixed_text(1500)
    settings = [(300, 30), (120, 100), (500, 0)]  # 120/100: lines longer than a chunk's new content
    whole = [chunk_text(text, tok, size, overlap) for size, overlap in settings]  # one piece
    assert all(len(chunks) > 20 for chunks in whole)
    for piece in (64, 1000):
        monkeypatch.setattr(tokens_mod, "PIECE_CHARS", piece)
        assert [chunk_text(text, tok, size, overlap) for size, overlap in settings] == whole, piece


PROBE = """
import resource, sys
from pathlib import Path
from batchsum.config import RunConfig
from batchsum.planning import plan_file
from batchsum.tokens import get_tokenizer
from batchsum.walk import SourceRef, read_document
path = Path(sys.argv[1])
tok = get_tokenizer("cl100k_base")
tok.count("warm up")  # the encoding's own tables are not the file's cost
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
doc = read_document(SourceRef(path, path.name, path.parent))
plan = plan_file(doc, RunConfig(paths=[path]), tok)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(doc.tokens, len(plan.nodes), base, peak)
"""


def test_reading_tokenizing_and_planning_a_big_file_stays_near_its_size(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = "the committee met on tuesday and agreed plan library budget release team shipped notes".split()
    path = tmp_path / "big.txt"
    with open(path, "w", encoding="utf-8") as fh:
        size = 0
        while size < 24_000_000:
            para = " ".join(rng.choice(words) for _ in range(120)).capitalize() + ".\n\n"
            fh.write(para)
            size += len(para)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    n_tokens, n_nodes, base_kib, peak_kib = (int(x) for x in proc.stdout.split())
    assert n_tokens > 3_500_000 and n_nodes > 1000
    grown_mb = (peak_kib - base_kib) / 1024
    # The file (24 MB of text) is held as bytes, then as text, plus its chunks and its sentence table
    # (planning tokenizes a piece of the text at a time: no offset per token of the whole text). A list
    # of Python ints per token alone was ~36 bytes a token (~130 MB here), and tiktoken's own list as
    # much again.
    assert grown_mb < 170, f"read+tokenize+plan of a 24 MB file grew RSS by {grown_mb:.0f} MB"
