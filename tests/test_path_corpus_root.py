"""``--path`` naming the corpus root itself (its absolute path, with or without a slash, or ".") selects every
source, as the docs say: "/tmp/j" had said "matches no source" where "/tmp/j/" found both files, and the library's
``path="."`` had returned nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

NOTES = {
    "2024-03-10.md": "# Sunday\n\nWent to Lisbon with Anna. The tram was crowded.\n",
    "2023-03-05.md": "# Sunday\n\nBooked the flight to Lisbon for next spring.\n",
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("root")
    for rel, text in NOTES.items():
        (base / "j" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "j" / rel).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(base / "j"), "--out", str(base / "out"), "--quiet"])
    assert res.exit_code == 0, res.output
    return base / "j", base / "out"


@pytest.mark.parametrize("spelled", ["{root}", "{root}/", ".", "./"])
def test_the_corpus_root_itself_selects_every_source(folders: tuple[Path, Path], spelled: str) -> None:
    root, out = folders
    path = spelled.format(root=root)
    res = CliRunner().invoke(main, ["search", "Lisbon", "--out", str(out), "--path", path, "--json"])
    assert res.exit_code == 0 and res.output.lstrip().startswith("["), res.output
    assert {h["source_path"] for h in json.loads(res.output)} == set(NOTES)
    assert {h.source_path for h in batchsum.search(out, "Lisbon", path=path)} == set(NOTES)


def test_a_folder_under_the_root_still_filters(folders: tuple[Path, Path]) -> None:
    root, out = folders
    assert batchsum.search(out, "Lisbon", path=f"{root}/2024-*") and {
        h.source_path for h in batchsum.search(out, "Lisbon", path=f"{root}/2024-*")
    } == {"2024-03-10.md"}
