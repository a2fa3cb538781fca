"""``batchsum watch``: a burst closes only after ``--debounce`` with no change event at all (a file
appended to every second is run once, when it is quiet); a watched folder that vanishes stops no run
of the others and keeps its summaries; an edit of ``.batchsumignore`` starts a run."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from watchfiles import Change

from batchsum.watch import MAX_BURST_MS, Burst
from tests.test_watch import TEXT, Watching, wait_for


def test_a_burst_stays_open_while_one_file_is_still_being_written() -> None:
    """Six appends a second apart to the same file (the set of changed paths never grows): the burst is
    closed once, ``--debounce`` after the last append (it closed while the file was being written)."""
    burst = Burst(2000, MAX_BURST_MS)
    change = {(Change.modified, "/meet/slow2.md")}
    closed_at = []
    for tick in range(0, 12_000, 100):  # a fake clock in ms, checked as the watcher checks it
        if tick <= 5000 and tick % 1000 == 0:
            burst.add(change, tick)
        burst.add(set(), tick)  # a tick with no event adds none
        if burst.closed(tick):
            assert burst.take() == change
            closed_at.append(tick)
    assert closed_at == [7000]
    assert not burst.closed(20_000)  # taken: nothing left to run for


def test_a_burst_that_never_pauses_closes_after_the_longest() -> None:
    burst = Burst(2000, 10_000)
    closed_at = []
    for tick in range(0, 30_000, 500):  # a log written twice a second, for good
        burst.add({(Change.modified, "/log.md")}, tick)
        if burst.closed(tick):
            burst.take()
            closed_at.append(tick)
    assert closed_at == [10_000, 20_500]


def test_a_vanished_folder_stops_no_run_of_the_other_and_keeps_its_summaries(tmp_path: Path) -> None:
    r1, r2, out = tmp_path / "r1", tmp_path / "r2", tmp_path / "out"
    r1.mkdir()
    r2.mkdir()
    (r1 / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    (r2 / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
    w = Watching(r1, out, str(r2))
    try:
        w.expect("watching")
        kept = out / "r2" / "b.md" / "summaries" / "L3" / "final.md"
        assert kept.is_file()
        r2.rename(tmp_path / "r2.gone")
        w.expect("come back")
        w.expect("watching")
        (r1 / "c.md").write_text("# Storm\n\n" + TEXT.replace("storm", "gale"), encoding="utf-8")
        wait_for(lambda: (out / "r1" / "c.md" / "summaries" / "L3" / "final.md").is_file())
        assert kept.is_file() and not (out / "r2" / "b.md" / "deleted").exists()  # not a deletion
        (tmp_path / "r2.gone").rename(r2)
        w.expect("watching")
        w.proc.send_signal(signal.SIGTERM)
        assert w.proc.wait(timeout=30) == 0
        assert kept.is_file() and not (out / "r2" / "b.md" / "deleted").exists()
        assert not [line for line in w.seen if "run failed" in line], w.seen
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def test_an_edit_of_the_ignore_file_starts_a_run(tmp_path: Path) -> None:
    """Newly ignored files leave the output at once (they stayed until an unrelated change)."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "notes").mkdir(parents=True)
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    (src / "notes" / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
    w = Watching(src, out)
    try:
        w.expect("watching")
        assert (out / "notes" / "b.md" / "summaries" / "L3" / "final.md").is_file()
        (src / ".batchsumignore").write_text("notes/\n", encoding="utf-8")
        assert w.expect("changed: ").endswith(os.path.relpath(src / ".batchsumignore"))
        w.expect(" in finals ")  # the run's own line: it has written the tree and index.md
        assert not (out / "notes" / "b.md" / "summaries").exists()
        assert "b.md" not in (out / "index.md").read_text(encoding="utf-8")
        assert (out / "a.md" / "summaries" / "L3" / "final.md").is_file()
    finally:
        w.proc.kill()
        w.proc.wait()
