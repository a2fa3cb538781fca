"""A run shows where it is in every phase and ends with one clean closing line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLE_CORPUS


def test_every_phase_is_shown_and_logged_and_the_closing_line_is_one_line(tmp_path: Path) -> None:
    out, log = tmp_path / "out", tmp_path / "events.log"
    proc = subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(SAMPLE_CORPUS / "journal"), "--out", str(out),
         "--progress", "--log-file", str(log), "--git"],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("17 files ("), proc.stdout
    for name in ("summarizing", "indexing", "metrics", "git"):
        assert f"{name}:" in proc.stderr, f"no {name} progress on the terminal"
    # Progress is one line redrawn in place: no cursor-up sequences that garble what follows.
    assert "\x1b[A" not in proc.stderr
    events = log.read_text(encoding="utf-8")
    for name in ("summarizing", "indexing", "metrics", "git"):
        assert f"phase_started phase={name}" in events and f"phase_finished phase={name}" in events
