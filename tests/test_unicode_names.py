"""A file's name in either Unicode form: one synced from a Mac is decomposed (NFD: "e" and a combining
accent), one typed is composed (NFC). An --ignore pattern and a search --path glob match both."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

NFC = unicodedata.normalize("NFC", "café notes.md")
NFD = unicodedata.normalize("NFD", "café notes.md")


def _corpus(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "mac").mkdir(parents=True)
    (src / "typed").mkdir()
    (src / "mac" / NFD).write_text(
        "We met the ferry captain at the harbour café and talked about the storm of last week.\n", encoding="utf-8"
    )
    (src / "typed" / NFC).write_text(
        "The storm flooded the tram depot; the harbour master closed the pier until Friday.\n", encoding="utf-8"
    )
    (src / "other.md").write_text(
        "A quiet harbour morning after the storm, with coffee and a book.\n", encoding="utf-8"
    )
    return src


def test_an_ignore_pattern_matches_a_name_in_either_unicode_form(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    res = CliRunner().invoke(main, ["plan", str(src), "--out", str(tmp_path / "out"), "--ignore", NFC, "--json"])
    assert res.exit_code == 0, res.output
    planned = json.dumps(json.loads(res.stdout), ensure_ascii=False)
    assert "other.md" in planned and "café" not in unicodedata.normalize("NFC", planned)


def test_a_search_path_glob_matches_a_name_in_either_unicode_form(tmp_path: Path) -> None:
    src, out = _corpus(tmp_path), tmp_path / "out"
    assert CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"]).exit_code == 0
    res = CliRunner().invoke(main, ["search", "harbour storm", "--out", str(out), "--path", "*/café*", "--json"])
    assert res.exit_code == 0, res.output
    found = {unicodedata.normalize("NFC", h["source_path"]) for h in json.loads(res.stdout)}
    assert found == {f"mac/{NFC}", f"typed/{NFC}"}
