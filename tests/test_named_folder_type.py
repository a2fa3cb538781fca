"""The folder named on the command line says what its files are, as a folder below it does: `run vault/journals`
reads a Logseq journal as a journal, as `run vault` does (it had been a document, and `facts` skipped it)."""

from __future__ import annotations

from pathlib import Path

import pytest

import batchsum

ENTRY = (
    "- Replaced the tide gauge at pier four after three weeks of drifting readings.\n"
    "- The calibration schedule for the twelve buoys moves to the first Monday of each month.\n"
)


def _content_type(out: Path, name: str) -> str:
    final = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return next(line.split(":", 1)[1].strip() for line in final.splitlines() if line.startswith("content_type:"))


@pytest.mark.parametrize("folder", ["journals", "Weekly"])
def test_the_named_folder_types_its_files(tmp_path: Path, folder: str) -> None:
    vault = tmp_path / "vault"
    (vault / folder).mkdir(parents=True)
    (vault / folder / "notes_a.md").write_text(ENTRY, encoding="utf-8")
    batchsum.run([vault], out=tmp_path / "whole", metrics=False, index=False)
    batchsum.run([vault / folder], out=tmp_path / "named", metrics=False, index=False)
    assert _content_type(tmp_path / "whole", f"{folder}/notes_a.md") == "journal"
    assert _content_type(tmp_path / "named", "notes_a.md") == "journal"


def test_a_file_named_alone_is_typed_by_its_text(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "plan.md").write_text(ENTRY, encoding="utf-8")
    batchsum.run([folder / "plan.md"], out=tmp_path / "out", metrics=False, index=False)
    assert _content_type(tmp_path / "out", "plan.md") == "document"  # no folder was named
