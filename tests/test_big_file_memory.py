"""One big file in bounded memory: planning holds no offset per token of the whole text, a planned
document holds its text once (chunks slice it when a request is built) and lets it go once every
chunk's request is built, a chunk sent to a worker carries only its own slice, and an executor builds
only a bounded number of leaf requests ahead of the workers that summarize them."""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
import random
import sys
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TypeVar

import pytest

import batchsum
from batchsum import tokens
from batchsum.chunking import chunk_text
from batchsum.config import RunConfig
from batchsum.engine.executor import Driver, LocalExecutor
from batchsum.engine.prepare import plan_document, prepare_file, read_source
from batchsum.model import Backend, Document, SummaryOutput, SummaryRequest
from batchsum.planning import FilePlan
from batchsum.tokens import get_tokenizer
from batchsum.walk import SourceRef

WORDS = "the committee met on tuesday and agreed plan library budget release team shipped notes".split()


def _book(path: Path, chars: int, seed: int = 5) -> None:
    """Prose with curly quotes, so Python holds it at 2 bytes a character, as most books."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        size = 0
        while size < chars:
            words = [rng.choice(WORDS) for _ in range(rng.randint(8, 30))]
            para = "\u201c" + " ".join(words).capitalize() + ".\u201d She\u2019d said so.\n\n"
            fh.write(para)
            size += len(para)


def test_a_planned_document_holds_its_text_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tokenized a piece at a time: a piece's own working memory (~30 bytes a character) is the same
    # for any file size; small pieces here, so what is measured is what grows with the file.
    monkeypatch.setattr(tokens, "PIECE_CHARS", 1 << 16)
    path = tmp_path / "book.txt"
    _book(path, 3_000_000)
    small = tmp_path / "small.txt"
    _book(small, 30_000)
    cfg = RunConfig(paths=[path], out=tmp_path / "out", index=False, quiet=True)
    tok = get_tokenizer(cfg.encoding)
    # A small file first: the modules and the tokenizer's tables it loads are not the big file's cost.
    prepare_file(SourceRef(small, small.name, small.parent), cfg, tok)
    tracemalloc.start()
    try:
        prepared = prepare_file(SourceRef(path, path.name, path.parent), cfg, tok)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    plan = prepared.plan
    assert plan is not None and len(plan.chunks) > 50
    text_bytes = sys.getsizeof(plan.doc.text)
    assert text_bytes > 2 * len(plan.doc.text)  # two bytes a character
    # The text, the nodes and nothing else: the chunks' texts were a second copy of it.
    assert held < 1.2 * text_bytes, (held, text_bytes)
    # Reading needs the bytes and the text at once, and the decoder a buffer of its own (~2.1x the
    # text); planning less (see the next test).
    assert peak < 2.3 * text_bytes, (peak, text_bytes)
    leaves = [n for n in plan.nodes if n.chunk is not None]
    assert leaves and all(n.text is None for n in leaves)
    assert all(n.chunk.text == plan.doc.text[n.chunk.start : n.chunk.end] for n in leaves if n.chunk)


def test_planning_holds_no_offset_per_token_of_the_whole_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "PIECE_CHARS", 1 << 14)  # a piece's own working memory: small here
    path = tmp_path / "book.txt"
    _book(path, 3_000_000)
    cfg = RunConfig(paths=[path], out=tmp_path / "out", index=False, quiet=True)
    tok = get_tokenizer(cfg.encoding)
    doc = read_source(SourceRef(path, path.name, path.parent), cfg)
    assert isinstance(doc, Document)
    plan_document(dataclasses.replace(doc, relpath="warm.txt", text=doc.text[:30_000]), cfg, tok)  # modules, tables
    tracemalloc.start()
    try:
        plan = plan_document(doc, cfg, tok)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(plan.chunks) > 50
    # Sentences and their token counts (~17 bytes a sentence), not a 4-byte offset per token.
    assert peak < 4 * doc.tokens, (peak, doc.tokens)


E = TypeVar("E", bound=LocalExecutor)


def _run_on(executor_class: type[E], cfg: RunConfig) -> E:
    """Run ``cfg`` on an executor of ``executor_class`` (the public executor seam); return that executor."""
    made: list[E] = []

    def factory(backend: Backend, fallback: Backend) -> E:
        made.append(executor_class(backend, fallback))
        return made[-1]

    result = batchsum.run(cfg, executor=factory)
    assert result.exit_code == 0
    return made[0]


class _Watching(LocalExecutor):
    """Keeps the plans it runs (the public executor seam)."""

    def __init__(self, backend: Backend, fallback: Backend) -> None:
        super().__init__(backend, fallback)
        self.plans: list[FilePlan] = []

    async def execute(self, plans: AsyncIterator[FilePlan], driver: Driver) -> None:
        async def kept() -> AsyncIterator[FilePlan]:
            async for plan in plans:
                self.plans.append(plan)
                yield plan

        await super().execute(kept(), driver)


@pytest.mark.parametrize("index", [False, True])
def test_a_document_lets_its_text_go_once_its_chunks_requests_are_built(tmp_path: Path, index: bool) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _book(corpus / "a.txt", 60_000)
    cfg = RunConfig(paths=[corpus], out=tmp_path / "out", index=index, quiet=True, chunk_size=300, chunk_overlap=30)
    (plan,) = _run_on(_Watching, cfg).plans
    assert len(plan.chunks) > 20
    # Without an index nothing needs it; the index keeps a small file's text for its spans.
    assert plan.text_released is not index
    assert (plan.doc.text == "") is not index
    if not index:
        with pytest.raises(RuntimeError, match="released"):
            _ = plan.chunks[0].text


def test_a_pickled_chunk_carries_its_own_slice_only() -> None:
    text = "One sentence here. " * 20_000
    chunks = chunk_text(text, get_tokenizer("cl100k_base"), 300, 30)
    assert len(chunks) > 10
    middle = chunks[len(chunks) // 2]
    copy = pickle.loads(pickle.dumps(middle))
    assert copy == middle and copy.text == text[middle.start : middle.end]
    assert len(pickle.dumps(middle)) < len(middle.text) + 200


class _CountingExecutor(LocalExecutor):
    """Counts the leaf requests built and not yet summarized (what the bound is for)."""

    leaves_ahead = 3

    def __init__(self, backend: Backend, fallback: Backend) -> None:
        super().__init__(backend, fallback)
        self.in_flight = 0
        self.most = 0
        self.leaves = 0

    async def compute(self, request: SummaryRequest) -> SummaryOutput:
        if request.chunk_index is not None:
            self.leaves += 1
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        try:
            for _ in range(3):  # let every other node task run meanwhile
                await asyncio.sleep(0)
            return await super().compute(request)
        finally:
            if request.chunk_index is not None:
                self.in_flight -= 1


def test_leaf_requests_are_built_a_bounded_number_ahead(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _book(corpus / "a.txt", 60_000, seed=1)
    _book(corpus / "b.txt", 60_000, seed=2)
    cfg = RunConfig(paths=[corpus], out=tmp_path / "out", index=False, quiet=True, chunk_size=300, chunk_overlap=30)
    executor = _run_on(_CountingExecutor, cfg)
    assert executor.leaves > 20
    assert executor.most == executor.leaves_ahead  # reached, never passed
