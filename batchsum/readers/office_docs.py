"""Word (``.docx``) and OpenDocument (``.odt``) files read from their bytes as Markdown, with the stdlib only.

Both are zip archives of XML parts. A ``.docx``'s ``word/document.xml``: paragraphs with their runs' text, heading
styles (``Title``, ``Heading 1`` .. ``Heading 6``, by the style's name in ``word/styles.xml``, which Word writes in
English whatever the language of its menus) as ``#`` headings, list paragraphs as ``- `` lines, tables as Markdown
rows (a table nested in a cell as the cell's text), Symbol-font characters as themselves; of tracked changes,
insertions are kept and deletions left out; footnotes and comments are not read. An ``.odt``'s ``content.xml``
likewise (``text:h``, ``text:p``, ``text:list``, ``table:table``; a frame's text boxes as paragraphs after their
paragraph). The document's title (``dc:title``) is the ``#`` title when its text has none, and the day it was
created dates it.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from xml.etree import ElementTree as ET

from batchsum.doc_dates import stamp_day
from batchsum.readers.html_text import join_blocks, markdown_table

__all__ = ["docx_source", "odt_source", "read_docx", "read_odt"]

MAX_PART_BYTES = 50 * 1024 * 1024  # a part's uncompressed size read at most: a zip bomb stops here
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_CREATED = "{http://purl.org/dc/terms/}created"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
# The Symbol font's characters by its code (Word's w:sym writes them in the private-use area, U+F0xx): math,
# arrows, bullets and Greek letters; any other symbol font's (Wingdings' pictures) is no text.
_SYMBOL = dict(
    zip(
        b"\xb3\xa3\xb9\xb1\xb4\xb8\xae\xac\xad\xaf\xab\xb0\xb7\xa5\xbb\xba\xd6\xe5\xd5\xb6\xf2\xa2\xb2\xbc\xde\xdc\xdb"
        b"\xd7\xc6\xce\xcf\xc7\xc8\xd8\xd9\xda\x22\x24\x5c\x7e\x2d\xa7\xa8\xa9\xaa"
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        "≥≤≠±×÷→←↑↓↔°•∞≈≡√∑∏∂∫′″…⇒⇐⇔⋅∅∈∉∩∪¬∧∨∀∃∴∼−♣♦♥♠ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖαβχδεφγηιϕκλμνοπθρστυϖωξψζ",
        strict=True,
    )
)
_OLE = b"\xd0\xcf\x11\xe0"  # a legacy .doc, or a password-protected (encrypted) .docx

Blocks = list[tuple[str, str]]


class _Archive:
    """The parts of a zip archive, each read within :data:`MAX_PART_BYTES`."""

    def __init__(self, raw: bytes, kind: str) -> None:
        self.kind = kind
        if raw.startswith(_OLE):
            raise ValueError(f"not a {kind}: a legacy binary Office file or a password-protected one (OLE format)")
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(raw))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError):
            raise ValueError(f"not a {kind}: not a zip archive (corrupt, or another format)") from None

    def has(self, name: str) -> bool:
        return name in self.zip.NameToInfo

    def xml(self, name: str) -> ET.Element:
        """The part ``name`` parsed. Raises ValueError for a part too large, damaged or not XML."""
        try:
            info = self.zip.getinfo(name)
            if info.file_size > MAX_PART_BYTES:
                raise ValueError(f"{self.kind} too large: {name} holds {info.file_size} bytes (read: 50 MB at most)")
            with self.zip.open(info) as fh:
                data = fh.read(MAX_PART_BYTES + 1)  # the header's size may lie: never inflate past the cap
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, RuntimeError, NotImplementedError) as e:
            raise ValueError(f"corrupt {self.kind}: {name} cannot be read ({e})") from None
        if len(data) > MAX_PART_BYTES:
            raise ValueError(f"{self.kind} too large: {name} inflates past 50 MB")
        if b"<!DOCTYPE" in data[:4096] or b"<!ENTITY" in data[:4096]:
            raise ValueError(f"corrupt {self.kind}: {name} declares a DOCTYPE, which no such part has")
        try:
            return ET.fromstring(data)
        except ET.ParseError as e:
            raise ValueError(f"corrupt {self.kind}: {name} is not well-formed XML ({e})") from None

    def metadata(self, name: str, created: str) -> tuple[str, str | None]:
        """(title, ISO day created) from the metadata part ``name``; a damaged one is no reason to skip."""
        if not self.has(name):
            return "", None
        try:
            root = self.xml(name)
        except ValueError:
            return "", None
        title = " ".join("".join("".join(e.itertext()) for e in root.iter(_DC_TITLE)).split())
        when = next((e.text for e in root.iter(created) if e.text), None)
        return title, stamp_day(when) if when else None


def _titled(blocks: Blocks, title: str) -> str:
    """The blocks as Markdown, ``title`` its ``#`` heading when it has none and some text."""
    if title and blocks and not any(kind == "h1" for kind, _ in blocks):
        blocks = [("h1", f"# {title}"), *blocks]
    return join_blocks(blocks)


