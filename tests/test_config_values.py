"""A value a setting refuses, read from a config file or a pipeline file, is an error naming the file and the
key (and the line, for a pipeline file): the setting's own check runs where the value is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "2024-01-10.md").write_text("# Wednesday\n\nThe boiler repair was agreed.\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["run", *args], catch_exceptions=False)
    return res.exit_code, res.output


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("run:\n  type: diary\n", "run.type", "'diary'"),
        ("run:\n  thresholds: 100,100,100,100\n", "run.thresholds", "'100,100,100,100'"),
        ("run:\n  language: klingon\n", "run.language", "'klingon'"),
        ("language: klingon\n", "language", "'klingon'"),  # a top-level key
        ("run:\n  encoding: cl100k\n", "run.encoding", "'cl100k'"),
        ("run:\n  facets: maybe\n", "run.facets", "'maybe'"),
        ("run:\n  no-facets: maybe\n", "run.no-facets", "'maybe'"),
    ],
)
def test_a_refused_config_value_names_the_file_and_key(cwd: Path, text: str, key: str, value: str) -> None:
    (cwd / "batchsum.yaml").write_text(f"out: out\n{text}")
    code, out = _run("notes")
    assert code == 2, out
    assert f"batchsum.yaml: '{key}': " in out and value in out, out
    assert not (cwd / "out").exists()


def test_a_flag_that_is_no_boolean_says_which_words_it_takes(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("run:\n  facets: maybe\n")
    out = _run("notes")[1]
    assert all(word in out for word in ("true", "false", "yes", "no", "on", "off")), out
    assert "Recognized values" not in out and "--facets" not in out  # click's list ("", "1", "t") and flag


def test_the_user_config_file_is_named_too(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = cwd / "xdg" / "batchsum" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("run:\n  encoding: cl100k\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cwd / "xdg"))
    code, out = _run("notes", "--out", "out")
    assert code == 2 and f"{config}: 'run.encoding': " in out, out


def test_values_the_settings_take_still_pass(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text(
        "out: out\nrun:\n  type: transcript\n  language: German\n  facets: 'off'\n  thresholds: 10,20,30,40\n"
    )
    code, out = _run("notes", "--no-index")
    assert code == 0, out


def test_a_pipeline_files_refused_values_name_the_file_and_line(cwd: Path) -> None:
    pipeline = cwd / "p.yaml"
    pipeline.write_text("corpora:\n  - notes\noutput: out\nlanguage: klingon\nencoding: cl100k\n")
    code, out = _run("--pipeline", str(pipeline))
    assert code == 2, out
    assert f"{pipeline}:4: 'language': " in out and "'klingon'" in out, out
    assert f"{pipeline}:5: 'encoding': " in out and "'cl100k'" in out, out
    assert not (cwd / "out").exists()


def test_a_pipeline_files_language_name_still_passes(cwd: Path) -> None:
    pipeline = cwd / "p.yaml"
    pipeline.write_text("corpora:\n  - notes\noutput: out\nlanguage: German\nindex:\n  enabled: false\n")
    code, out = _run("--pipeline", str(pipeline))
    assert code == 0, out


def test_a_number_setting_says_it_wants_a_whole_number(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("out: out\nrun:\n  processes: many\n")
    code, output = _run("notes")
    assert code == 2 and "'run.processes': 'many' is not a whole number" in output, output


def test_a_config_file_that_is_no_yaml_is_one_line_with_its_line(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("run:\n  quiet: true\nout: [o2\n")
    code, output = _run("notes")
    errors = [line for line in output.splitlines() if line.strip()]
    assert code == 2 and len(errors) == 1 and "batchsum.yaml:" in errors[0] and "invalid YAML" in errors[0], output


def test_a_flag_left_empty_is_its_default(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("out: out\nrun:\n  digests:\n  quiet:\n")
    code, output = _run("notes", "--no-index")
    assert code == 0, output
