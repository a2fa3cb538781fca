"""Word's owner file beside an open document ("~$meeting.docx": a few bytes of the user's name) is no document:
a walk passes over it as over a hidden file (it had failed every run, exit 1, while the document was open)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def test_an_office_owner_file_is_passed_over(tmp_path: Path) -> None:
    src = tmp_path / "docs"
    src.mkdir()
    (src / "~$meeting.docx").write_bytes(b"\x05Alice\x00\x00\x00" + b"\x00" * 150)
    (src / "notes.md").write_text("A short note about the harbour and a lantern we bought on the quay.\n")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["run"]["files_total"] == 1 and not data["problems"]
