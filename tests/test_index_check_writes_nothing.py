"""``batchsum.check_index`` writes nothing: Chroma writes whatever folder it opens (its database's rows,
the HNSW files it saves on close), so a check reads a copy of the Chroma folder, on writable storage too."""

from __future__ import annotations

import hashlib
from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main

NOTES = {
    "notes/2024-01-10.md": "# Wednesday\n\nThe budget for the boiler repair was agreed with the landlord.\n",
    "notes/2024-04-02.md": "# Tuesday\n\nThe quarterly budget review moved to Thursday afternoon.\n",
}


def _state(out: Path) -> dict[str, tuple[str, int]]:
    """Every file under the state folder: content hash and modification time."""
    return {
        str(p.relative_to(out)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted((out / ".batchsum").rglob("*"))
        if p.is_file()
    }


def _indexed(tmp_path: Path) -> Path:
    """The output of a run (with its Chroma index) over two notes."""
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    for rel, text in NOTES.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0 and (out / ".batchsum" / "chroma" / "chroma.sqlite3").is_file()
    return out


def test_check_index_leaves_every_index_file_as_it_was(tmp_path: Path) -> None:
    out = _indexed(tmp_path)
    before = _state(out)
    for _ in range(2):  # the second call opens the folder as a first one did: still nothing written
        assert batchsum.check_index(out).ok
    assert _state(out) == before


def test_check_index_names_a_damaged_chroma_folder_by_its_own_path(tmp_path: Path) -> None:
    out = _indexed(tmp_path)
    chroma = out / ".batchsum" / "chroma"
    (chroma / "chroma.sqlite3").write_bytes(b"not a database" * 100)
    res = CliRunner().invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 2 and str(chroma) in res.output and "batchsum-chroma-" not in res.output, res.output
