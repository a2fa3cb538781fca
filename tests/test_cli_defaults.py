"""Option defaults: flags > environment (BATCHSUM_OUT) > config file > built-in defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS

JOURNAL = SAMPLE_CORPUS / "journal"


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    res = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    return res.exit_code, res.output


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_config_file_env_and_flag_precedence(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("out: from-config\nrun:\n  no-index: true\n  quiet: true\n")
    assert run(["run", str(JOURNAL)])[0] == 0
    assert (cwd / "from-config" / ".batchsum").is_dir()
    assert not (cwd / "from-config" / ".batchsum" / "chroma").exists()  # run.no-index from the file

    assert run(["run", str(JOURNAL)], env={"BATCHSUM_OUT": str(cwd / "from-env")})[0] == 0
    assert (cwd / "from-env" / ".batchsum").is_dir()

    code, _ = run(["run", str(JOURNAL), "--out", str(cwd / "from-flag")], env={"BATCHSUM_OUT": str(cwd / "x")})
    assert code == 0
    assert (cwd / "from-flag" / ".batchsum").is_dir() and not (cwd / "x").exists()


def test_user_config_folder_is_read_when_there_is_no_local_file(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = cwd / "xdg" / "batchsum" / "config.yaml"
    conf.parent.mkdir(parents=True)
    conf.write_text(f"out: {cwd / 'user-out'}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cwd / "xdg"))
    assert run(["run", str(JOURNAL), "--no-index", "--quiet"])[0] == 0
    assert (cwd / "user-out" / ".batchsum").is_dir()
    # report finds the same output folder without --out
    code, out = run(["report", "--json"])
    assert code == 0 and '"runs"' in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("run:\n  no-such-option: 1\n", "'run.no-such-option' is not an option of `batchsum run`"),
        ("run: [1, 2]\n", "'run' must be a mapping"),
        ("- a list\n", "a config file is a mapping"),
        ("out: [unclosed\n", "cannot read config file"),
        ("outt: summaries\n", "'outt' is not an option of any batchsum command"),
    ],
)
def test_a_bad_config_file_is_a_usage_error_naming_it(cwd: Path, text: str, message: str) -> None:
    (cwd / "batchsum.yaml").write_text(text)
    code, out = run(["run", str(JOURNAL)])
    assert code == 2
    assert "batchsum.yaml" in out and message in out


def test_a_bad_config_file_is_a_json_error_with_json(cwd: Path) -> None:
    (cwd / "batchsum.yaml").write_text("outt: summaries\n")
    code, out = run(["search", "anything", "--json"])
    assert code == 2
    assert json.loads(out.splitlines()[0]) == {
        "error": "batchsum.yaml: 'outt' is not an option of any batchsum command",
        "kind": "ConfigError",
        "exit_code": 2,
    }


def test_a_top_level_key_of_another_command_is_no_error(cwd: Path) -> None:
    # `k` is search's (-k) and `price-per-1k` report's: a run leaves them to those commands.
    (cwd / "batchsum.yaml").write_text(f"out: {cwd / 'o'}\nk: 3\nprice-per-1k: 0.5\n")
    code, out = run(["run", str(JOURNAL), "-q"])
    assert code == 0, out


def test_batchsum_config_names_the_file(cwd: Path) -> None:
    code, out = run(["run", str(JOURNAL)], env={"BATCHSUM_CONFIG": str(cwd / "missing.yaml")})
    assert code == 2 and "missing.yaml: no such file" in out


@pytest.mark.parametrize(("key", "kept"), [("no-short: true", False), ("short: false", False), ("short: true", True)])
def test_either_side_of_a_flag_pair_reads_its_own_way(cwd: Path, key: str, kept: bool) -> None:
    """`no-short: true` in the config file means --no-short, not --short (both are one parameter)."""
    (cwd / "batchsum.yaml").write_text(f"run:\n  {key}\n  no-index: true\n  quiet: true\n")
    (cwd / "src").mkdir()
    (cwd / "src" / "note.md").write_text("A short note about the ferry.\n")
    assert run(["run", str(cwd / "src"), "--out", str(cwd / "out")])[0] == 0
    assert (cwd / "out" / "note.md").exists() is kept


def test_index_takes_out_as_an_option_from_env_or_config_or_positionally(cwd: Path) -> None:
    out = cwd / "summaries"
    assert run(["run", str(JOURNAL), "--out", str(out), "--quiet"])[0] == 0
    (cwd / "batchsum.yaml").write_text(f"out: {out}\n")
    for args, env in (
        (["index", "--check"], None),  # the config file's out
        (["index", "--check"], {"BATCHSUM_OUT": str(out)}),
        (["index", "--out", str(out), "--check"], None),
        (["index", "-o", str(out), "--check"], {"BATCHSUM_OUT": str(cwd / "elsewhere")}),
        (["index", str(out), "--check"], {"BATCHSUM_OUT": str(cwd / "elsewhere")}),  # OUT beats the env
        (["index", str(out), "--out", f"{out}/", "--check"], None),  # the same folder twice
    ):
        code, text = run(args, env)
        assert code == 0 and "index OK" in text, (args, text)

    code, text = run(["index", str(out), "--out", str(cwd / "elsewhere"), "--check"])
    assert code == 2 and "name different folders" in text


def test_the_shared_out_is_no_scratch_folder_or_file(cwd: Path) -> None:
    """`out:` and BATCHSUM_OUT name the summaries folder: eval's scratch folder and compact's output file are
    their own (eval had written its test documents into the summaries, compact refused the folder as its file)."""
    summaries = cwd / "summaries"
    assert run(["run", str(JOURNAL), "--out", str(summaries), "--no-index", "--quiet"])[0] == 0
    before = sorted(p.name for p in summaries.iterdir())
    (cwd / "batchsum.yaml").write_text(f"out: {summaries}\n")
    docs, refs = cwd / "ev" / "docs", cwd / "ev" / "refs"
    docs.mkdir(parents=True)
    refs.mkdir()
    (docs / "a.md").write_text("The ferry left the harbour at dawn with the new buoys aboard for the bay.\n")
    (refs / "a.txt").write_text("The ferry left at dawn.\n")
    for env in (None, {"BATCHSUM_OUT": str(summaries)}):
        code, _ = run(["eval", str(docs), str(refs), "-q", "--no-metrics"], env=env)
        assert code == 0 and sorted(p.name for p in summaries.iterdir()) == before
        assert (cwd / "batchsum-eval-out" / "a.md").is_dir()
    session = cwd / "session.md"
    session.write_text("### user\n\nHello there, can you check the build?\n\n### assistant\n\nThe build passes.\n")
    res = CliRunner().invoke(main, ["compact", str(session), "--context-window", "4096"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("### user")  # printed, not written over the summaries folder
