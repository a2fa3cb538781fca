"""``batchsum run`` ends without the interpreter's teardown when nothing is left to close, and still
says and writes everything: its JSON on stdout, its log file, its exit code, its exit handlers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLE_CORPUS

SCRIPT = """
import atexit, sys
from pathlib import Path
flags = Path(sys.argv[1])
atexit.register(lambda: (flags / "atexit").write_text("ran"))

class Teardown:
    def __del__(self):  # runs when the interpreter frees the module's globals
        (flags / "teardown").write_text("ran")

KEEP = Teardown()
sys.argv = ["batchsum", *sys.argv[2:]]
from batchsum.cli import entry
entry()
"""


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    flags = tmp_path / "flags"
    flags.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(flags), *args], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    return proc, flags


def test_a_run_exits_without_teardown_and_loses_nothing(tmp_path: Path) -> None:
    out, log = tmp_path / "out", tmp_path / "events.log"
    corpus = str(SAMPLE_CORPUS / "journal")
    proc, flags = _run(
        tmp_path, "run", corpus, "--out", str(out), "--no-index", "--no-metrics", "--log-file", str(log), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # the whole document was flushed
    assert result["run"]["status"] == "ok" and result["files"]
    assert (flags / "atexit").read_text() == "ran"
    assert not (flags / "teardown").exists()  # the teardown was skipped
    assert "run_finished" in log.read_text(encoding="utf-8")  # the log handler was flushed and closed


def test_an_error_keeps_its_exit_code(tmp_path: Path) -> None:
    proc, flags = _run(tmp_path, "run", str(tmp_path / "missing"), "--out", str(tmp_path / "out"), "--no-index")
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    assert (flags / "atexit").read_text() == "ran"


def test_other_commands_keep_the_teardown(tmp_path: Path) -> None:
    proc, flags = _run(tmp_path, "--version")
    assert proc.returncode == 0 and "batchsum" in proc.stdout
    assert (flags / "teardown").read_text() == "ran"
