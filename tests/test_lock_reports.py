"""Another run holding the output folder (a harmless overlap of nightly jobs) is silent under --quiet: the
exit code says it, --json prints its error object, the event log records it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

REPO = Path(__file__).resolve().parent.parent

HOLDER = """
import sys
from pathlib import Path
from batchsum.lock import RunLock
lock = RunLock(Path(sys.argv[1])).acquire()
print("locked", flush=True)
sys.stdin.readline()  # hold until the test says so
lock.release()
"""


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "fence.md").write_text("We chose cedar for the garden fence. Bob orders planks.\n" * 6, encoding="utf-8")
    return corpus


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """An output folder another process holds the lock of."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield out
    finally:
        proc.stdin.close()
        proc.wait()


def _run(tmp_path: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    args = ["run", str(_corpus(tmp_path)), "--out", str(out), "--no-index", "--no-digests", *extra]
    res = CliRunner().invoke(main, args)
    return res.exit_code, res.stdout, res.stderr


def test_a_locked_folder_is_silent_under_quiet_and_logged(tmp_path: Path, held: Path) -> None:
    log = tmp_path / "events.log"
    code, stdout, stderr = _run(tmp_path, held, "--quiet", "--log-file", str(log))
    assert (code, stdout, stderr) == (3, "", "")
    events = log.read_text(encoding="utf-8")
    assert "run_locked" in events and str(held) in events


def test_a_locked_folder_under_quiet_json_prints_its_error_object(tmp_path: Path, held: Path) -> None:
    code, stdout, stderr = _run(tmp_path, held, "--quiet", "--json")
    assert code == 3 and not stderr
    error = json.loads(stdout)
    assert error["exit_code"] == 3 and error["kind"] == "LockedError" and "locked" in error["error"]


def test_a_locked_folder_without_quiet_is_an_error_line(tmp_path: Path, held: Path) -> None:
    code, _, stderr = _run(tmp_path, held)
    assert code == 3 and stderr.startswith(f"Error: output folder {held} is locked by pid")
