"""An error that stops a run (no such model, a refused port, a rejected key) is read once: on stderr,
and on the summary line only where stdout is another file than stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


def _run(tmp_path: Path, base_url: str, *args: str, together: bool) -> tuple[int, str, str]:
    """A real ``batchsum run`` process: its exit code, stdout and stderr (stderr into stdout: ``together``)."""
    cmd = [sys.executable, "-m", "batchsum", "run", str(SAMPLE_CORPUS / "journal"), "--out", str(tmp_path / "out"),
           "--no-index", "--base-url", base_url, "--max-attempts", "1", "--rpm", "0", "--tpm", "0", *args]  # fmt: skip
    err = subprocess.STDOUT if together else subprocess.PIPE
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO, timeout=300)
    return done.returncode, done.stdout, done.stderr or ""


def test_a_missing_model_is_printed_once(tmp_path: Path) -> None:
    with FakeLLMServer(models=["fake"]).start() as server:
        code, both, _ = _run(tmp_path / "a", server.base_url, "--model", "nosuch", together=True)
        assert code == 1, both
        assert both.count("has no model nosuch") == 1, both
        assert "ABORTED" in both and "Traceback" not in both
        code, out, err = _run(tmp_path / "b", server.base_url, "--model", "nosuch", together=False)
    assert code == 1, out + err
    assert err.count("has no model nosuch") == 1, err
    assert out.count("has no model nosuch") == 1, out  # a log of stdout alone still says why


def test_a_rejected_key_is_printed_once(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(require_key="right")
        code, both, _ = _run(tmp_path, server.base_url, "--model", "fake", "--api-key", "wrong", together=True)
    assert code == 1, both
    assert both.count("rejected the credentials") == 1, both


def test_a_facts_pass_says_its_stop_once(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "batchsum", "facts", str(SAMPLE_CORPUS / "journal"), "--out", str(tmp_path / "out"),
           "--model", "nosuch", "--max-attempts", "1", "--rpm", "0"]  # fmt: skip
    with FakeLLMServer(models=["fake"]).start() as server:
        done = subprocess.run([*cmd, "--base-url", server.base_url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, cwd=REPO, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert done.stdout.count("has no model nosuch") == 1, done.stdout
