"""``batchsum watch`` as a real process: a dropped file is summarized, a deleted one soft-deleted, a bad
file reported while watching goes on, the lock is free between runs, SIGTERM ends it cleanly."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from batchsum.errors import ConfigError
from batchsum.lock import RunLock, read_lock_info
from batchsum.watch import parse_duration_ms
from tests.fakeserver import FakeLLMServer

REPO = Path(__file__).resolve().parent.parent
TEXT = (
    "The harbour committee met on Tuesday to plan the winter maintenance of the northern pier. "
    "Marta Olsen reported that two mooring rings are cracked and must be replaced before the first storm. "
    "The committee agreed to order new rings from the foundry in Bergen and to close the pier for three days. "
    "Jonas will inform the fishing crews and post a notice at the harbour office. "
    "The budget for the repairs was set at four thousand euros, to be reviewed in January. "
    "After the meeting the harbour master walked the length of the pier with the engineer from the council. "
    "They found loose planks near the fuel station and agreed that the lighting should be checked as well. "
)


class Watching:
    """A running ``batchsum watch`` with its output lines collected by a thread."""

    def __init__(self, src: Path, out: Path, *extra: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        cmd = [sys.executable, "-m", "batchsum", "watch", str(src), "--out", str(out), "--debounce", "300ms",
               "--no-index", "--no-metrics", *extra]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, fragment: str, timeout: float = 60.0) -> str:
        """Wait for an output line containing ``fragment``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.proc.poll() is None, f"watch exited early: {self.seen}"
                continue
            self.seen.append(line)
            if fragment in line:
                return line
        raise AssertionError(f"no line with {fragment!r} in {self.seen}")


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[tuple[Path, Path, Watching]]:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    w = Watching(src, out)
    try:
        yield src, out, w
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()


