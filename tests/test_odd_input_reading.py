"""Input a user's folder really holds, read as its app shows it: a note whose front matter names an impossible
day, UTF-16 without a BOM in Cyrillic, Chinese or Japanese, a page of tables nested past the reader's depth
limit, a note with a pasted data: image, an e-mail in undeclared Windows-1252, a session file saved by
PowerShell."""

from __future__ import annotations

import base64
import io
import json
import random
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError
from batchsum.walk import SourceRef, read_document

PROSE = (
    "Today I walked to the harbor and checked the tide gauge at pier four. The readings drifted again by "
    "three centimeters, which worries me. I called Maria and she agreed to recalibrate it on Friday. We also "
    "talked about the budget for next quarter, which is tight.\n"
)


def _read(path: Path) -> tuple[str, str | None]:
    doc = read_document(SourceRef(path=path, relpath=path.name, root=path.parent))
    return doc.text, doc.decode_note


def _run_json(*args: str) -> tuple[int, dict]:
    res = CliRunner().invoke(main, ["run", *args, "--no-index", "--json"])
    return res.exit_code, json.loads(res.stdout)


@pytest.mark.parametrize(
    "day", ["0000-00-00", "2024-02-30", "2024-13-45", "2024-02-29T25:61:00", "2024-01-01 10:00:00 +99:00"]
)
def test_an_impossible_front_matter_day_is_its_files_warning(tmp_path: Path, day: str) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "odd.md").write_text(f"---\ndate: {day}\n---\n{PROSE}", encoding="utf-8")
    (notes / "good.md").write_text(PROSE, encoding="utf-8")
    code, report = _run_json(str(notes), "--out", str(tmp_path / "o"))
    assert code == 0, report
    assert sorted(f["relpath"] for f in report["files"] if f["status"] == "done") == ["good.md", "odd.md"]
    assert any("odd.md" in w and "front matter" in w for w in report["warnings"]), report["warnings"]
    plan = CliRunner().invoke(main, ["plan", str(notes), "--out", str(tmp_path / "o2")])
    assert plan.exit_code == 0, plan.output


SCRIPTS = {
    "ru": "Сегодня я ходил в гавань и проверил мареограф. Показания снова ушли на три сантиметра.\n"
    "Мария обещала откалибровать его в пятницу. Бюджет на следующий квартал тесный.\n",
    "zh": "今天我去港口检查了四号码头的验潮仪。读数又偏了三厘米，这让我担心。\n"
    "我给玛丽亚打了电话，她同意周五重新校准。我们还谈了下个季度的预算，很紧。\n",
    "ja": "今日は港へ行き、四番桟橋の検潮器を確かめた。読みがまた三センチずれていて心配だ。\n"
    "マリアに電話すると、金曜日に校正し直すと言ってくれた。来期の予算の話もした。\n",
}


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("lang", sorted(SCRIPTS))
def test_utf16_without_a_bom_is_read_in_any_script(tmp_path: Path, lang: str, codec: str) -> None:
    path = tmp_path / f"{lang}.txt"
    path.write_bytes((SCRIPTS[lang] * 3).encode(codec))
    text, note = _read(path)
    assert text == SCRIPTS[lang] * 3 and note == f"{codec} (no BOM)"


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = bytes(random.Random(7).randrange(256) for _ in range(32 * 33 * 3))
    header = struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b"")


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a.txt", PROSE * 20)
        z.writestr("b.bin", bytes(range(256)) * 8, compress_type=zipfile.ZIP_STORED)
    return buf.getvalue()


@pytest.mark.parametrize("make", [_png, _zip, lambda: random.Random(3).randbytes(9000)])
def test_binary_files_are_still_no_text(tmp_path: Path, make: object) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(make())  # type: ignore[operator]
    with pytest.raises(InputError, match="binary"):
        _read(path)


def test_text_in_tables_nested_past_the_depth_limit_is_kept(tmp_path: Path) -> None:
    for depth in (40, 400):
        page = tmp_path / f"t{depth}.html"
        opening, closing = "<table><tr><td>" * depth, "</td></tr></table>" * depth
        page.write_text(f"<html><body>{opening}{PROSE}{closing}</body></html>", encoding="utf-8")
        assert _read(page)[0].split() == PROSE.split()
    # What a browser shows of a table outside its cells, and cells without a row, are text too.
    loose = tmp_path / "loose.html"
    loose.write_text("<table>Harbor log<td>pier four</td><td>3 cm</td></table>", encoding="utf-8")
    text = _read(loose)[0]
    assert "Harbor log" in text and "pier four" in text and "3 cm" in text


def test_a_pasted_data_image_is_no_text(tmp_path: Path) -> None:
    blob = base64.b64encode(random.Random(5).randbytes(300_000)).decode()
    note = tmp_path / "pier.md"
    note.write_text(
        f"# Pier notes\n\n{PROSE}\n![photo of the gauge](data:image/png;base64,{blob})\n\n"
        f'<img alt="gauge" src="data:image/png;base64,{blob[:5000]}">\n\n'
        f"The [raw readings](data:text/csv;base64,{blob[:400]}) are attached. `data:,kept in code`\n",
        encoding="utf-8",
    )
    text = _read(note)[0]
    assert "base64" not in text and blob[:40] not in text and "photo of the gauge" not in text
    assert "The raw readings are attached." in text and "`data:,kept in code`" in text
    code, report = _run_json(str(note), "--out", str(tmp_path / "o"))
    assert code == 0, report
    (record,) = report["files"]
    assert record["chunks"] == 0 and record["input_tokens"] < 200, record


MAIL = (
    "From: Ren\u00e9e <r@x.org>\nTo: b@x.org\nSubject: Porto\nDate: Mon, 2 Nov 2026 10:00:00 +0000\n{type}\n"
    "The offsite is in Porto, \u201cCasa do Farol\u201d, for \u20ac4,000. Please confirm by Friday.\n"
)


@pytest.mark.parametrize("declared", ["", "Content-Type: text/plain; charset=windows-1252\n"])
def test_8bit_windows_1252_mail_is_read_as_it_was_written(tmp_path: Path, declared: str) -> None:
    path = tmp_path / "porto.eml"
    path.write_bytes(MAIL.format(type=declared).encode("cp1252"))
    text, note = _read(path)
    assert "\ufffd" not in text
    assert "Renée" in text and "\u201cCasa do Farol\u201d" in text and "\u20ac4,000" in text
    assert note is not None and "cp1252" in note  # what was not UTF-8 is said, as a .txt's is
    utf8 = tmp_path / "utf8.eml"
    utf8.write_bytes(MAIL.format(type="Content-Type: text/plain; charset=utf-8\n").encode("utf-8"))
    assert _read(utf8) == (text, None)


@pytest.mark.parametrize("codec", ["utf-16", "cp1252"])
def test_compact_reads_a_session_as_run_does(tmp_path: Path, codec: str) -> None:
    session = tmp_path / "session.jsonl"
    turns = ({"role": "user", "content": f"step {i}: Renée's tide gauge drifted"} for i in range(30))
    lines = (json.dumps(turn, ensure_ascii=False) for turn in turns)
    session.write_bytes("".join(f"{ln}\n" for ln in lines).encode(codec))
    res = CliRunner().invoke(main, ["compact", str(session), "--context-window", "256"])
    assert res.exit_code == 0, res.output
    assert "step 29: Renée's tide gauge drifted" in res.stdout
