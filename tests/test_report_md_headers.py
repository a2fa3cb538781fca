"""Every table of ``batchsum report --format md`` has one column per name: a bar charting a figure another
column holds is headed as that bar, so a script reading a table by its header keeps every column."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS


def test_no_markdown_table_repeats_a_column_name(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    shutil.copytree(SAMPLE_CORPUS / "journal", corpus / "journal")
    shutil.copytree(SAMPLE_CORPUS / "meetings", corpus / "meetings")
    run = ["run", str(corpus), "--out", str(out), "--no-index", "-q"]
    for _night in range(2):
        assert CliRunner().invoke(main, run).exit_code == 0
    md = CliRunner().invoke(main, ["report", "--out", str(out), "--last", "2", "--format", "md"]).stdout
    lines = md.splitlines()
    headers = [line for i, line in enumerate(lines[:-1]) if lines[i + 1].startswith("| ---")]
    assert len(headers) >= 5, md
    for header in headers:
        names = [cell.strip() for cell in header.strip("|").split("|") if cell.strip()]  # key-value tables: none
        assert len(names) == len(set(names)), header
    assert "| changed (full = the most) |" in md and "| tokens in (full = the most) |" in md
