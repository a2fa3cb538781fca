"""A corpus reached by another path (its folder moved or renamed, or given through a symlink) keeps its
summaries, and the run records where its files are now: a file deleted there later is noticed, and the
unchanged summaries' Source links point at the files where they are."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from click.testing import CliRunner

from batchsum.cli import main

_SOURCE = re.compile(r"^Source: \[[^\]]*\]\(<([^>]*)>\)$", re.M)


def _corpus(root: Path) -> Path:
    root.mkdir()
    days = [f"On day {i} I walked to the harbour, counted {i} boats and wrote letter {i} home." for i in range(800)]
    (root / "long.md").write_text(" ".join(days) + "\n", encoding="utf-8")  # several chunks: L1 nodes too
    (root / "fence.md").write_text("We chose cedar for the garden fence. Bob orders planks.\n" * 6, encoding="utf-8")
    (root / "gone.md").write_text("The plumber came on Tuesday and fixed the kitchen tap.\n" * 6, encoding="utf-8")
    return root


def _run(src: Path, out: Path) -> dict[str, Any]:
    args = [
        "run",
        str(src),
        "--out",
        str(out),
        "--no-index",
        "--no-digests",
        "--json",
        "--chunk-size",
        "2000",
        "--chunk-overlap",
        "50",
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _by_status(data: dict[str, Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in data["files"]:
        out.setdefault(f["status"], set()).add(f["relpath"])
    return out


def _dead_source_links(out: Path) -> list[str]:
    """Node files whose Source link does not lead to a file."""
    dead = []
    for node in (n for n in out.rglob("summaries/L*/*.md") if "deleted" not in n.parts):
        for target in _SOURCE.findall(node.read_text(encoding="utf-8")):
            if not (node.parent / unquote(target)).is_file():
                dead.append(f"{node}: {target}")
    return dead


def test_a_moved_folder_keeps_its_summaries_and_notices_a_later_deletion(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(src, out)
    moved = src.rename(tmp_path / "notes2")
    data = _run(moved, out)
    assert _by_status(data) == {"unchanged": {"long.md", "fence.md", "gone.md"}}, "nothing summarized again"
    assert not _dead_source_links(out)
    assert any(out.rglob("long.md/summaries/L1/*.md")), "the L1 nodes were checked too"
    (moved / "gone.md").unlink()
    data = _run(moved, out)
    assert _by_status(data) == {"unchanged": {"long.md", "fence.md"}, "deleted": {"gone.md"}}
    assert not (out / "gone.md" / "summaries").exists()
    assert "gone.md" not in (out / "index.md").read_text(encoding="utf-8")


def test_a_file_deleted_as_its_folder_moved_is_noticed_by_that_run(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(src, out)
    moved = src.rename(tmp_path / "renamed")
    (moved / "gone.md").unlink()
    data = _run(moved, out)
    assert _by_status(data) == {"unchanged": {"long.md", "fence.md"}, "deleted": {"gone.md"}}


def test_a_folder_given_through_a_symlink_notices_a_deletion(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(src, out)
    link = tmp_path / "notes-link"
    os.symlink(src, link)
    (src / "gone.md").unlink()
    data = _run(link, out)
    assert _by_status(data) == {"unchanged": {"long.md", "fence.md"}, "deleted": {"gone.md"}}
    assert not _dead_source_links(out)


def test_another_corpus_in_the_same_output_is_not_taken_for_a_moved_one(tmp_path: Path) -> None:
    # A second folder sharing one name with the first: its run must not delete the first one's other files.
    first, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(first, out)
    other = tmp_path / "other"
    other.mkdir()
    (other / "fence.md").write_text("Another fence, of pine, in another garden.\n" * 6, encoding="utf-8")
    data = _run(other, out)
    assert "deleted" not in _by_status(data)
    assert (out / "long.md" / "summaries" / "L3" / "final.md").is_file()
