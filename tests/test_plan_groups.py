"""The HIERARCHICAL plan: every L2 groups L1 chunks only, in source order, each chunk exactly once."""

from __future__ import annotations

from pathlib import Path

from batchsum.config import RunConfig
from batchsum.planning import plan_file
from batchsum.tokens import get_tokenizer
from batchsum.walk import discover, read_document


def test_a_partial_last_group_holds_only_its_own_chunks(tmp_path: Path) -> None:
    words = "harbor buoy battery tide storm calibration turbidity mooring swell panel".split()
    sentences = [
        f"Entry {i}: the {words[i % 10]} and the {words[(i * 3) % 10]} were checked today." for i in range(4000)
    ]
    (tmp_path / "log.txt").write_text("\n\n".join(sentences), encoding="utf-8")
    tok = get_tokenizer()
    doc = read_document(discover([tmp_path]).refs[0])
    cfg = RunConfig(paths=[tmp_path], chunk_size=1000, chunk_overlap=0, group_size=5)
    plan = plan_file(doc, cfg, tok)
    l1 = [n.node_id for n in plan.nodes if n.level == 1]
    groups = [n for n in plan.nodes if n.level == 2]
    assert len(l1) % 5 != 0 and len(groups) >= 3  # the last group is partial
    assert [i for g in groups for i in g.inputs] == l1
