"""``batchsum search --out`` that is not a batchsum output: a file, or a folder no run wrote to, is a usage
error that says so (it was read as an older index and the advice was to upgrade it)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def test_search_out_a_file_says_it_is_not_a_folder(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("notes\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["search", "tapir", "--out", str(afile)])
    assert result.exit_code == 2
    assert "is not a folder" in result.output and "older batchsum" not in result.output


def test_search_out_a_folder_without_output_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "index.md").write_text("# my own notes\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["search", "tapir", "--out", str(folder)])
    assert result.exit_code == 2
    assert "holds no batchsum output" in result.output and "batchsum run SOURCES" in result.output
    assert not (folder / ".batchsum").exists()  # a search writes nothing into someone else's folder
