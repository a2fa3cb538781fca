"""``batchsum watch``'s own lines: a file the run skips is said once, as ``skipped:`` (it was said as
``failed:`` after every later run), and the stop lines say what happens to a run in progress."""

from __future__ import annotations

import signal
from pathlib import Path

from batchsum.lock import RunLock
from tests.test_watch import TEXT, Watching


def test_a_skipped_file_is_reported_once_as_skipped(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    (src / "binary.md").write_bytes(b"\x00\x01\x02binary\xff\xfe" * 50)
    w = Watching(src, out)
    try:
        w.expect("watching")
        for name, word in (("b.md", "ferry"), ("c.md", "quay")):
            (src / name).write_text("# Ferry\n\n" + TEXT.replace("pier", word), encoding="utf-8")
            w.expect("1 changed: ")
            w.expect(" in finals ")  # the run's last line: its problems were said before it
        said = [line for line in w.seen if "binary.md" in line]
        assert len(said) == 1 and "] skipped: " in said[0], w.seen
        assert all("1 skipped" in line for line in w.seen if " in finals " in line)
        (src / "binary.md").write_text("# Mended\n\n" + TEXT, encoding="utf-8")
        w.expect(" in finals ")
        (src / "binary.md").write_bytes(b"\x00broken again" * 50)  # a problem that came back is new again
        w.expect("binary.md: binary file")
    finally:
        w.proc.kill()
        w.proc.wait()


def test_sigterm_while_idle_says_stopping(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    w = Watching(src, out)
    try:
        w.expect("watching")
        w.proc.send_signal(signal.SIGTERM)
        assert w.expect("stopping").endswith("] stopping"), w.seen
        w.expect("stopped")
        assert w.proc.wait(timeout=30) == 0
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def test_a_second_signal_during_a_run_says_the_run_is_abandoned(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    lock = RunLock(out).acquire()  # another run's: the watcher's first run waits for it, in progress
    try:
        w = Watching(src, out, "--verbose")
        try:
            w.expect("is locked by")
            w.proc.send_signal(signal.SIGTERM)
            w.expect("stopping after the current run (signal again to abandon it)")
            w.proc.send_signal(signal.SIGTERM)
            line = w.expect("stopped")
            assert "the current run was abandoned" in line and "next start resumes it" in line, w.seen
            assert w.proc.wait(timeout=30) == 130
        finally:
            if w.proc.poll() is None:
                w.proc.kill()
                w.proc.wait()
    finally:
        lock.release()
