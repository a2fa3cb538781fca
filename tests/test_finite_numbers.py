"""A number setting is a finite number: "inf" or "nan" given for one (``--price-per-1k inf``, a library's
``price_per_1k=float("nan")``) is refused before any work, as a negative one is, never a "$nan" estimate."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_the_command_line_refuses_a_number_that_is_not_finite(tmp_path: Path, value: str) -> None:
    out = tmp_path / "out"
    got = CliRunner().invoke(main, ["plan", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--price-per-1k", value])
    assert got.exit_code == 2, got.output
    assert "--price-per-1k" in got.output and value in got.output
    assert not out.exists()


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_the_library_refuses_a_number_that_is_not_finite(tmp_path: Path, value: float) -> None:
    with pytest.raises(batchsum.ConfigError, match="price_per_1k"):
        batchsum.plan(SAMPLE_CORPUS / "journal", out=tmp_path / "out", price_per_1k=value)
    assert not (tmp_path / "out").exists()
