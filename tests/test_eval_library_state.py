"""``batchsum.eval_summaries`` as a library call: it leaves the process's logging as it found it, and its
problems are ``batchsum.Problem`` values naming their files by absolute path, as a run's are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from tests.test_eval_cli import DOCS, REFS

REPO = Path(__file__).resolve().parent.parent

# Root handlers before and after an eval, in a fresh interpreter: no other test's logging set-up and no
# scorer built earlier in this process can hide what the first eval call does.
ROOT_HANDLERS = """
import json, logging, sys
import batchsum
before = [repr(h) for h in logging.getLogger().handlers]
batchsum.eval_summaries(sys.argv[1], sys.argv[2], out=sys.argv[3], metrics=False)
print(json.dumps({"before": before, "after": [repr(h) for h in logging.getLogger().handlers]}))
"""


def _set(tmp_path: Path, *, orphan: bool = False, unmatched: bool = False) -> tuple[Path, Path]:
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir()
    refs.mkdir()
    for name in ("harbor", "orchard"):
        (docs / f"{name}.txt").write_text(DOCS[name], encoding="utf-8")
        if name != "orchard" or not unmatched:
            (refs / f"{name}.txt").write_text(REFS[name], encoding="utf-8")
    if orphan:
        (refs / "lighthouse.txt").write_text(REFS["harbor"], encoding="utf-8")
    return docs, refs


def test_eval_adds_no_handler_to_the_root_logger(tmp_path: Path) -> None:
    docs, refs = _set(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-c", ROOT_HANDLERS, str(docs), str(refs), str(tmp_path / "out")]
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    handlers = json.loads(done.stdout.strip().splitlines()[-1])
    assert handlers["after"] == handlers["before"] == []


def test_eval_problems_are_batchsum_problems_with_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _set(tmp_path, orphan=True, unmatched=True)
    monkeypatch.chdir(tmp_path)  # relative folders given: every path said back must still be absolute
    report = batchsum.eval_summaries("docs", "refs", out="out", metrics=False)
    kinds = {p.kind: p for p in report.problems}
    assert set(kinds) == {"orphan_reference", "no_reference"}
    for p in report.problems:
        assert isinstance(p, batchsum.Problem) and p.reason and Path(p.path).is_absolute()
        assert Path(p.path).exists() and not p.failure  # both say how the set was read; nothing failed
    assert kinds["no_reference"].relpath == "orchard.txt" and kinds["orphan_reference"].relpath is None
    for path in (report.out, report.docs_dir, report.refs_dir):
        assert isinstance(path, Path) and path.is_absolute() and path.is_dir()


def test_eval_json_keeps_its_shape_with_absolute_paths(tmp_path: Path) -> None:
    docs, refs = _set(tmp_path, orphan=True)
    args = ["eval", str(docs), str(refs), "--out", str(tmp_path / "out"), "--no-metrics", "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    report = json.loads(result.stdout)
    assert all(isinstance(report[k], str) for k in ("out", "docs_dir", "refs_dir"))
    (problem,) = report["problems"]
    assert set(problem) == {"kind", "path", "message"} and problem["kind"] == "orphan_reference"
    assert problem["path"] == str(refs / "lighthouse.txt")
