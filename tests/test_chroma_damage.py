"""``index --rebuild`` replaces a Chroma folder chromadb cannot use, whatever the damage and however --out is typed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main


def _indexed(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "n.txt").write_text("The cat sat on the mat today. It was a very sunny afternoon.\n")
    out = tmp_path / "out"
    batchsum.run(str(src), out=str(out))
    return out


def _moved_aside(out: Path) -> list[Path]:
    return [p for p in (out / ".batchsum").iterdir() if p.name.startswith("chroma.broken-")]


def test_rebuild_of_a_garbage_database_with_a_relative_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _indexed(tmp_path)
    (out / ".batchsum" / "chroma" / "chroma.sqlite3").write_bytes(b"\x07garbage, not sqlite\x00" * 200)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["index", "--rebuild", "--out", "out"])
    assert res.exit_code == 0, res.output
    assert len(_moved_aside(out)) == 1 and batchsum.check_index(str(out)).ok


def test_rebuild_of_a_database_chroma_cannot_use(tmp_path: Path) -> None:
    out = _indexed(tmp_path)
    with sqlite3.connect(out / ".batchsum" / "chroma" / "chroma.sqlite3") as con:
        con.execute("DROP TABLE tenants")  # SQLite still reads the file; chromadb cannot open it
    res = CliRunner().invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 2 and "--rebuild" in res.output and "ulimit" not in res.output
    res = CliRunner().invoke(main, ["index", str(out), "--rebuild"])
    assert res.exit_code == 0, res.output
    assert len(_moved_aside(out)) == 1 and batchsum.check_index(str(out)).ok
