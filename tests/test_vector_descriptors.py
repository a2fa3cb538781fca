"""A search that runs out of file descriptors at the node vectors says so: it had called them "unreadable"
and asked for ``--rebuild`` (damaged), as if the file were broken, while the Chroma folder, the lexical
index's check and the vectors' own writer call such a refusal what it is; at the lexical index, its warning
had called it unreadable too. The limit is lowered for real in
a child process, never patched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import batchsum
from batchsum.config import IndexConfig
from batchsum.index.state import vectors_path
from tests.conftest import REPO, SAMPLE_CORPUS

# The child loads what search imports and its embedder (no file of the index: SQLite would keep its descriptors),
# then leaves ``spare`` descriptors free and searches.
CHILD = """
import json, logging, os, resource, sys
from pathlib import Path
import batchsum
import batchsum.index.search
from batchsum.config import IndexConfig
from batchsum.errors import BatchsumError
from batchsum.index.embed import get_embedder
out, spare = sys.argv[1], int(sys.argv[2])
get_embedder(IndexConfig(out=Path(out)))
warned = []
handler = logging.Handler(logging.WARNING)
handler.emit = lambda record: warned.append(record.getMessage())
logging.getLogger("batchsum").addHandler(handler)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) - 1 + spare, hard))
try:
    found = {"hits": len(batchsum.search(out, "weather", k=1))}
except (BatchsumError, OSError) as exc:
    found = {"error": str(exc), "damaged": getattr(exc, "damaged", None)}
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
print(json.dumps({**found, "spare": spare, "warnings": warned}))
"""


def _search_with(out: Path, spare: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = [sys.executable, "-c", CHILD, str(out), str(spare)]
    done = subprocess.run(child, capture_output=True, text=True, env=env, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_running_out_of_descriptors_at_the_node_vectors_is_no_damage(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name in ("2026-10-01.md", "2026-10-02.md"):
        shutil.copy(SAMPLE_CORPUS / "journal" / name, src / name)
    assert batchsum.run(str(src), out=str(out)).run.status == "ok"
    results = []
    for spare in range(12):  # until the search gets the descriptors it needs
        results.append(_search_with(out, spare))
        if "hits" in results[-1]:
            break
    errors = [r for r in results if "error" in r]
    assert any("node vectors" in str(r["error"]) for r in errors), results  # where the descriptors ran out
    for r in errors:
        assert r["damaged"] is not True and "--rebuild" not in str(r["error"]), r
        assert "unreadable" not in str(r["error"]) and "corrupt" not in str(r["error"]), r
    # Out of them at the lexical index, the search goes on by meaning, and says why as it is.
    warned = [w for r in results for w in r["warnings"] if "lexical index" in w]
    assert warned and not any("unreadable" in w for w in warned), results
    assert "hits" in results[-1], results
    assert vectors_path(IndexConfig(out=out)).is_file() and batchsum.check_index(str(out)).ok
