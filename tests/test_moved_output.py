"""An output folder moved or copied with its files' times kept (``mv``, ``cp -a``, ``rsync -a``) counts its
finals as intact, so nothing is summarized again; the run from the new place rewrites their Source links,
which are relative to where the folder was."""

from __future__ import annotations

import json
import os
import re
import shutil
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
    (root / "tap.md").write_text("The plumber came on Tuesday and fixed the kitchen tap.\n" * 6, encoding="utf-8")
    return root


def _run(src: Path, out: Path) -> dict[str, Any]:
    args = ["run", str(src), "--out", str(out), "--no-index", "--no-digests", "--json"]
    res = CliRunner().invoke(main, [*args, "--chunk-size", "2000", "--chunk-overlap", "50"])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _statuses(data: dict[str, Any]) -> set[str]:
    return {f["status"] for f in data["files"]}


def _source_links(out: Path) -> list[tuple[Path, str]]:
    """Every node file's Source link target, with the node file."""
    nodes = [n for n in out.rglob("summaries/L*/*.md") if "deleted" not in n.parts]
    return [(n, t) for n in nodes for t in _SOURCE.findall(n.read_text(encoding="utf-8"))]


def _dead(out: Path) -> list[str]:
    links = _source_links(out)
    assert len(links) > 3, "every node names its source"
    return [f"{n}: {t}" for n, t in links if not (n.parent / unquote(t)).is_file()]


def test_an_output_folder_copied_with_its_times_relinks_without_summarizing(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(src, out)
    copy = tmp_path / "deep" / "a" / "outm"
    shutil.copytree(out, copy, symlinks=True)  # copy2: the files' times kept, as cp -a does
    data = _run(src, copy)
    assert _statuses(data) == {"unchanged"}, "nothing summarized again"
    assert not _dead(copy)
    assert not _dead(out), "the original is left as it was"


def test_a_moved_output_folder_relinks_touched_files_too(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path / "notes"), tmp_path / "out"
    _run(src, out)
    moved = tmp_path / "archive" / "out2"
    moved.parent.mkdir()
    out.rename(moved)
    st = (src / "fence.md").stat()
    os.utime(src / "fence.md", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched: read again, same text
    data = _run(src, moved)
    assert "summarized" not in _statuses(data) and "changed" not in _statuses(data)
    assert not _dead(moved)
    links = _source_links(moved)
    data = _run(src, moved)  # settled: the next run from here rewrites nothing
    assert _statuses(data) == {"unchanged"}
    assert _source_links(moved) == links


def _links_ok(out: Path) -> bool:
    finals = list(out.rglob("summaries/L3/final.md"))
    targets = [
        (f.parent / unquote(m.group(1))).resolve()
        for f in finals
        for m in _SOURCE.finditer(f.read_text(encoding="utf-8"))
    ]
    return bool(targets) and all(t.is_file() for t in targets)


def test_a_folder_of_two_corpora_records_each_ones_place(tmp_path: Path) -> None:
    """Two nightly jobs write one folder, each with its own corpus: each records where its links were written
    from, so an unchanged night rewrites nothing (every night had relinked and saved every entry again), and a
    moved folder relinks each corpus when it is run."""
    a, b = _corpus(tmp_path / "a"), tmp_path / "b"
    b.mkdir()
    (b / "kettle.md").write_text("The kettle broke and we bought a new one at the market.\n" * 6, encoding="utf-8")
    out = tmp_path / "out"
    _run(a, out)
    _run(b, out)
    manifest = out / ".batchsum" / "manifest.json"
    before = manifest.stat().st_mtime_ns
    assert _statuses(_run(a, out)) == {"unchanged"}
    assert manifest.stat().st_mtime_ns == before  # nothing relinked, nothing saved
    moved = tmp_path / "deep" / "moved"
    moved.parent.mkdir()
    shutil.copytree(out, moved, copy_function=shutil.copy2)
    assert _statuses(_run(a, moved)) == {"unchanged"}
    moved_manifest = moved / ".batchsum" / "manifest.json"
    relinked = moved_manifest.stat().st_mtime_ns
    assert _statuses(_run(a, moved)) == {"unchanged"}
    assert moved_manifest.stat().st_mtime_ns == relinked  # a's links were rewritten once, not every night
    assert _statuses(_run(b, moved)) == {"unchanged"}
    assert _links_ok(moved)
