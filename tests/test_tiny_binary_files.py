"""A few control bytes are binary, not UTF-16 text without a BOM: a guess by script needs enough text to tell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

PROSE = "We walked along the harbour wall and watched the ferries come in. Later I cooked a fish stew.\n"


@pytest.mark.parametrize("raw", [bytes(range(8)), b"abc\x00\x01\x02binary", b"\x00\x01" * 3 + b"\x7f\x12"])
def test_a_tiny_file_of_control_bytes_is_skipped_as_binary(tmp_path: Path, raw: bytes) -> None:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "tiny.md").write_bytes(raw)
    (corpus / "walk.md").write_text(PROSE)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    files = {f["relpath"]: f for f in json.loads(res.stdout)["files"]}
    assert files["walk.md"]["status"] == "done"
    assert files["tiny.md"]["status"] == "skipped" and "binary" in files["tiny.md"]["error"], files["tiny.md"]
    assert not list((tmp_path / "out").rglob("tiny*"))
