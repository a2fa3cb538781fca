"""``batchsum watch``: a folder event matters only through the files under it. An empty folder made or
removed starts no run; a folder renamed or moved in is reported as the files the run reads in it (it
was named as a changed or deleted "file", and an empty one started a full no-op run)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_watch import TEXT, Watching, wait_for


def _final(out: Path, rel: str) -> Path:
    return out / rel / "summaries" / "L3" / "final.md"


def test_folder_events_are_reported_as_their_files_and_an_empty_folder_starts_no_run(tmp_path: Path) -> None:
    src, out, outside = tmp_path / "src", tmp_path / "out", tmp_path / "outside"
    (src / "notes").mkdir(parents=True)
    (outside / "fold").mkdir(parents=True)
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    (src / "notes" / "c.md").write_text("# Storm\n\n" + TEXT.replace("storm", "gale"), encoding="utf-8")
    (outside / "fold" / "x.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
    rel = os.path.relpath
    w = Watching(src, out)
    try:
        w.expect("watching")
        runs = sum(" in finals " in line for line in w.seen)
        # Empty folders, then a file: had the folders counted, a line naming them comes first or with it.
        (src / "emptydir" / "sub").mkdir(parents=True)
        (src / "b.md").write_text("# Quay\n\n" + TEXT.replace("pier", "quay"), encoding="utf-8")
        assert w.expect("changed: ").endswith(f"1 changed: {rel(src / 'b.md')}"), w.seen
        w.expect(" in finals ")

        (src / "notes").rename(src / "notes2")  # no event names the files in it
        line = w.expect("changed: ")
        assert line.endswith(f"1 changed: {rel(src / 'notes2' / 'c.md')}; 1 deleted: {rel(src / 'notes' / 'c.md')}")
        wait_for(lambda: _final(out, "notes2/c.md").is_file())

        (outside / "fold").rename(src / "fold")  # moved in from outside: one event, for the folder
        assert w.expect("changed: ").endswith(f"1 changed: {rel(src / 'fold' / 'x.md')}"), w.seen
        wait_for(lambda: _final(out, "fold/x.md").is_file())
        w.expect(" in finals ")

        (src / "emptydir" / "sub").rmdir()
        (src / "emptydir").rmdir()
        (src / "d.md").write_text("# Dock\n\n" + TEXT.replace("pier", "dock"), encoding="utf-8")
        assert w.expect("changed: ").endswith(f"1 changed: {rel(src / 'd.md')}"), w.seen
        w.expect(" in finals ")
        # One run per reported burst: the start, b.md, the rename, the move, d.md.
        assert sum(" in finals " in line for line in w.seen) == runs + 4
        assert not [s for s in w.seen if "emptydir" in s], w.seen
    finally:
        w.proc.kill()
        w.proc.wait()
