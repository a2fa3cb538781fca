"""The committer's writer thread (LLM runs): node records and file commits leave the event loop but
keep their order, a record handed over is found before it is on disk, and a record that cannot be
written fails its file at commit, as it did when written on the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.config import RunConfig
from batchsum.engine.committer import Committer
from batchsum.engine.prepare import prepare_file
from batchsum.engine.records import NodeResult
from batchsum.model import SummaryOutput
from batchsum.planning import FilePlan
from batchsum.tokens import get_tokenizer
from batchsum.walk import SourceRef


def _plan(tmp_path: Path, cfg: RunConfig) -> FilePlan:
    src = tmp_path / "corpus" / "notes.md"
    src.parent.mkdir()
    src.write_text("The committee met on Tuesday and agreed on the budget.\n" * 20, encoding="utf-8")
    prepared = prepare_file(SourceRef(src, "notes.md", src.parent), cfg, get_tokenizer(cfg.encoding))
    assert prepared.plan is not None and prepared.plan.nodes
    return prepared.plan


def _results(plan: FilePlan, key: str) -> list[NodeResult]:
    out = SummaryOutput(text="They agreed on the budget.", backend="llm", model="m")
    return [NodeResult(n, out, f"{key}{i}", 10, 5, reused=False) for i, n in enumerate(plan.nodes)]


def test_writer_keeps_order_and_serves_pending_records(tmp_path: Path) -> None:
    cfg = RunConfig(paths=[tmp_path / "corpus"], out=tmp_path / "out", index=False, quiet=True)
    plan = _plan(tmp_path, cfg)
    committer = Committer(cfg, "20260101T000000Z-abcdef")
    committer.roots = {"notes.md": str(tmp_path / "corpus")}
    committer.start_writer()
    results = _results(plan, "aa" * 31)
    for r in results:
        committer.store_node(r.key, r.output)
        assert committer.stored(r.key) == r.output  # handed over: found whether or not it is written yet
    committed = committer.commit_later(plan, results).result(timeout=60)
    committer.stop_writer()
    assert committer.writer is None
    assert committed.entry.node_keys == {r.node.node_id: r.key for r in results}
    for r in results:
        assert committer.state.get_node(r.key) == r.output  # on disk, read back by a new lookup
    assert (cfg.out / "notes.md" / "summaries" / "L3" / "final.md").is_file()


def test_a_record_the_writer_cannot_write_fails_its_file(tmp_path: Path) -> None:
    cfg = RunConfig(paths=[tmp_path / "corpus"], out=tmp_path / "out", index=False, quiet=True)
    plan = _plan(tmp_path, cfg)
    committer = Committer(cfg, "20260101T000000Z-abcdef")
    committer.roots = {"notes.md": str(tmp_path / "corpus")}
    bucket = committer.state.nodes_dir / "bb"
    bucket.parent.mkdir(parents=True, exist_ok=True)
    bucket.write_text("a file where the records' folder belongs")
    committer.start_writer()
    results = _results(plan, "bb" * 31)
    for r in results:
        committer.store_node(r.key, r.output)
    with pytest.raises(OSError):
        committer.commit_later(plan, results).result(timeout=60)
    committer.stop_writer()
    assert "notes.md" not in committer.manifest
    assert not (cfg.out / "notes.md" / "summaries").exists()
