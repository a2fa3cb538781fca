"""``batchsum.check_index`` gives what ``batchsum index --check`` does (one implementation): a missing part of
the index fails it, and it names the sources indexed by their summaries alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

NOTES = {
    "notes/2024-01-10.md": "# Wednesday\n\nThe budget for the boiler repair was agreed with the landlord.\n",
    "notes/2024-04-02.md": "# Tuesday\n\nThe quarterly budget review moved to Thursday afternoon.\n",
}


def _invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    for rel, text in NOTES.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    assert _invoke("run", str(corpus), "--out", str(out), "--quiet")[0] == 0
    return corpus, out


@pytest.mark.parametrize("part", ["lexical-batchsum.sqlite3", "vectors-batchsum.sqlite3"])
def test_the_library_check_fails_on_a_missing_part_as_the_cli_does(built: tuple[Path, Path], part: str) -> None:
    _, out = built
    assert batchsum.check_index(str(out)).ok
    gone = out / ".batchsum" / part
    gone.unlink()
    check = batchsum.check_index(str(out))
    code, stdout = _invoke("index", str(out), "--check", "--json")
    assert not check.ok and any(str(gone) in p for p in check.missing_parts), check
    assert code == 1 and json.loads(stdout)["ok"] is False and json.loads(stdout)["missing_parts"]


def test_the_library_check_names_the_sources_indexed_by_summaries_alone(built: tuple[Path, Path]) -> None:
    corpus, out = built
    shutil.move(corpus / "notes" / "2024-04-02.md", corpus.parent / "moved.md")
    assert _invoke("index", str(out), "--rebuild")[0] == 0
    check = batchsum.check_index(str(out))
    code, stdout = _invoke("index", str(out), "--check", "--json")
    assert check.ok and check.sources == 2 and check.sources_not_found == ["notes/2024-04-02.md"], check
    assert code == 0 and json.loads(stdout)["sources_not_found"] == check.sources_not_found
