"""The tree heals itself: a run restores node files that were deleted, broken or replaced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node
from tests.conftest import SAMPLE_CORPUS


def _run(out: Path) -> dict[str, Any]:
    res = CliRunner().invoke(main, ["run", str(SAMPLE_CORPUS), "--out", str(out), "--no-index", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_deleted_broken_and_replaced_node_files_are_restored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(out)
    logbook = out / "logbook" / "harbor-logbook-2025-2026.md" / "summaries"
    chunk = logbook / "L1" / "chunk_3.md"
    chunk_text = chunk.read_text(encoding="utf-8")
    chunk.unlink()
    broken = out / "journal" / "2026-10-05.md" / "summaries" / "L3" / "final.md"
    good = broken.read_text(encoding="utf-8")
    broken.write_text("---\nid: [unclosed\n---\nscribbled over\n", encoding="utf-8")
    replaced = out / "journal" / "2026-10-07.md" / "summaries" / "L3" / "final.md"
    replaced.unlink()
    replaced.mkdir()
    (replaced / "stray.txt").write_text("someone's folder")

    data = _run(out)
    redone = {f["relpath"]: f for f in data["files"] if f["status"] == "done"}
    assert set(redone) == {"logbook/harbor-logbook-2025-2026.md", "journal/2026-10-05.md", "journal/2026-10-07.md"}
    # The logbook's nodes come from the node store: nothing is summarized again.
    assert redone["logbook/harbor-logbook-2025-2026.md"]["nodes_recomputed"] == 0
    assert chunk.read_text(encoding="utf-8").split("created_at")[0] == chunk_text.split("created_at")[0]
    assert read_node(chunk)[1] in chunk_text
    assert broken.read_text(encoding="utf-8").split("created_at")[0] == good.split("created_at")[0]
    meta, _ = read_node(replaced)
    assert meta["source_path"] == "journal/2026-10-07.md"
    moved = list((out / "journal" / "2026-10-07.md" / "deleted").rglob("stray.txt"))
    assert moved, "the folder in the way is moved aside, not destroyed"
    # Healed: the next run is quiet.
    assert _run(out)["run"]["files_done"] == 0
