"""``batchsum watch``: a watched folder replaced by an empty one and refilled a moment later keeps its
summaries, and temp files that come and go (vim's ``4913`` probe, ``sed -i``'s ``sedAb12Cd``, a file deleted
right after it was made) start no run and are never reported deleted, but a file saved by a rename and then
moved away in the same burst is."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

from tests.test_watch import TEXT, Watching, wait_for


def test_a_folder_replaced_and_refilled_keeps_its_summaries(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, word in (("a.md", "pier"), ("b.md", "ferry")):
        (src / name).write_text("# Notes\n\n" + TEXT.replace("pier", word), encoding="utf-8")
    w = Watching(src, out, "--debounce", "8s")  # the two copies below land well within it
    try:
        w.expect("watching")
        final = out / "a.md" / "summaries" / "L3" / "final.md"
        assert final.is_file()
        src.rename(tmp_path / "src_old")
        w.expect("come back")
        src.mkdir()
        w.expect("is empty")  # the new, empty folder is watched: no run yet
        for p in (tmp_path / "src_old").iterdir():
            shutil.copy2(p, src / p.name)
        line = w.expect("unchanged")  # the starting run, once the refill is over
        assert "deleted" not in line and not [s for s in w.seen if "deleted" in s], w.seen
        assert final.is_file()
        w.proc.send_signal(signal.SIGTERM)
        assert w.proc.wait(timeout=30) == 0
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def test_temp_files_that_come_and_go_start_no_run_and_are_never_deleted(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    w = Watching(src, out)
    try:
        w.expect("watching")
        probe = src / "4913"  # vim checks it may write the folder
        probe.write_bytes(b"")
        probe.unlink()
        (src / "README").write_text("no extension: the walk never reads it\n", encoding="utf-8")
        brief = src / "brief.md"
        brief.write_text("# Gone\n\n" + TEXT, encoding="utf-8")
        brief.unlink()
        temp = src / "sedAb12Cd"  # sed -i writes the new text beside the file, then renames it over it
        temp.write_text("# Pier\n\n" + TEXT.replace("pier", "jetty"), encoding="utf-8")
        os.replace(temp, src / "a.md")
        line = w.expect("changed: ")
        assert line.endswith(f"1 changed: {os.path.relpath(src / 'a.md')}"), w.seen
        w.expect(" summarized, ")  # its run
        (src / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
        wait_for(lambda: (out / "b.md" / "summaries" / "L3" / "final.md").is_file())
        assert not [s for s in w.seen if "deleted" in s or "README" in s], w.seen
    finally:
        w.proc.kill()
        w.proc.wait()


def test_a_file_saved_by_rename_then_moved_out_in_one_burst_is_deleted(tmp_path: Path) -> None:
    src, out, archive = tmp_path / "src", tmp_path / "out", tmp_path / "archive"
    src.mkdir()
    archive.mkdir()
    for name, word in (("a.md", "pier"), ("b.md", "ferry")):
        (src / name).write_text("# Notes\n\n" + TEXT.replace("pier", word), encoding="utf-8")
    w = Watching(src, out, "--debounce", "8s")  # the save and the move below land within one burst
    try:
        w.expect("watching")
        final = out / "a.md" / "summaries" / "L3" / "final.md"
        assert final.is_file()
        temp = src / "sedAb12Cd"  # sed -i: the new text beside the file, renamed over it
        temp.write_text("# Notes\n\n" + TEXT.replace("pier", "jetty"), encoding="utf-8")
        os.replace(temp, src / "a.md")
        os.replace(src / "a.md", archive / "a.md")
        line = w.expect("deleted: ")  # the last run read a.md: gone now, whatever came before in the burst
        assert line.endswith(f"1 deleted: {os.path.relpath(src / 'a.md')}"), w.seen
        w.expect(" summarized, ")
        wait_for(lambda: not final.is_file())
    finally:
        w.proc.kill()
        w.proc.wait()
