"""A search that runs out of file descriptors at the index's state file says so: the state read as unreadable had
made the search call the index one "built by an older batchsum" and ask for `batchsum index`, as if the file said
so. The limit is lowered for real in a child process, never patched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import batchsum
from tests.conftest import REPO, SAMPLE_CORPUS

# The child searches once (every module a search imports is then loaded, every file it opened closed), then
# leaves no descriptor free: the state file is the first file of the index the next search opens.
CHILD = """
import json, os, resource, sys
import batchsum
from batchsum.errors import BatchsumError
out = sys.argv[1]
batchsum.search(out, "Tidewater sensor", k=1)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) - 1, hard))
try:
    found = {"hits": len(batchsum.search(out, "Tidewater sensor", k=1))}
except (BatchsumError, OSError) as exc:
    found = {"error": str(exc), "damaged": getattr(exc, "damaged", None)}
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
print(json.dumps(found))
"""


def _search_without_descriptors(out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(out)], capture_output=True, text=True, env=env, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_running_out_of_descriptors_at_the_state_file_is_no_older_index(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copy(SAMPLE_CORPUS / "journal" / "2026-10-01.md", src / "2026-10-01.md")
    assert batchsum.run(str(src), out=str(out)).run.status == "ok"
    refused = _search_without_descriptors(out)
    assert "state file" in str(refused.get("error")) and "ulimit" in str(refused["error"]), refused
    assert refused["damaged"] is False and "older batchsum" not in str(refused["error"]), refused
    assert batchsum.search(str(out), "Tidewater sensor", k=1)  # the index itself is sound
