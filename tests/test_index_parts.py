"""``index --check`` and ``search`` agree on a missing part of the index (docs/search.md: it makes the index
incomplete), and a rebuild or check says which sources it could not find and so indexed by their summaries alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

NOTES = {
    "notes/2024-01-10.md": "# Wednesday\n\nThe budget for the boiler repair was agreed with the landlord.\n",
    "notes/2024-04-02.md": "# Tuesday\n\nThe quarterly budget review moved to Thursday afternoon.\n",
}


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("parts")
    for rel, text in NOTES.items():
        (base / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "corpus" / rel).write_text(text, encoding="utf-8")
    assert _invoke("run", str(base / "corpus"), "--out", str(base / "out"), "--quiet")[0] == 0
    return base


@pytest.mark.parametrize("part", ["lexical-batchsum.sqlite3", "vectors-batchsum.sqlite3", "chroma"])
def test_a_missing_part_fails_the_check_and_makes_search_warn(built: Path, tmp_path: Path, part: str) -> None:
    out = tmp_path / "out"
    shutil.copytree(built / "out", out)
    assert _invoke("index", str(out), "--check")[0] == 0
    gone = out / ".batchsum" / part
    shutil.rmtree(gone) if gone.is_dir() else gone.unlink()
    code, stdout, _ = _invoke("index", str(out), "--check")
    assert code == 1 and "missing part" in stdout and str(gone) in stdout and "index OK" not in stdout, stdout
    code, stdout, _ = _invoke("index", str(out), "--check", "--json")
    assert code == 1 and json.loads(stdout)["missing_parts"] and json.loads(stdout)["ok"] is False
    code, _, stderr = _invoke("search", "budget", "--out", str(out))
    assert code == 0 and "incomplete" in stderr and str(gone) in stderr
    assert _invoke("search", "budget", "--out", str(out), "--strict")[0] == 2
    assert _invoke("index", str(out))[0] == 0  # the repair the check advises
    assert _invoke("index", str(out), "--check")[0] == 0
    assert _invoke("search", "budget", "--out", str(out), "--strict")[0] == 0


def test_a_rebuild_and_a_check_say_which_sources_they_did_not_find(built: Path, tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    shutil.copytree(built / "corpus", corpus)
    assert _invoke("run", str(corpus), "--out", str(out), "--quiet")[0] == 0
    code, stdout, _ = _invoke("index", str(out), "--rebuild")
    assert code == 0 and "not found" not in stdout
    (corpus / "notes" / "2024-04-02.md").rename(tmp_path / "moved.md")
    code, stdout, _ = _invoke("index", str(out), "--rebuild")
    assert code == 0 and "1 of 2 sources were not found" in stdout and str(corpus) in stdout, stdout
    assert "summaries alone" in stdout and "notes/2024-04-02.md" in stdout
    code, stdout, _ = _invoke("index", str(out), "--check")
    assert code == 0 and "1 of 2 sources were not found" in stdout and "index OK" in stdout, stdout
    code, stdout, _ = _invoke("index", str(out), "--check", "--json")
    assert json.loads(stdout)["sources_not_found"] == ["notes/2024-04-02.md"]
