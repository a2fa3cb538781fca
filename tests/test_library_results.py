"""What the library hands back stays usable: absolute paths after the caller changes folder, a short
repr; and a refused facts call leaves nothing behind."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import batchsum
from batchsum.errors import ConfigError
from tests.conftest import SAMPLE_CORPUS


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "work" / "src"
    src.mkdir(parents=True)
    for name in ("2026-10-01.md", "2026-10-02.md"):
        shutil.copy(SAMPLE_CORPUS / "journal" / name, src / name)
    return src


def test_finals_survive_a_change_of_folder(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(corpus.parent)
    result = batchsum.run("src", out="out", no_index=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert result.out.is_absolute() and result.out == corpus.parent / "out"
    finals = result.finals()
    assert set(finals) == {"2026-10-01.md", "2026-10-02.md"}
    assert all(path.is_absolute() and path.is_file() for path in finals.values())


def test_results_have_a_short_repr(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = batchsum.run(str(corpus), out=str(out), no_index=True)
    text = repr(result)
    assert len(text) < 300 and "status='ok'" in text and "files=2" in text and str(out) in text
    assert all(f.sha256 not in text for f in result.files)
    stats = repr(batchsum.report(str(out)))
    assert len(stats) < 300 and "runs=1" in stats


def test_facts_without_an_llm_leave_no_output(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "facts-out"
    with pytest.raises(ConfigError, match="base-url"):
        batchsum.facts(str(corpus), out=str(out))
    assert not out.exists()


def test_the_summary_line_counts_one_file_and_a_tiny_ratio_as_they_are(corpus: Path, tmp_path: Path) -> None:
    """One file is "1 file", and a ratio under 0.1 % shows two figures: a 5 MB log summarized in 450 tokens had
    read "1 files" and "(0.0%)", as if nothing had been written."""
    one = corpus / "2026-10-01.md"
    result = batchsum.run(str(one), out=str(tmp_path / "out"), no_index=True)
    line = result.summary_line()
    assert line.startswith("1 file (") and "1 files" not in line, line
    big = replace(result, run=replace(result.run, input_tokens=1_468_671, output_tokens=450))
    assert "tokens 1,468,671 → 450 in finals (0.031%)" in big.summary_line()
    none = replace(result, run=replace(result.run, input_tokens=0, output_tokens=0))
    assert "in finals (0.0%)" in none.summary_line()