def _rows_block(rows: list[list[str]], blocks: Blocks) -> None:
    """A table's rows as a Markdown table; a one-column table (a box around text) as its paragraphs."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return
    if max(len(r) for r in rows) == 1:
        blocks.extend(("p", r[0]) for r in rows)
    else:
        blocks.append(("table", markdown_table(rows)))


def _lines(text: str) -> str:
    return "\n".join(s for line in text.split("\n") if (s := " ".join(line.split())))


# --- .docx ---------------------------------------------------------------------------------------------------


class _Word:
    """A ``.docx``'s body read as blocks, its styles telling headings and lists."""

    def __init__(self, styles: ET.Element | None) -> None:
        self.names: dict[str, str] = {}  # style id: name, lower case
        self.based: dict[str, str] = {}
        self.listed: set[str] = set()  # styles numbering their paragraphs (List Bullet)
        for style in styles.iter(f"{_W}style") if styles is not None else ():
            sid = style.get(f"{_W}styleId", "")
            name = style.find(f"{_W}name")
            self.names[sid] = (name.get(f"{_W}val", "") if name is not None else sid).lower()
            if (based := style.find(f"{_W}basedOn")) is not None:
                self.based[sid] = based.get(f"{_W}val", "")
            if style.find(f"{_W}pPr/{_W}numPr") is not None:
                self.listed.add(sid)
        self.shift = 0  # 1 when a Title style opens the document: its headings go one level down

    def level(self, style: str) -> int | None:
        """The heading level of paragraph style ``style`` (0 for a Title), through its basedOn chain."""
        for _ in range(8):
            name = self.names.get(style, style.lower())
            if name == "title":
                return 0
            m = re.fullmatch(r"heading ?([1-9])", name)
            if m:
                return int(m.group(1))
            if style not in self.based:
                return None
            style = self.based[style]
        return None

    def blocks(self, container: ET.Element, *, flat: bool = False) -> Blocks:
        """The paragraphs and tables of ``container`` (a body, a table cell, a text box) as blocks; ``flat``:
        a table as the plain text of its cells (one nested in a cell, which no Markdown row can hold)."""
        out: Blocks = []
        for child in container:
            if child.tag == f"{_W}p":
                out.extend(self.paragraph(child))
            elif child.tag == f"{_W}tbl":
                rows = [[self.cell(tc) for tc in _cells(tr)] for tr in _word_rows(child)]
                if flat:
                    out.append(("p", " ".join(c for r in rows for c in r if c)))
                else:
                    _rows_block(rows, out)
            elif child.tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}ins", f"{_W}customXml", f"{_W}smartTag"):
                out.extend(self.blocks(child, flat=flat))  # a content control's or an inserted paragraph's blocks
        return out

    def cell(self, tc: ET.Element) -> str:
        return " ".join(text.replace("\n", " ") for _, text in self.blocks(tc, flat=True) if text)

    def paragraph(self, p: ET.Element) -> Blocks:
        """The paragraph's block, then the blocks of the text boxes anchored in it."""
        pieces: list[str] = []
        boxes: Blocks = []
        self._runs(p, pieces, boxes)
        text = _lines("".join(pieces))
        if not text:
            return boxes
        props = p.find(f"{_W}pPr")
        style = props.find(f"{_W}pStyle") if props is not None else None
        sid = style.get(f"{_W}val", "") if style is not None else ""
        level = self.level(sid) if sid else None
        if level is not None:
            if level == 0:
                self.shift = 1
            n = min(6, max(1, level + self.shift))
            return [(f"h{n}", "#" * n + " " + text.replace("\n", " ")), *boxes]
        numbered = props is not None and props.find(f"{_W}numPr") is not None
        if numbered or sid in self.listed:
            ilvl = props.find(f"{_W}numPr/{_W}ilvl") if props is not None else None
            depth = _int(ilvl.get(f"{_W}val", "0")) if ilvl is not None else 0
            indent = "  " * min(depth, 8)
            return [("li", indent + "- " + text.replace("\n", "\n" + indent + "  ")), *boxes]
        return [("p", text), *boxes]

    def _runs(self, node: ET.Element, pieces: list[str], boxes: Blocks) -> None:
        for child in node:
            tag = child.tag
            if tag == f"{_W}t":
                pieces.append(child.text or "")
            elif tag in (f"{_W}tab", f"{_W}ptab"):
                pieces.append(" ")
            elif tag in (f"{_W}br", f"{_W}cr"):
                pieces.append("\n")
            elif tag == f"{_W}noBreakHyphen":
                pieces.append("-")
            elif tag == f"{_W}sym":
                pieces.append(_symbol(child))
            elif tag == f"{_W}txbxContent":
                boxes.extend(self.blocks(child))
            elif tag in _NO_TEXT:
                continue
            else:
                self._runs(child, pieces, boxes)


