"""A note's data: URIs (pasted images: base64 no reader reads) go from its text, but not from its code, fenced,
indented or inline, which says what it says (a reviewer's find: an HTML sample's ``<img src="data:...">`` line
was emptied and a stylesheet's ``url(data:...)`` read ``url()``); and finding them is linear in the text
(a line of 8,000 "data:" had taken six seconds, each "data:" scanned to the line's end)."""

from __future__ import annotations

from pathlib import Path

from batchsum.readers.note_syntax import code_blocks, note_syntax_as_text, without_data_uris
from batchsum.walk import SourceRef, read_document

PIXEL = "data:image/png;base64,iVBORw0KGgo="
IMG_LINE = f'<img src="{PIXEL}" alt="dot">'
CSS_LINE = f"    background: url({PIXEL});"
NOTE = (
    "# Styling the badge\n\nThe sample page:\n\n"
    f"```html\n{IMG_LINE}\n```\n\nIts stylesheet:\n\n{CSS_LINE}\n\n"
    f"A pasted shot: ![shot]({PIXEL}) and `{PIXEL}` inline.\n"
)


def _read(tmp_path: Path, text: str) -> str:
    path = tmp_path / "note.md"
    path.write_text(text, encoding="utf-8")
    return read_document(SourceRef(path, "note.md", tmp_path)).text


def test_data_uris_in_fenced_and_indented_code_are_kept(tmp_path: Path) -> None:
    text = _read(tmp_path, NOTE)
    assert IMG_LINE in text.split("\n") and CSS_LINE in text.split("\n")
    assert f"`{PIXEL}`" in text  # inline code, as before
    assert "![shot]" not in text and text.count(PIXEL) == 3  # the pasted image outside code still goes
    # The reader view of a kept note keeps them too.
    shown = note_syntax_as_text(text).split("\n")
    assert IMG_LINE in shown and CSS_LINE in shown


def test_an_indented_list_paragraph_and_an_unclosed_fence_are_no_code() -> None:
    listed = f"- the shot:\n\n    ![shot]({PIXEL})\n"  # a list item's second paragraph
    assert PIXEL not in without_data_uris(listed)
    unclosed = f"```\n![shot]({PIXEL})\n"  # a stray fence: the rest of the note is still read as text
    assert PIXEL not in without_data_uris(unclosed)
    assert not code_blocks(listed) and not code_blocks(unclosed)


def test_a_base64_uri_never_runs_across_another_data_mark() -> None:
    # Each "data:" is a place to start, never part of the media type of one before it.
    text = "data:" * 5 + "image/png;base64,AAAA more"
    assert without_data_uris(text) == "data:" * 4 + " more"  # the last one's URI, no more
    assert without_data_uris("x" + "/data:" * 3 + ";base64,AAAA") == "x/data:/data:/"


def test_forty_kilobytes_of_data_marks_are_read_through() -> None:
    # Nothing to remove: the text comes back whole (the old pattern took seconds over it; no clock here).
    for text in ("data:" * 8000, "x" + "/data:" * 8000, "data:;" * 8000):
        assert without_data_uris(text) == text
