"""Every command and every option is documented in the README (sqlite-utils' test_docs idea)."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest

from batchsum.cli import COMMANDS, main
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_documented(name: str) -> None:
    assert re.search(rf"batchsum {name}\b", README), f"`batchsum {name}` missing from README"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_documented(name: str) -> None:
    cmd = main.get_command(click.Context(main), name)
    assert cmd is not None
    missing = [
        opt
        for p in cmd.params
        if isinstance(p, click.Option)
        for opt in p.opts + p.secondary_opts
        if opt.startswith("--") and opt not in ("--help",) and opt not in README
    ]
    assert not missing, f"batchsum {name}: options not in README: {missing}"


def test_help_is_fast_and_light() -> None:
    # `batchsum --help` must not import the heavy libraries.
    code = (
        "import sys; from click.testing import CliRunner; from batchsum.cli import main; "
        "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0; "
        "heavy = [m for m in ('chromadb', 'onnxruntime', 'openai', 'duckdb', 'pyarrow', 'sumy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_readme_test_command_is_what_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in README and "make test" in ci
