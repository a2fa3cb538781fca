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


def test_a_files_own_shape_comes_before_the_named_folders_name(tmp_path: Path) -> None:
    """A meeting's turns in a folder named journal stay a conversation: the name is a fallback."""
    folder = tmp_path / "journal"
    (folder / "notes").mkdir(parents=True)
    turns = "\n".join(f"{who}: Point {i} about the harbour budget for the winter." for i, who in enumerate("ABABAB"))
    (folder / "notes" / "standup.md").write_text(turns.replace("A:", "Ana:").replace("B:", "Ben:"), encoding="utf-8")
    batchsum.run([folder], out=tmp_path / "out", metrics=False, index=False)
    assert _content_type(tmp_path / "out", "notes/standup.md") == "conversation"


def test_a_file_named_alone_is_typed_by_its_text(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "plan.md").write_text(ENTRY, encoding="utf-8")
    batchsum.run([folder / "plan.md"], out=tmp_path / "out", metrics=False, index=False)
    assert _content_type(tmp_path / "out", "plan.md") == "document"  # no folder was named


def test_a_year_range_in_a_name_is_no_day(tmp_path: Path) -> None:
    """`project-history-2019-2021.md` names no day (month 20, day 21): its first-person text is a document's,
    as the same file's without the range (it had been a journal "by its dated name", dated by mtime)."""
    src = tmp_path / "src"
    src.mkdir()
    text = "I went to the office and I talked with my team about the budget. " * 20
    for name in ("project-history-2019-2021.md", "project-history.md"):
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=tmp_path / "out", metrics=False, index=False)
    assert _content_type(tmp_path / "out", "project-history-2019-2021.md") == "document"
    assert _content_type(tmp_path / "out", "project-history.md") == "document"
