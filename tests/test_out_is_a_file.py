"""An --out that is a file is one plain error naming it, before anything reads or writes under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import ConfigError


@pytest.mark.parametrize("command", ["run", "plan"])
def test_out_that_is_a_file_is_named_once(tmp_path: Path, command: str) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    (src / "a.md").write_text("A short note about the harbour and a lantern we bought on the quay.\n")
    out = tmp_path / "outfile"
    out.write_text("hi\n")
    res = CliRunner().invoke(main, [command, str(src), "--out", str(out)])
    assert res.exit_code == 2
    assert f"--out {out}: a file, not a folder" in res.output
    assert "settings.json" not in res.output and ".batchsum" not in res.output  # nothing under it is named
    assert out.read_text() == "hi\n"


def test_the_library_raises_config_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("A short note.\n")
    out = tmp_path / "outfile"
    out.write_text("hi\n")
    with pytest.raises(ConfigError, match="a file, not a folder"):
        batchsum.run(tmp_path / "a.md", out=out)
