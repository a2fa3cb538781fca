"""`--executor ray` without Ray installed: one line naming the extra, exit 2, nothing written.

Ray is made unimportable at the process boundary (``sys.modules['ray'] = None`` before the CLI
starts, as when it is not installed), in a subprocess, so the installed Ray is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLE_CORPUS

NO_RAY = "import sys; sys.modules['ray'] = None; from batchsum.cli import main; main()"


def test_missing_ray_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    args = [sys.executable, "-c", NO_RAY, "run", str(SAMPLE_CORPUS / "journal"), "--out", str(out)]
    res = subprocess.run([*args, "--executor", "ray"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == ["Error: --executor ray needs Ray: pip install 'batchsum[ray]'"]
    assert not out.exists(), "nothing is written or locked"
    # The same process runs fine with the local executor: only Ray is missing.
    res = subprocess.run([*args, "--no-index"], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
