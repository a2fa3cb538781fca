"""The tree heals itself: a run restores node files that were deleted, broken or replaced."""

from __future__ import annotations

import json
import re
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


def test_a_final_edited_below_its_summary_is_restored_and_the_edit_kept_in_history(tmp_path: Path) -> None:
    """A note added under a final's links, or a task ticked off in its list, is an
    edit by hand like any other: the next run puts the final back and keeps the edited file in history/."""
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    day = (
        "We rowed out to buoy {n} at dawn and found its antenna bent by the night's gale. Jonas fixed it with "
        "a spare clamp and the readings came back before noon. In the afternoon the tide gauge at pier {n} "
        "drifted again, so we logged the levels by hand until the evening shift took over.\n\n"
        "## Tasks\n\n- [ ] Order two spare clamps for buoy {n}\n- [ ] Send the gauge logs to Marta\n"
    )
    for n in (1, 2):
        (src / f"2026-10-0{n}.md").write_text(day.format(n=n), encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--no-index", "--json"]
    assert CliRunner().invoke(main, args).exit_code == 0
    noted = out / "2026-10-01.md" / "summaries" / "L3" / "final.md"
    ticked = out / "2026-10-02.md" / "summaries" / "L3" / "final.md"
    written = {path: path.read_text(encoding="utf-8") for path in (noted, ticked)}
    assert "- ☐ Send the gauge logs to Marta" in written[ticked]  # a kept note as its reader sees it
    noted.write_text(written[noted] + "Call Jonas about the clamp invoice.\n", encoding="utf-8")
    ticked.write_text(written[ticked].replace("- ☐ Send the gauge", "- ☑ Send the gauge"), encoding="utf-8")

    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert {f["relpath"] for f in json.loads(res.stdout)["files"] if f["status"] == "done"} == {
        "2026-10-01.md",
        "2026-10-02.md",
    }
    stamp = re.compile(r"^created_at: .*$", re.MULTILINE)
    for path, text in written.items():
        assert stamp.sub("", path.read_text(encoding="utf-8")) == stamp.sub("", text)
        history = list((path.parent.parent / "history").glob("*.md"))
        assert len(history) == 1, path
    assert "Call Jonas" in next((noted.parent.parent / "history").glob("*.md")).read_text(encoding="utf-8")
    assert json.loads(CliRunner().invoke(main, args).stdout)["run"]["files_done"] == 0
