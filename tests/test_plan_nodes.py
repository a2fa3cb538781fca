"""``plan`` predicts the nodes a run records: a file kept whole (level NONE) is one node, reused when its
final is already written (plan left it out, and said 0 nodes to build where the run built 1)."""

from __future__ import annotations

from pathlib import Path

import batchsum

PIER = (
    "The harbour committee met on Tuesday to plan the winter maintenance of the northern pier. "
    "Marta Olsen reported that two mooring rings are cracked and must be replaced before the first storm. "
    "The committee agreed to order new rings from the foundry and to close the pier for three days. "
)


def _agree(src: Path, out: Path, **options: object) -> tuple[int, int]:
    """Plan, then run: the plan's nodes and stored nodes are the run's computed plus reused, and reused."""
    opts = {"out": out, "index": False, "metrics": False, **options}
    planned = batchsum.plan([src], **opts)
    done = batchsum.run([src], **opts).run
    assert (planned.nodes, planned.nodes_stored) == (done.nodes_computed + done.nodes_reused, done.nodes_reused)
    return planned.nodes, planned.nodes_stored


def test_plan_counts_the_node_of_a_file_kept_whole_as_the_run_does(tmp_path: Path) -> None:
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    (src / "2025-03-15.md").write_text("Short note about the tapir fence.\n", encoding="utf-8")
    (src / "harbour.md").write_text("# Pier\n\n" + PIER * 30, encoding="utf-8")
    nodes, stored = _agree(src, out)
    assert nodes >= 2 and stored == 0
    # The next night plans every file again (another chunk size): the kept-whole final is reused.
    (src / "2025-03-16.md").write_text("Another short note: the fence holds.\n", encoding="utf-8")
    nodes, stored = _agree(src, out, chunk_size=1000)
    assert stored >= 1
