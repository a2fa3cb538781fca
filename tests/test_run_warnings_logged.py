"""A run's warnings and problems reach the ``batchsum`` logger, each once (README: "Warnings go to the
`batchsum` logger"); the CLI, which prints them in its closing summary, does not print them twice."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import batchsum
from tests.conftest import SAMPLE_CORPUS


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "day.md").write_text((SAMPLE_CORPUS / "journal" / "2026-10-01.md").read_text(encoding="utf-8"))
    (folder / "blob.md").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    return folder


@pytest.fixture
def kept() -> Iterator[_Kept]:
    handler = _Kept()
    logger = logging.getLogger("batchsum")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_run_warnings_and_problems_reach_the_batchsum_logger_once(bad: Path, tmp_path: Path, kept: _Kept) -> None:
    out = tmp_path / "wout"
    first = batchsum.run(str(bad), out=str(out), index=False)
    said = [r.getMessage() for r in kept.records if r.levelno >= logging.WARNING]
    for problem in first.problems:
        assert sum(problem.path in m and problem.reason in m for m in said) == 1, (problem, said)
    assert first.problems
    kept.records.clear()
    second = batchsum.run(str(bad), out=str(out), index=False, chunk_size=1000)
    said = [r.getMessage() for r in kept.records if r.levelno >= logging.WARNING]
    changed = [w for w in second.warnings if "settings changed" in w]
    assert changed and said.count(changed[0]) == 1, said


def test_the_cli_prints_a_run_warning_once(bad: Path, tmp_path: Path) -> None:
    out = tmp_path / "cout"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cmd = [sys.executable, "-m", "batchsum", "run", str(bad), "--out", str(out), "--no-index", "--no-digests"]
    subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    res = subprocess.run([*cmd, "--chunk-size", "1000"], capture_output=True, text=True, env=env, check=False)
    assert res.stderr.lower().count("settings changed") == 1, res.stderr