def wait_for(check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {check}")


def test_watch_summarizes_new_files_soft_deletes_removed_ones_and_stops_cleanly(
    watching: tuple[Path, Path, Watching],
) -> None:
    src, out, w = watching
    w.expect("watching")
    assert (out / "a.md" / "summaries" / "L3" / "final.md").is_file()
    # Between runs the output is not locked: anyone may take the lock.
    with RunLock(out):
        pass

    (src / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
    w.expect("1 changed: ")
    wait_for(lambda: (out / "b.md" / "summaries" / "L3" / "final.md").is_file())

    # A file that cannot be read is reported; watching goes on and the next file is summarized.
    (src / "bad.md").write_bytes(b"\x00\x01\x02binary\xff\xfe" * 50)
    w.expect("skipped: ")  # as the run counts it
    assert "bad.md" in w.seen[-1]
    (src / "c.md").write_text("# Storm\n\n" + TEXT.replace("storm", "gale"), encoding="utf-8")
    wait_for(lambda: (out / "c.md" / "summaries" / "L3" / "final.md").is_file())

    (src / "b.md").unlink()
    # The first line to name a deletion is the watcher's own, before the run's: a deletion, not a change.
    assert w.expect("deleted").endswith(f"1 deleted: {os.path.relpath(src / 'b.md')}")
    wait_for(lambda: not (out / "b.md" / "summaries").exists())
    assert list((out / "b.md" / "deleted").glob("*/summaries/L3/final.md"))
    w.expect("1 deleted")
    index = (out / "index.md").read_text(encoding="utf-8")  # written before the run reports
    assert "b.md" not in index and "files: 2" in index  # the index page lists live sources only

    w.proc.send_signal(signal.SIGTERM)
    assert w.proc.wait(timeout=30) == 0
    assert not read_lock_info(out / ".batchsum" / "lock")
    with RunLock(out):  # nothing holds it
        pass


def test_watch_sigint_exits_cleanly(watching: tuple[Path, Path, Watching]) -> None:
    _src, out, w = watching
    w.expect("watching")
    w.proc.send_signal(signal.SIGINT)
    assert w.proc.wait(timeout=30) == 0
    assert any("stopped" in line for line in [*w.seen, *list(w.lines.queue)])
    assert not read_lock_info(out / ".batchsum" / "lock")


def test_watch_takes_the_options_of_a_runs_summary_requests(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    """A watched folder keeps a hosted API's limits and the run's prompts and fallbacks (the docs said
    watch takes run's LLM options; --tpm, --prompts, --fallback-model, --on-error were refused)."""
    src, out, prompts = tmp_path / "src", tmp_path / "out", tmp_path / "prompts"
    src.mkdir()
    prompts.mkdir()
    (prompts / "brief.txt").write_text("CUSTOM-BRIEF for a {content_type}:\n{content}\nOne line:")
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    fake_llm.configure(any_model=True)
    w = Watching(src, out, "--base-url", fake_llm.base_url, "--model", "m", "--fallback-model", "m2",
                 "--tpm", "100000", "--on-error", "fail", "--prompts", str(prompts), "--no-facets")  # fmt: skip
    try:
        w.expect("watching")
        assert any("CUSTOM-BRIEF for a document:" in e.messages[1]["content"] for e in fake_llm.log)
    finally:
        w.proc.send_signal(signal.SIGTERM)
        assert w.proc.wait(timeout=30) == 0


def test_watch_needs_existing_paths(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "batchsum", "watch", str(tmp_path / "nope"), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_parse_duration() -> None:
    assert [parse_duration_ms(v) for v in ("2s", "500ms", "1.5", "1m")] == [2000, 500, 1500, 60000]
    with pytest.raises(ConfigError):
        parse_duration_ms("soon")


def test_a_burst_names_deleted_sources_as_deleted(tmp_path: Path) -> None:
    from watchfiles import Change

    from batchsum.watch import describe_changes

    kept, gone, saved = (tmp_path / n for n in ("kept.md", "gone.md", "saved.md"))
    kept.write_text("x", encoding="utf-8")
    saved.write_text("x", encoding="utf-8")  # an editor's save: deleted and written again in one burst
    changes = {(Change.modified, str(kept)), (Change.deleted, str(gone)),
               (Change.deleted, str(saved)), (Change.added, str(saved))}  # fmt: skip
    rel = os.path.relpath
    assert describe_changes(changes) == f"2 changed: {rel(kept)}, {rel(saved)}; 1 deleted: {rel(gone)}"
    assert describe_changes({(Change.deleted, str(gone))}) == f"1 deleted: {rel(gone)}"


def test_watch_ends_with_a_usage_error_at_the_first_run(tmp_path: Path) -> None:
    """An --out inside the watched folder can never work: watch exits 2 as run does (it watched forever)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "batchsum", "watch", str(src), "--out", str(src / "o"), "--no-index", "--no-metrics"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and "inside the corpus" in result.stderr
    assert "still watching" not in result.stderr


def test_watch_called_from_python_gives_back_the_callers_signal_handlers(tmp_path: Path) -> None:
    """The CLI called in process (a script, a test) ends with the caller's SIGINT/SIGTERM handlers, not watch's."""
    from click.testing import CliRunner

    from batchsum.cli import main

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")

    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not called")

    before = signal.signal(signal.SIGINT, mine), signal.signal(signal.SIGTERM, mine)
    try:
        args = ["watch", str(src), "--out", str(src / "o"), "--no-index", "--no-metrics"]
        result = CliRunner().invoke(main, args)  # a usage error at the first run ends the watch
        assert result.exit_code == 2 and "inside the corpus" in result.output
        assert signal.getsignal(signal.SIGINT) is mine and signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


def test_watch_follows_a_watched_folder_that_is_deleted_and_made_again(
    watching: tuple[Path, Path, Watching],
) -> None:
    """A sync tool or ``git checkout`` replaces the folder: its OS watch is gone, so the watcher waits for
    it and watches the new one (it stayed deaf for good)."""
    src, out, w = watching
    w.expect("watching")
    shutil.rmtree(src)
    w.expect("come back")
    src.mkdir()
    (src / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
    wait_for(lambda: (out / "b.md" / "summaries" / "L3" / "final.md").is_file())
    (src / "c.md").write_text("# Storm\n\n" + TEXT.replace("storm", "gale"), encoding="utf-8")
    wait_for(lambda: (out / "c.md" / "summaries" / "L3" / "final.md").is_file())
    w.proc.send_signal(signal.SIGTERM)
    assert w.proc.wait(timeout=30) == 0
