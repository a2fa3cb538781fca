"""A file in the way of the output folder (``--out afile/out``) is named in the error, not the state folder
below it that does not exist."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def test_a_file_in_the_way_of_the_output_folder_is_named(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n", encoding="utf-8")
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "fence.md").write_text("We chose cedar for the garden fence. Bob orders planks.\n" * 6, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(afile / "out"), "--no-index", "--no-digests"])
    code, stderr = res.exit_code, res.stderr
    assert code == 2
    assert stderr.startswith(f"Error: {afile}: a file is where a folder belongs"), stderr