# Tracked deletions (and a move's old place), properties (a tab stop is a w:tab too), field codes, and the
# fallback copy of a drawing (its text box is read once, from mc:Choice).
_NO_TEXT = frozenset(
    f"{_W}{t}" for t in ("del", "delText", "moveFrom", "pPr", "rPr", "instrText", "delInstrText", "fldData")
) | {_MC_FALLBACK}


def _symbol(sym: ET.Element) -> str:
    """A w:sym's character: the Symbol font's by its code (F0B3 or B3: "≥"), nothing for another font's."""
    font = sym.get(f"{_W}font", "Symbol").lower()
    code = int(c, 16) if re.fullmatch(r"[0-9A-Fa-f]{1,4}", c := sym.get(f"{_W}char", "")) else -1
    if font != "symbol" or not (0xF000 <= code <= 0xF0FF or 0 <= code <= 0xFF):
        return ""
    return _SYMBOL.get(code & 0xFF, "")


def _own(parent: ET.Element, tag: str, wrappers: tuple[str, ...]) -> Iterator[ET.Element]:
    """``parent``'s own ``tag`` elements, through the ``wrappers`` around them (content controls, row groups),
    not those of a table nested in one of its cells."""
    for child in parent:
        if child.tag == tag:
            yield child
        elif child.tag in wrappers:
            yield from _own(child, tag, wrappers)


