"""A byte order mark is no proof of text: what follows it must read as text, as a file without one must.
Binary bytes after a BOM are skipped as binary, UTF-32 is read as UTF-32 (its LE BOM begins with UTF-16-LE's),
and a lossy decode after a BOM (a UTF-16 file cut to an odd length) is a warning."""

from __future__ import annotations

import codecs
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.decoding import decode_bytes

PROSE = "We walked along the harbour wall and watched the ferries come in. Later I cooked a fish stew.\n" * 3
JAPANESE = "今日は港まで歩いて、フェリーが入ってくるのを見ました。夕方には魚のシチューを作りました。\n" * 3


def _run(tmp_path: Path, files: dict[str, bytes]) -> tuple[dict, dict]:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for name, raw in files.items():
        (corpus / name).write_bytes(raw)
    (corpus / "walk.md").write_text(PROSE)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    report = json.loads(res.stdout)
    return {f["relpath"]: f for f in report["files"]}, report


def _noise(seed: int, n: int = 6000) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


@pytest.mark.parametrize("bom", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF8, codecs.BOM_UTF32_BE])
def test_binary_bytes_after_a_bom_are_skipped_as_binary(tmp_path: Path, bom: bytes) -> None:
    files, _ = _run(tmp_path, {f"bin{seed}.md": bom + _noise(seed) for seed in range(3)})
    assert files["walk.md"]["status"] == "done"
    for seed in range(3):
        got = files[f"bin{seed}.md"]
        assert got["status"] == "skipped" and "binary" in got["error"], got
    assert not list((tmp_path / "out").rglob("bin*"))


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be", "utf-8"])
@pytest.mark.parametrize("text", [PROSE, JAPANESE])
def test_text_after_a_bom_is_read_in_its_own_encoding(tmp_path: Path, codec: str, text: str) -> None:
    files, report = _run(tmp_path, {"note.md": ("\ufeff" + text).encode(codec)})
    assert files["note.md"]["status"] == "done", files["note.md"]
    final = next((tmp_path / "out").glob("note.md/summaries/*/final.md")).read_text()
    assert f"decode_note: {codec[:6]}" in final
    assert "lossy" not in final
    # Read in the wrong width, UTF-32's NULs had been "control characters removed".
    assert not any("note.md" in w for w in report["warnings"]), report["warnings"]
    first_words = text.split("。")[0].split(" ")[0]
    assert first_words in final


def test_a_utf16_file_cut_to_an_odd_length_is_kept_with_a_warning(tmp_path: Path) -> None:
    raw = ("\ufeff" + PROSE).encode("utf-16-le")[:-1]
    files, report = _run(tmp_path, {"cut.md": raw})
    assert files["cut.md"]["status"] == "done"
    assert any("cut.md" in w and "lossy utf-16" in w for w in report["warnings"]), report["warnings"]


@pytest.mark.parametrize("raw", [b"\xff\xfe\x00", b"\xfe\xff\xd8", b"\xff\xfe\x00\xd8"])
def test_a_bom_followed_by_no_character_is_skipped(tmp_path: Path, raw: bytes) -> None:
    files, _ = _run(tmp_path, {"stub.md": raw})
    assert files["stub.md"]["status"] == "skipped", files["stub.md"]
    assert not list((tmp_path / "out").rglob("stub*"))


@pytest.mark.parametrize("codec", ["utf-16", "utf-32"])
@pytest.mark.parametrize("note", ["今日は雨。", "Привет", "雨"])
def test_a_short_note_after_a_bom_is_read(codec: str, note: str) -> None:
    # Notepad saves a one-line note as UTF-16 with a BOM: the BOM says what the bytes are, however short.
    assert decode_bytes(note.encode(codec)) == (note, f"{codec} (BOM)")
