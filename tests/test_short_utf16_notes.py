"""A short BOM-less UTF-16 note of one alphabet is read (too short for the proportions a longer guess needs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

NOTES = ["Купить хлеб", "Позвонить Ивану", "Ελληνικά κείμενα"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_short_one_alphabet_notes_are_read(tmp_path: Path, codec: str) -> None:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for i, note in enumerate(NOTES):
        (corpus / f"n{i}.txt").write_bytes(note.encode(codec))
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    files = {f["relpath"]: f for f in json.loads(res.stdout)["files"]}
    assert all(f["status"] == "done" for f in files.values()), files
    written = " ".join(p.read_text() for p in (tmp_path / "out").rglob("final.md"))
    assert all(note.split()[0] in written for note in NOTES)
