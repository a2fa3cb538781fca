"""Code spans in the pages batchsum writes around finals (index.md, a digest's file list): kept as written,
since CommonMark decodes no entity inside one; text outside them is still escaped."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import escape_html

VECTORS = (
    "# Vectors\n\nThe type `Vec<T>` stores values of one type next to each other in memory, "
    "and it grows as you push onto it.\n"
)


def test_index_and_digest_keep_a_code_span_as_written(tmp_path: Path) -> None:
    src, out = tmp_path / "code", tmp_path / "out"
    src.mkdir()
    (src / "vectors.md").write_text(VECTORS, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
    assert r.exit_code == 0, r.output
    for page in (out / "index.md", out / "digests" / "top.md"):
        lines = [line for line in page.read_text(encoding="utf-8").splitlines() if "Vec" in line]
        assert lines, page
        for line in lines:
            assert "`Vec<T>`" in line and "&lt;" not in line, (page, line)


def test_escape_html_escapes_only_outside_code_spans() -> None:
    assert escape_html("`Vec<T>` and <b>") == "`Vec<T>` and &lt;b>"
    assert escape_html("&amp; `&amp;`") == "&amp;amp; `&amp;`"
    # A span closes on a run of exactly as many backticks as opened it.
    assert escape_html("``a`<b>`` <i>") == "``a`<b>`` &lt;i>"
    assert escape_html("`a``<b>`") == "`a``<b>`"
    # An unclosed run, or an escaped backtick, opens no span: what follows is prose.
    assert escape_html("`<b> never closed") == "`&lt;b> never closed"
    assert escape_html("\\`<b>` x") == "\\`&lt;b>` x"
    # Control characters are shown inside a span too: a newline would end the line.
    assert escape_html("`a\nb`") == "`a\\nb`"
