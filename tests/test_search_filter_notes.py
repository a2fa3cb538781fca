"""Why a filtered search found nothing is said with ``--json`` too (on stderr, stdout stays the JSON list) and by
the library (a logged warning), and with several corpus roots the ``--path`` hint names paths as they match."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

NOTES = {
    "notes/2024-03-05.md": "# Tuesday\n\nThe ferry to the island was cancelled because of the storm.\n",
    "rust/ownership.md": "# Ownership\n\nEach value in Rust has a single owner; moving it transfers ownership.\n",
}


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def outs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One output of the notes folder alone, one of the two folders as two roots."""
    base = tmp_path_factory.mktemp("filters")
    for rel, text in NOTES.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text, encoding="utf-8")
    one, two = base / "out1", base / "out2"
    assert _invoke("run", str(base / "notes"), "--out", str(one), "--quiet")[0] == 0
    assert _invoke("run", str(base / "rust"), str(base / "notes"), "--out", str(two), "--quiet")[0] == 0
    return one, two


@pytest.mark.parametrize(("option", "said"), [("--path", "matches no source"), ("--since", "without it the best")])
def test_json_says_on_stderr_why_a_filter_left_nothing(outs: tuple[Path, Path], option: str, said: str) -> None:
    value = "nope/*" if option == "--path" else "2090"
    code, stdout, stderr = _invoke("search", "ferry", "--out", str(outs[0]), option, value, "--json")
    assert code == 0 and json.loads(stdout) == [] and said in stderr, stderr
    code, stdout, stderr = _invoke("search", "zzqqxx", "--out", str(outs[0]), "--json")
    assert json.loads(stdout) == [] and not stderr  # no filter to blame: the empty list says it


def test_the_library_warns_why_a_filter_left_nothing(outs: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="batchsum"):
        assert batchsum.search(outs[0], "ferry", since="2090") == []
    assert any("without it the best" in r.getMessage() for r in caplog.records), caplog.text


def test_the_path_hint_of_several_roots_gives_an_example_that_matches(outs: tuple[Path, Path]) -> None:
    out = str(outs[1])
    code, stdout, _ = _invoke("search", "ferry", "--out", out, "--path", "2024-03-05.md")
    example = re.search(r"e\.g\. (\S+?)\.?$", stdout.strip())
    assert code == 0 and example is not None and "relative to the corpus root" not in stdout, stdout
    code, stdout, _ = _invoke("search", "ferry", "--out", out, "--path", example.group(1), "--json")
    assert code == 0 and [h["source_path"] for h in json.loads(stdout)][:1] == [example.group(1)], stdout
