"""A symlink loop given as PATH or as --out is a usage error naming it (exit 2, one JSON object under --json),
not a traceback; the library raises ConfigError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import ConfigError


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    link = tmp_path / "loop"
    link.symlink_to("loop")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "a.md").write_text("The harbour was quiet and the ships stayed in.\n", encoding="utf-8")
    return link


@pytest.mark.parametrize("which", ["path", "out"])
def test_a_symlink_loop_as_path_or_out_is_a_usage_error(loop: Path, which: str) -> None:
    path, out = (loop, loop.parent / "o") if which == "path" else (loop.parent / "c", loop)
    res = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "--json"])
    assert res.exit_code == 2, res.output
    error = json.loads(res.stdout)
    assert error["kind"] == "ConfigError" and str(loop) in error["error"] and "loop" in error["error"]
    with pytest.raises(ConfigError, match="symlink loop"):
        batchsum.run(path, out=out)


def test_search_in_a_symlink_loop_says_so(loop: Path) -> None:
    res = CliRunner().invoke(main, ["search", "harbour", "--out", str(loop)])
    assert res.exit_code == 2
    assert "symlink loop" in res.output and "older batchsum" not in res.output
