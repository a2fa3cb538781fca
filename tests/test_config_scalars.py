"""A config file's unquoted dates and numbers reach the options as a user would type them; a bad value is one
line naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

NOTES = {
    "notes/2024-01-10.md": "# Wednesday\n\nThe budget for the boiler repair was agreed with the landlord.\n",
    "notes/2024-04-02.md": "# Tuesday\n\nThe quarterly budget review moved to Thursday afternoon.\n",
}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("scalars")
    for rel, text in NOTES.items():
        (base / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "corpus" / rel).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(base / "corpus"), "--out", str(base / "out"), "--quiet"])
    assert res.exit_code == 0, res.output
    return base / "out"


def _search(cwd: Path, config: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    (cwd / "batchsum.yaml").write_text(config, encoding="utf-8")
    res = CliRunner().invoke(main, ["search", "budget", "--json"], catch_exceptions=False)
    return res.exit_code, res.output


@pytest.mark.parametrize("since", ["2024-03-15", "2024-03", '"2024-03-15"'])
def test_an_unquoted_date_in_the_config_file_filters_as_the_flag_does(
    out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, since: str
) -> None:
    code, output = _search(tmp_path, f"out: {out}\nsearch:\n  since: {since}\n  k: 3\n", monkeypatch)
    assert code == 0, output
    # The January note is older; the year's digest summarizes the April one, so it passes too.
    assert [h["source_path"] for h in json.loads(output) if h["level"] != 4] == ["notes/2024-04-02.md"]


def test_an_unquoted_year_and_a_number_reach_the_options(
    out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = _search(tmp_path, f"out: {out}\nsearch:\n  since: 2024\n  k: 1\n", monkeypatch)
    assert code == 0, output
    assert len(json.loads(output)) == 1


@pytest.mark.parametrize(
    ("config", "key"),
    [("search:\n  since: soon\n", "search.since"), ("search:\n  since: 2024-13-45\n", "cannot read"),
     ("search:\n  since: 2024-02-01T09:30:00\n", "search.since"), ("search:\n  k: 0\n", "search.k"),
     ("search:\n  level: 7\n", "search.level")],
)  # fmt: skip
def test_a_bad_value_in_the_config_file_is_one_line_naming_file_and_key(
    out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, key: str
) -> None:
    code, output = _search(tmp_path, f"out: {out}\n{config}", monkeypatch)
    assert code == 2
    error = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "batchsum.yaml" in error[0] and key in error[0], output


def test_yaml_off_reaches_a_choice_as_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """YAML reads ``off`` as false: a choice offering "off" takes it ("'false' is not one of ..." had blamed
    the user for a word they never wrote)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "batchsum.yaml").write_text("json-format: off\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["facts", str(tmp_path), "--out", str(tmp_path / "o")])
    assert "json-format" not in res.output and "'false'" not in res.output, res.output


def test_a_list_for_a_single_value_option_is_one_line(
    out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = _search(tmp_path, f"out: {out}\nsearch:\n  k: [1, 2]\n", monkeypatch)
    assert code == 2 and "batchsum.yaml: 'search.k': give one value" in output
