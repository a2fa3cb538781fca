"""Word and OpenDocument details read as their text: a table nested in a cell once (as the cell's text), an
.odt frame's text box as paragraphs of its own and an image's title left out, and Word's Symbol-font
characters (w:sym) kept as the characters they show."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from batchsum.walk import SourceRef, read_document

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"'
)


def _zip(parts: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


def _read(tmp_path: Path, name: str, raw: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(raw)
    return read_document(SourceRef(path, name, tmp_path)).text


def _docx(body: str) -> bytes:
    return _zip({"word/document.xml": f"<w:document {W}><w:body>{body}</w:body></w:document>"})


def _p(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def _tc(*content: str) -> str:
    return "<w:tc>" + "".join(content) + "</w:tc>"


def test_a_table_nested_in_a_word_cell_is_that_cell_s_text_once(tmp_path: Path) -> None:
    inner = "<w:tbl><w:tr>" + _tc(_p("Bolts")) + _tc(_p("40")) + "</w:tr></w:tbl>"
    body = (
        "<w:tbl><w:tr>" + _tc(_p("Item")) + _tc(_p("Parts")) + "</w:tr>"
        "<w:tr>" + _tc(_p("Crane")) + _tc(_p("List:"), inner) + "</w:tr></w:tbl>"
    )
    text = _read(tmp_path, "parts.docx", _docx(body))
    rows = [line for line in text.split("\n") if line.startswith("|")]
    assert len(rows) == 3 and text.count("Bolts") == 1, text  # header, rule, one row: no row of the inner table
    assert rows[2].split("|")[2].split() == ["List:", "Bolts", "40"], rows


def test_word_symbol_characters_are_kept(tmp_path: Path) -> None:
    def sym(char: str, font: str = "Symbol") -> str:
        return f'<w:r><w:sym w:font="{font}" w:char="{char}"/></w:r>'

    body = (
        "<w:p><w:r><w:t xml:space='preserve'>Keep it </w:t></w:r>" + sym("F0B3") + sym("00A3") + sym("F0B1")
        + "<w:r><w:t xml:space='preserve'> 4</w:t></w:r>" + sym("F0B0") + "<w:r><w:t>C, </w:t></w:r>"
        + sym("F061") + sym("F0AE") + sym("F0E0", "Wingdings") + "<w:r><w:t>end</w:t></w:r></w:p>"
    )  # fmt: skip
    assert _read(tmp_path, "cold.docx", _docx(body)) == "Keep it ≥≤± 4°C, α→end"


def test_an_odt_frame_s_text_box_is_its_own_paragraphs(tmp_path: Path) -> None:
    frame = (
        '<draw:frame draw:name="Frame1"><draw:text-box><text:p>Figure 1: North field plots.</text:p>'
        "<text:p>Source: survey 2021.</text:p></draw:text-box></draw:frame>"
        "<draw:frame><draw:image><svg:title>logo.png</svg:title><svg:desc>A green logo</svg:desc></draw:image>"
        "</draw:frame>"
    )
    body = f"<text:p>The site map is shown below.{frame}Plots were harvested in June.</text:p>"
    content = f"<office:document-content {ODT_NS}><office:body><office:text>{body}</office:text></office:body></office:document-content>"  # noqa: E501
    text = _read(tmp_path, "plots.odt", _zip({"content.xml": content}))
    paragraphs = text.split("\n\n")
    assert paragraphs[0].split() == "The site map is shown below. Plots were harvested in June.".split(), text
    assert paragraphs[1:] == ["Figure 1: North field plots.", "Source: survey 2021."], text
    assert "logo" not in text


def test_a_created_day_not_on_the_calendar_dates_nothing(tmp_path: Path) -> None:
    # "2024-13-45" as a real date had made every digest of the run fail ("tuple index out of range"; review).
    core = (
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dcterms="http://purl.org/dc/terms/">'
        "<dcterms:created>2024-13-45T10:00:00Z</dcterms:created></cp:coreProperties>"
    )
    raw = _zip(
        {
            "word/document.xml": f"<w:document {W}><w:body>{_p('We went to the market.')}</w:body></w:document>",
            "docProps/core.xml": core,
        }
    )
    path = tmp_path / "notes.docx"
    path.write_bytes(raw)
    doc = read_document(SourceRef(path, path.name, tmp_path))
    assert doc.date_source == "mtime" and doc.doc_date != "2024-13-45"
