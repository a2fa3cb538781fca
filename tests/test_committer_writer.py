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


def _plan(tmp_path: Path, cfg: RunConfig, lines: int = 20) -> FilePlan:
    src = tmp_path / "corpus" / "notes.md"
    src.parent.mkdir()
    src.write_text("The committee met on Tuesday and agreed on the budget.\n" * lines, encoding="utf-8")
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


def _chunked(tmp_path: Path) -> tuple[RunConfig, FilePlan, Committer]:
    cfg = RunConfig(
        paths=[tmp_path / "corpus"], out=tmp_path / "out", index=False, quiet=True, chunk_size=120, chunk_overlap=10
    )
    plan = _plan(tmp_path, cfg, lines=1500)
    assert len(plan.nodes) > 3
    committer = Committer(cfg, "20260101T000000Z-abcdef")
    committer.roots = {"notes.md": str(tmp_path / "corpus")}
    committer.start_writer()
    return cfg, plan, committer


def test_nodes_of_a_new_tree_are_written_as_they_finish(tmp_path: Path) -> None:
    from batchsum.tree import iter_tree

    cfg, plan, committer = _chunked(tmp_path)
    results = _results(plan, "cc" * 31)
    leaves = [r for r in results if r.node.level < 3]
    for r in leaves:
        committer.write_node_later(plan, r)
    committer.writer.submit(lambda: None).result(timeout=60)  # type: ignore[union-attr]
    on_disk = {n.path for n in iter_tree(cfg.out)}
    assert len(on_disk) == len(leaves)  # written before the file is finished
    committed = committer.commit_later(plan, results).result(timeout=60)
    committer.stop_writer()
    tree = {n.path: (n.meta["node_key"], n.body) for n in iter_tree(cfg.out)}
    assert len(tree) == len(results)
    # What the commit hands on is what is on disk, nodes written early included.
    assert {n.path: (n.meta["node_key"], n.body) for n in committed.live} == tree


def test_a_failed_or_unfinished_file_leaves_no_early_nodes(tmp_path: Path) -> None:
    cfg, plan, committer = _chunked(tmp_path)
    results = _results(plan, "dd" * 31)
    committer.write_node_later(plan, results[0])
    committer.discard_later(plan)  # the file failed
    committer.writer.submit(lambda: None).result(timeout=60)  # type: ignore[union-attr]
    assert not (cfg.out / "notes.md").exists()
    committer.write_node_later(plan, results[1])  # a run that stops before the file is finished
    committer.stop_writer()
    assert not (cfg.out / "notes.md").exists() and cfg.out.is_dir()
