""".docx (Word) and .odt (OpenDocument) files are read from their bytes as Markdown: headings by style, list
paragraphs as "- " items, tables as rows, tracked insertions kept and deletions dropped; the title and the day
created come from the document's metadata. A file that is no such document skips with a reason."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers import office_docs
from batchsum.readers.office_docs import read_docx, read_odt
from batchsum.walk import SourceRef, read_document

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _p(text: str, style: str = "", num: int | None = None) -> str:
    props = f'<w:pStyle w:val="{style}"/>' if style else ""
    if num is not None:
        props += f'<w:numPr><w:ilvl w:val="{num}"/><w:numId w:val="1"/></w:numPr>'
    return f'<w:p><w:pPr>{props}<w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'  # noqa: E501


def _row(*cells: str) -> str:
    return "<w:tr>" + "".join(f"<w:tc>{_p(c)}</w:tc>" for c in cells) + "</w:tr>"


BODY = "".join(
    [
        _p("Ferry timetable review", "Title"),
        _p("Findings", "Heading1"),
        "<w:p><w:r><w:t>The morning ferry</w:t></w:r><w:r><w:tab/><w:t>runs late</w:t></w:r>"
        "<w:del><w:r><w:delText>every day</w:delText></w:r></w:del>"
        '<w:ins><w:r><w:t xml:space="preserve"> on Mondays</w:t></w:r></w:ins><w:r><w:br/><w:t>since March.</w:t></w:r>'
        '<w:r><w:footnoteReference w:id="1"/></w:r></w:p>',
        _p("Causes", "Kop2"),  # a localized style id: its name in styles.xml says "heading 2"
        _p("Crew shortage", num=0),
        _p("Night shifts", num=1),
        _p("Harbour works", "ListBullet"),
        "<w:tbl>" + _row("Route", "Delay") + _row("North | loop", "12 min") + "</w:tbl>",
        "<w:p/>",
    ]
)
STYLES = (
    f"<w:styles {W}>"
    '<w:style w:styleId="Kop2"><w:name w:val="heading 2"/></w:style>'
    '<w:style w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="2"/></w:numPr></w:pPr></w:style>'  # noqa: E501
    "</w:styles>"
)
CORE = (
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">'
    "<dc:title>Ferry memo</dc:title><dcterms:created>2024-03-12T09:00:00Z</dcterms:created></cp:coreProperties>"
)


def _zip(parts: dict[str, str | bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


def _docx(body: str = BODY, **extra: str) -> bytes:
    document = f"<w:document {W}><w:body>{body}<w:sectPr/></w:body></w:document>"
    return _zip({"[Content_Types].xml": "<Types/>", "word/document.xml": document, **extra})


def test_a_word_document_reads_as_markdown() -> None:
    text, created = read_docx(_docx(**{"word/styles.xml": STYLES, "docProps/core.xml": CORE}))
    assert created == "2024-03-12"
    assert text == (
        "# Ferry timetable review\n\n"
        "## Findings\n\n"
        "The morning ferry runs late on Mondays\nsince March.\n\n"  # w:tab a space, w:br a line, w:del dropped
        "### Causes\n\n"  # a Title moves the headings one level down
        "- Crew shortage\n  - Night shifts\n- Harbour works\n\n"
        "| Route | Delay |\n| --- | --- |\n| North \\| loop | 12 min |"
    )


def test_the_core_title_heads_a_document_without_one() -> None:
    text, created = read_docx(_docx(_p("Plain words."), **{"docProps/core.xml": CORE}))
    assert text == "# Ferry memo\n\nPlain words." and created == "2024-03-12"
    assert read_docx(_docx(_p("Plain words.")))[1] is None  # no metadata: dated otherwise


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"PK\x03\x04 this is no zip at all", "not a Word document: not a zip archive"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "legacy binary Office file"),
        (_zip({"mimetype": "application/epub+zip"}), "has no word/document.xml"),
        (_zip({"word/document.xml": "<w:document"}), "not well-formed XML"),
    ],
)
def test_bytes_that_are_no_word_document_give_a_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        read_docx(raw)


def test_a_zip_bomb_stops_at_the_cap() -> None:
    # A part that unpacks past the cap from a few hundred kilobytes, as a bomb does.
    big = f"<w:document {W}><w:body>{_p('x' * (office_docs.MAX_PART_BYTES + 1))}</w:body></w:document>"
    with pytest.raises(ValueError, match="too large"):
        read_docx(_zip({"word/document.xml": big}))


def test_word_files_are_summarized_dated_searched_and_bad_ones_skipped(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "memo.docx").write_bytes(_docx(**{"word/styles.xml": STYLES, "docProps/core.xml": CORE}))
    (corpus / "renamed.docx").write_text("I am a text file with the wrong extension.\n", encoding="utf-8")
    (corpus / "empty.docx").write_bytes(b"")
    (corpus / "truncated.docx").write_bytes(_docx()[:60])
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1, r.output
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert set(reasons) == {"renamed.docx", "truncated.docx"}, reasons
    assert all(reason.startswith(("not a Word document", "corrupt Word")) for reason in reasons.values()), reasons
    assert [f["relpath"] for f in data["files"] if f["status"] == "done"] == ["memo.docx"]
    skipped = {f["relpath"]: f["error"] for f in data["files"] if f["status"] == "skipped"}
    assert skipped["empty.docx"].startswith("empty file (0 bytes)")
    final = (out / "memo.docx" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "doc_date: '2024-03-12'" in final or 'doc_date: "2024-03-12"' in final
    assert "The morning ferry runs late on Mondays" in final and "every day" not in final
    found = CliRunner().invoke(main, ["search", "morning ferry late", "--out", str(out), "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)[0]["doc_id"] == "memo.docx"


ODT = (
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:text>'
    "<text:tracked-changes><text:changed-region><text:deletion><text:p>gone words</text:p></text:deletion>"
    "</text:changed-region></text:tracked-changes>"
    '<text:h text:outline-level="1">Site visit</text:h>'
    '<text:p>The crane<text:s text:c="3"/>arrives <text:span>on Tuesday</text:span>'
    "<text:note><text:note-body><text:p>a footnote</text:p></text:note-body></text:note>.</text:p>"
    "<text:list><text:list-item><text:p>Permits</text:p><text:list><text:list-item><text:p>Road</text:p>"
    "</text:list-item></text:list></text:list-item></text:list>"
    "<table:table><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell>"
    "<table:table-cell><text:p>Cost</text:p></table:table-cell></table:table-row></table:table>"
    "</office:text></office:body></office:document-content>"
)
ODT_META = (
    '<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/">'
    "<office:meta><dc:title>Visit</dc:title><meta:creation-date>2023-06-01T10:00:00</meta:creation-date>"
    "</office:meta></office:document-meta>"
)


def test_an_opendocument_text_reads_as_markdown(tmp_path: Path) -> None:
    raw = _zip({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": ODT, "meta.xml": ODT_META})
    text, created = read_odt(raw)
    assert created == "2023-06-01"
    assert (
        text == "# Site visit\n\nThe crane arrives on Tuesday.\n\n- Permits\n  - Road\n\n| Item | Cost |\n| --- | --- |"
    )
    path = tmp_path / "visit.odt"
    path.write_bytes(raw)
    doc = read_document(SourceRef(path, path.name, tmp_path))
    assert doc.text == text and (doc.doc_date, doc.date_source) == ("2023-06-01", "document properties")
    with pytest.raises(ValueError, match="has no content"):
        read_odt(_docx())
