"""The report's trend shows what each run read (its summarized files' input tokens) apart from the corpus
total: a night that changed one file of many was shown as reading the whole corpus again."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

import batchsum
from batchsum.cli import main

SENTENCE = "The committee met on {n} to review the bridge budget, the river survey and the school repairs. "


def _report(out: Path, *args: str) -> str:
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--last", "2", *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def _two_nights(tmp_path: Path) -> tuple[Path, int]:
    """Five notes summarized, then one of them changed and the folder run again; the plan's input tokens of
    the second night."""
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    for n in range(5):
        (src / f"note{n}.md").write_text(SENTENCE.format(n=n) * (20 + 10 * n), encoding="utf-8")
    batchsum.run(src, out=out, index=False, quiet=True)
    (src / "note0.md").write_text(SENTENCE.format(n="Monday") * 25, encoding="utf-8")
    planned = batchsum.plan(src, out=out, index=False).input_tokens
    batchsum.run(src, out=out, index=False, quiet=True)
    return out, planned


def test_trend_shows_what_each_run_read_apart_from_the_corpus(tmp_path: Path) -> None:
    out, planned = _two_nights(tmp_path)
    first, second = json.loads(_report(out, "--format", "json"))["trend"]
    assert first["input_tokens"] == first["corpus_input_tokens"]  # the first night read every file
    assert 0 < second["input_tokens"] == planned < second["corpus_input_tokens"] / 3
    assert second["corpus_input_tokens"] > first["input_tokens"] / 2  # the corpus total is kept, as its own field
    rows = {
        (r["section"], r["key"], r["metric"]): r["value"]
        for r in csv.DictReader(io.StringIO(_report(out, "--format", "csv")))
    }
    assert rows[("trend", second["run_id"], "input_tokens")] == str(planned)
    lines = _report(out, "--format", "md").splitlines()
    at = next(i for i, line in enumerate(lines) if "tokens read" in line)
    assert "corpus tokens" in lines[at]
    row = next(line for line in lines[at:] if second["run_id"] in line)
    assert f"{planned:,}" in row and f"{second['corpus_input_tokens']:,}" in row


def test_html_chart_of_input_tokens_shows_what_each_run_read(tmp_path: Path) -> None:
    out, planned = _two_nights(tmp_path)
    page = tmp_path / "report.html"
    _report(out, "--html", str(page))
    html = page.read_text(encoding="utf-8")
    chart = next(svg for svg in re.findall(r"<svg.*?</svg>", html, re.S) if "Input tokens read" in svg)
    bars: list[Any] = [int(v.replace(",", "")) for v in re.findall(r"<title>[^<:]*: ([\d,]+)</title>", chart)]
    assert len(bars) == 2 and bars[1] == planned < bars[0]
