"""What decides whether a re-read file is summarized again is the text it reads as, not its bytes: a
document saved again with the same text keeps its summaries (no request, no new link in a rolling
chain), and a file whose bytes did not change but whose text did (a LaTeX main file whose ``\\input``
changed) is summarized again once it is touched."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
PARAS = [
    "The harbour board met on Tuesday to plan the new ferry timetable for the summer season.",
    "Anna will ask the ferry company for the cost of a second morning boat before the next meeting.",
    "The board agreed to repaint the waiting room in May and to fix the broken ticket machine.",
] * 4


def _docx(path: Path, stamp: tuple[int, int, int, int, int, int]) -> None:
    """A Word document holding PARAS, its zip entries dated ``stamp`` (what saving it again changes)."""
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in PARAS)
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.wordprocessingml.document.main+xml"/></Types>',
        "word/document.xml": f'<?xml version="1.0"?><w:document {W}><w:body>{body}</w:body></w:document>',
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, text in parts.items():
            z.writestr(zipfile.ZipInfo(name, date_time=stamp), text)


def _run(src: Path, out: Path, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--no-digests", "--json", *args])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _status(data: dict[str, Any]) -> dict[str, str]:
    return {f["relpath"]: f["status"] for f in data["files"]}


def _touch(path: Path, seconds: int) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def test_a_document_saved_again_with_the_same_text_is_not_summarized_again(tmp_path: Path) -> None:
    src, out = tmp_path / "docs", tmp_path / "out"
    src.mkdir()
    memo = src / "memo.docx"
    _docx(memo, (2024, 3, 12, 9, 0, 0))
    with FakeLLMServer().start() as server:
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0", "--tpm", "0"]
        assert _status(_run(src, out, *llm)) == {"memo.docx": "done"}
        before = memo.read_bytes()
        _docx(memo, (2025, 1, 2, 10, 30, 0))
        _touch(memo, 60)
        assert memo.read_bytes() != before
        server.configure(reset_log=True)
        assert _status(_run(src, out, *llm)) == {"memo.docx": "unchanged"}
        assert server.request_count == 0, "no paid request for the same text"
        assert not (out / "memo.docx" / "summaries" / "history").exists(), "no new link in its chain"
        # Recorded as it is now: the next run does not even read it.
        assert _status(_run(src, out, *llm)) == {"memo.docx": "unchanged"}
        assert server.request_count == 0


def test_a_latex_file_touched_after_its_input_changed_is_summarized_again(tmp_path: Path) -> None:
    src, out = tmp_path / "paper", tmp_path / "out"
    (src / "sections").mkdir(parents=True)
    main_tex = src / "main.tex"
    main_tex.write_text(
        "\\documentclass{article}\n\\title{Tidal Sensors}\n\\begin{document}\n\\maketitle\n"
        "\\input{sections/intro}\n\\section{Results}\n"
        "The buoys reported water levels every ten minutes with a median error of four millimetres.\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    intro = src / "sections" / "intro.tex"
    intro.write_text("\\section{Introduction}\nCoastal flooding threatens harbors every winter.\n", encoding="utf-8")
    _run(src, out)
    intro.write_text(
        "\\section{Introduction}\nThe QUOKKAWORD flood in the northern harbor started this study.\n", encoding="utf-8"
    )
    _touch(intro, 60)
    _run(src, out)
    _touch(main_tex, 60)
    data = _run(src, out)
    assert _status(data)["main.tex"] == "done", data["files"]
    final = (out / "main.tex" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "QUOKKAWORD" in final
