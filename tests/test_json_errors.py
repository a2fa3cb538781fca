"""Every command that prints JSON prints its error as one JSON object on stdout too: asked by ``--json``,
``report --format json`` or a config file's ``json: true``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

JSON_COMMANDS = [
    ["report", "--out", "nope", "--json"],
    ["report", "--out", "nope", "--format", "json"],
    ["export", "--out", "nope", "--json", "dest"],
    ["search", "x", "--out", "nope", "--json"],
    ["index", "--out", "nope", "--json"],
    ["compact", "nope.json", "--json"],
    ["facts", "--out", "nope", "--json"],
    ["run", "nope", "--json"],
    ["plan", "nope", "--json"],
]


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user config file of this machine's
    return tmp_path


def _error(args: list[str]) -> dict[str, object]:
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code != 0
    error = json.loads(res.stdout.splitlines()[0])
    assert error["exit_code"] == res.exit_code and error["kind"] and error["error"]
    return error


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_a_json_command_prints_its_error_as_json(cwd: Path, args: list[str]) -> None:
    _error(args)


def test_a_config_files_json_makes_errors_json(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("search:\n  json: true\nindex:\n  json: true\n")
    assert "nope" in str(_error(["search", "x", "--out", "nope"])["error"])
    assert "nope" in str(_error(["index", "--out", "nope"])["error"])


def test_without_json_an_error_is_no_json(cwd: Path) -> None:
    res = CliRunner().invoke(main, ["search", "x", "--out", "nope"], catch_exceptions=False)
    assert res.exit_code == 2 and res.stdout == "" and "nope" in res.stderr


def test_a_config_files_json_makes_usage_errors_json(cwd: Path) -> None:
    # click's own usage errors too: the group reads the config file before it knows to print JSON.
    (cwd / "batchsum.yaml").write_text("search:\n  json: true\n")
    res = CliRunner().invoke(main, ["search", "x", "--out", "nope", "-k", "0"], catch_exceptions=False)
    assert res.exit_code == 2
    assert json.loads(res.stdout)["exit_code"] == 2


def test_an_error_of_several_lines_keeps_them(cwd: Path) -> None:
    (cwd / "src").mkdir()
    (cwd / "p.yaml").write_text("corpora: [src]\nbogus1: 1\nbogus2: 2\n")
    res = CliRunner().invoke(main, ["run", "--pipeline", "p.yaml", "--out", "o"], catch_exceptions=False)
    assert res.exit_code == 2
    lines = res.stderr.splitlines()
    assert lines[0].startswith("Error: 2 errors:") and "\\n" not in res.stderr
    assert any("bogus1" in line for line in lines[1:]) and any("bogus2" in line for line in lines[1:])
