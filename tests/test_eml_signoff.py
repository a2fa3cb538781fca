"""The writer's name signed on a message's last line is no word of the message, whether a blank line
stands above it or not; another name there, or the writer's name inside the text, stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.text import conversation_lines
from batchsum.walk import SourceRef, read_document

HEADER = (
    "From: Dana Reyes <dana@example.com>\n"
    "To: support@example.com\n"
    "Subject: Refund\n"
    "Date: Sun, 01 Mar 2026 09:00:00 +0000\n\n"
)
ASK = "I would like a refund of my subscription please."


def _said(tmp_path: Path, body: str) -> list[tuple[str | None, str]]:
    path = tmp_path / "a.eml"
    path.write_text(HEADER + body, encoding="utf-8")
    return conversation_lines(read_document(SourceRef(path=path, relpath=path.name, root=path.parent)).text)


@pytest.mark.parametrize("name", ["Dana", "Dana Reyes", "- Dana"])
@pytest.mark.parametrize("gap", ["\n", "\n\n"], ids=["right-under", "blank-line"])
def test_the_writers_name_on_the_last_line_is_left_out(tmp_path: Path, name: str, gap: str) -> None:
    assert _said(tmp_path, f"Hello,\n{ASK}{gap}{name}\n") == [("Dana Reyes", ASK)]


def test_another_name_or_the_writers_name_inside_the_text_stays(tmp_path: Path) -> None:
    (turn,) = _said(tmp_path, "Hello,\nPlease forward this to\nMarco\n")
    assert turn[1].endswith("to Marco")
    (turn,) = _said(tmp_path, f"{ASK}\nDana\nwill call tomorrow.\n")
    assert "Dana will call tomorrow." in turn[1]