def _word_rows(tbl: ET.Element) -> Iterator[ET.Element]:
    """A Word table's own rows."""
    return _own(tbl, f"{_W}tr", (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml"))


def _cells(tr: ET.Element) -> Iterator[ET.Element]:
    return _own(tr, f"{_W}tc", (f"{_W}sdt", f"{_W}sdtContent"))


def _int(text: str) -> int:
    return int(text) if text.isdigit() else 0


def read_docx(raw: bytes) -> tuple[str, str | None]:
    """(Markdown text, ISO day created or None) of the Word document ``raw`` (see the module's docstring).
    Raises ValueError with a one-line reason for bytes that are no readable ``.docx``."""
    if not raw:
        return "", None  # Windows' "New > Word document" is 0 bytes: an empty file, no damaged one
    archive = _Archive(raw, "Word document")
    part = "word/document.xml"
    if not archive.has(part):
        raise ValueError("not a Word document: the zip archive has no word/document.xml")
    root = archive.xml(part)
    body = root.find(f"{_W}body")
    if body is None:
        raise ValueError("corrupt Word document: word/document.xml has no body")
    word = _Word(archive.xml("word/styles.xml") if archive.has("word/styles.xml") else None)
    try:
        blocks = word.blocks(body)
    except RecursionError:
        raise ValueError("corrupt Word document: elements nested too deep to read") from None
    title, created = archive.metadata("docProps/core.xml", _CREATED)
    return _titled(blocks, title), created


# --- .odt ----------------------------------------------------------------------------------------------------

# Notes (footnotes, endnotes), annotations (comments) and the record of tracked changes (deleted text) are
# not the document's text.
_ODT_SKIPPED = frozenset({f"{_TEXT}note", f"{_OFFICE}annotation", f"{_TEXT}tracked-changes", f"{_TEXT}bookmark"})


class _Odt:
    def blocks(self, container: ET.Element, depth: int = 0, *, flat: bool = False) -> Blocks:
        """The blocks of ``container``; ``flat``: a table as the plain text of its cells (one nested in a cell)."""
        out: Blocks = []
        for child in container:
            tag = child.tag
            if tag == f"{_TEXT}h":
                level = min(6, max(1, _int(child.get(f"{_TEXT}outline-level", "1"))))
                if text := _lines(self.inline(child, [])).replace("\n", " "):
                    out.append((f"h{level}", "#" * level + " " + text))
            elif tag == f"{_TEXT}p":
                boxes: list[ET.Element] = []
                if text := _lines(self.inline(child, boxes)):
                    out.append(("p", text))
                for box in boxes:  # a frame's text boxes: paragraphs of their own, after their anchor's
                    out.extend(self.blocks(box, depth, flat=flat))
            elif tag == f"{_TEXT}list":
                out.extend(self.items(child, depth))
            elif tag == f"{_TABLE}table":
                rows = [[self.cell(c) for c in _odt_cells(r)] for r in _odt_rows(child)]
                if flat:
                    out.append(("p", " ".join(c for r in rows for c in r if c)))
                else:
                    _rows_block(rows, out)
            elif tag in (f"{_TEXT}section", f"{_TABLE}table-header-rows", f"{_TEXT}soft-page-break"):
                out.extend(self.blocks(child, depth, flat=flat))
        return out

    def items(self, lst: ET.Element, depth: int) -> Blocks:
        out: Blocks = []
        indent = "  " * min(depth, 8)
        for item in lst:
            if item.tag not in (f"{_TEXT}list-item", f"{_TEXT}list-header"):
                continue
            for kind, text in self.blocks(item, depth + 1):
                if kind == "li" or kind.startswith("h"):  # a nested list's item (indented), a numbered heading
                    out.append((kind, text))
                else:
                    out.append(("li", indent + "- " + text.lstrip("# ").replace("\n", "\n" + indent + "  ")))
        return out

    def cell(self, cell: ET.Element) -> str:
        return " ".join(text.replace("\n", " ") for _, text in self.blocks(cell, flat=True) if text)

    def inline(self, node: ET.Element, boxes: list[ET.Element]) -> str:
        """``node``'s text on its lines; the text boxes of its frames go to ``boxes`` (an image's title and
        description are no text)."""
        pieces = [node.text or ""]
        for child in node:
            tag = child.tag
            if tag == f"{_TEXT}s":
                pieces.append(" " * max(1, _int(child.get(f"{_TEXT}c", "1"))))
            elif tag == f"{_TEXT}tab":
                pieces.append(" ")
            elif tag == f"{_TEXT}line-break":
                pieces.append("\n")
            elif tag == f"{_DRAW}frame":
                boxes.extend(child.iter(f"{_DRAW}text-box"))
                pieces.append(" ")  # where the frame stood: the sentences around it are apart
            elif tag not in _ODT_SKIPPED:
                pieces.append(self.inline(child, boxes))
            pieces.append(child.tail or "")
        return "".join(pieces)


def _odt_rows(table: ET.Element) -> Iterator[ET.Element]:
    """An OpenDocument table's own rows (through header rows and row groups)."""
    groups = (f"{_TABLE}table-header-rows", f"{_TABLE}table-rows", f"{_TABLE}table-row-group")
    return _own(table, f"{_TABLE}table-row", groups)


def _odt_cells(row: ET.Element) -> Iterator[ET.Element]:
    return _own(row, f"{_TABLE}table-cell", ())


def read_odt(raw: bytes) -> tuple[str, str | None]:
    """(Markdown text, ISO day created or None) of the OpenDocument text ``raw`` (see the module's
    docstring). Raises ValueError with a one-line reason for bytes that are no readable ``.odt``."""
    if not raw:
        return "", None
    archive = _Archive(raw, "OpenDocument text")
    if not archive.has("content.xml"):
        raise ValueError("not an OpenDocument text: the zip archive has no content.xml")
    body = archive.xml("content.xml").find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        raise ValueError("not an OpenDocument text: content.xml has no office:text body")
    try:
        blocks = _Odt().blocks(body)
    except RecursionError:
        raise ValueError("corrupt OpenDocument text: elements nested too deep to read") from None
    title, created = archive.metadata("meta.xml", f"{_META}creation-date")
    return _titled(blocks, title), created


Source = tuple[tuple[str, str | None], tuple[str, str] | None]


def _source(read: tuple[str, str | None]) -> Source:
    text, created = read
    return (text, None), ((created, "document properties") if created else None)


def docx_source(raw: bytes | bytearray) -> Source:
    """A ``.docx``'s bytes as a run reads them: (Markdown, no decoding note), (day created, its source) or None."""
    return _source(read_docx(bytes(raw)))


def odt_source(raw: bytes | bytearray) -> Source:
    """An ``.odt``'s bytes as a run reads them: (Markdown, no decoding note), (day created, its source) or None."""
    return _source(read_odt(bytes(raw)))
