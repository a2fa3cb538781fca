"""Every command and every option is documented in the README (sqlite-utils' test_docs idea)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

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


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.index("\n## ", start + 1)
    return README[start:end]


def test_how_to_use_it_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first examples work as written (paths swapped for the sample corpus)."""
    from click.testing import CliRunner

    section = _section("How to use it")
    bash, yaml_block = re.findall(r"```(?:bash|yaml)\n(.*?)```", section, re.S)
    out = tmp_path / "journal-summaries"
    monkeypatch.chdir(tmp_path)
    for line in bash.splitlines():
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        command = command.replace("~/journal-summaries", str(out)).replace("~/journal", str(REPO / "sample_corpus"))
        args = shlex.split(command)
        assert args[0] == "batchsum"
        res = CliRunner().invoke(main, args[1:], catch_exceptions=False)
        assert res.exit_code == 0, f"{command}\n{res.output}"
    assert (out / "index.md").is_file()
    # The config example is valid for `batchsum run` (every key an option of it).
    from batchsum.cli.defaults import command_defaults

    data = yaml.safe_load(yaml_block)
    run_cmd = main.get_command(click.Context(main), "run")
    assert run_cmd is not None
    defaults = command_defaults(run_cmd, "run", data, Path("batchsum.yaml"))
    assert defaults["content_type"] == "journal" and defaults["out"].endswith("journal-summaries")


def test_readme_closing_line_example_matches_a_real_run(tmp_path: Path) -> None:
    from click.testing import CliRunner

    example = re.search(r"Without `--json`, a run ends with one line:\n`([^`]+)`", README)
    assert example is not None
    res = CliRunner().invoke(main, ["run", str(REPO / "sample_corpus"), "--out", str(tmp_path / "o"), "--no-index"])
    assert res.exit_code == 0, res.output
    shape = lambda line: re.sub(r"[\d.,]+", "N", line.strip())  # noqa: E731 - numbers vary, the layout must not
    assert shape(res.stdout.splitlines()[-1]) == shape(example.group(1))
