"""A legacy-encoded file with a few stray bytes keeps its codepage: a byte Windows-1252 cannot map is
damage to replace in Western prose, not a reason to read the whole file as cp775, cp1256 or cp1257; a
letter of another codepage inside a word (Slovak "ť" in cp1250) still says which codepage the file is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.walk import SourceRef, read_document

WESTERN = "Café crème at the métro with Renée. We agreed on the “xylophonic” plan for naïve Zoë. "


def _read(path: Path) -> tuple[str, str | None]:
    doc = read_document(SourceRef(path=path, relpath=path.name, root=path.parent))
    return doc.text, doc.decode_note


def test_the_reported_file_reads_as_cp1252_with_its_damage_replaced(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    raw = (
        b"Caf\xe9 cr\xe8me at the m\xe9tro with Ren\xe9e. \xff\xfe broken \x80\x81 bytes here. "
        b"We agreed on the xylophonic plan.\n"
    )
    (src / "f.txt").write_bytes(raw)
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    files = {f["relpath"]: f for f in json.loads(r.stdout)["files"]}
    assert files["f.txt"]["status"] == "done", r.output
    final = next((tmp_path / "out").glob("f.txt/summaries/*/final.md")).read_text(encoding="utf-8")
    assert "Café crème" in final and "Renée" in final
    assert 'decode_note: "lossy cp1252 decode: 1 invalid byte' in final


@pytest.mark.parametrize("stray", [b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d", b"\x81\x8d"])
def test_a_byte_cp1252_leaves_undefined_is_replaced_not_a_codepage_switch(tmp_path: Path, stray: bytes) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(WESTERN.encode("cp1252") * 3 + stray + b" " + WESTERN.encode("cp1252"))
    text, note = _read(path)
    assert text.replace("\ufffd", "").split() == (WESTERN * 4).split()
    assert note is not None and "cp1252" in note and "lossy" in note


# Stray bytes each codepage maps to nothing (cp1251 0x98, cp1253 0xAA) or to a lone symbol.
OTHER_SCRIPTS = [
    ("cp1251", "Вчера мы встретились с друзьями в кафе у метро и обсудили планы на лето и бюджет поездки. ", b"\x98"),
    ("cp1251", "Вчера мы встретились с друзьями в кафе у метро и обсудили планы на лето и бюджет поездки. ", b"\x81"),
    ("cp1253", "Χθες συναντηθήκαμε με φίλους στο καφέ κοντά στο μετρό και μιλήσαμε για το καλοκαίρι. ", b"\xaa"),
    ("cp1253", "Χθες συναντηθήκαμε με φίλους στο καφέ κοντά στο μετρό και μιλήσαμε για το καλοκαίρι. ", b"\x81"),
]


@pytest.mark.parametrize(("codec", "prose", "stray"), OTHER_SCRIPTS)
def test_cyrillic_and_greek_with_a_stray_byte_keep_their_letters(
    tmp_path: Path, codec: str, prose: str, stray: bytes
) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(prose.encode(codec) * 3 + stray + b" " + prose.encode(codec))
    text, note = _read(path)
    assert text.startswith(prose * 3) and text.endswith(prose)
    assert note is not None and "cp1252" not in note


def test_a_central_european_letter_cp1252_cannot_map_keeps_cp1250(tmp_path: Path) -> None:
    # Slovak "ť" (0x9D) and "Ť" (0x8D) are letters inside words: the file is cp1250, not cp1252 with damage.
    prose = "Chcel by som ťa vidieť, ale musím byť doma. Ťažko povedať, či to bude mať zmysel. "
    path = tmp_path / "sk.txt"
    path.write_bytes(prose.encode("cp1250") * 3)
    text, note = _read(path)
    assert text == prose * 3 and note == "decoded as cp1250 (not UTF-8)"
