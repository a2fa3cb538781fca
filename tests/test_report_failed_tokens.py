"""A report row's tokens in, tokens out and out/in are over the same files: a failed file counts in none."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer

FAILING = "Tidewater sensor network is finally"  # a phrase of one journal file only: its requests fail


def _failed_run(tmp_path: Path) -> Path:
    corpus = tmp_path / "journal"
    shutil.copytree(SAMPLE_CORPUS / "journal", corpus)
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500, "match": FAILING}])
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(out), "--no-index", "--rpm", "0", "--tpm", "0", "--base-url",
             server.base_url, "--model", "m", "--max-attempts", "1", "--on-error", "fail"],
        )  # fmt: skip
    assert res.exit_code == 1, res.output
    return out


def test_a_rows_ratio_is_its_tokens_out_over_its_tokens_in_and_failed_files_count_in_neither(
    tmp_path: Path,
) -> None:
    out = _failed_run(tmp_path)
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    assert data["totals"]["failed"] == 1
    rows = [data["totals"], *data["by_type"], *data["by_level"], *data["by_language"]]
    for row in rows:
        assert row["out_in"] == pytest.approx(row["tokens_out"] / row["tokens_in"]), row
    # The runs table's tokens read (the run's done files) are the overview's tokens in.
    assert data["totals"]["tokens_in"] == data["trend"][-1]["input_tokens"]
    assert data["totals"]["tokens_out"] == data["trend"][-1]["output_tokens"]
    text = CliRunner().invoke(main, ["report", "--out", str(out)]).stdout
    journal = next(line.split() for line in text.splitlines() if line.startswith("journal "))
    tokens_in, tokens_out, out_in = (float(v.replace(",", "")) for v in journal[2:5])
    assert out_in == pytest.approx(100 * tokens_out / tokens_in, abs=0.05)


def test_histogram_counts_are_integers(tmp_path: Path) -> None:
    out = _failed_run(tmp_path)
    data = json.loads(CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"]).stdout)
    counts = [c for h in data["histograms"].values() for c in h["counts"]]
    assert counts and all(type(c) is int for c in counts), counts
    assert sum(counts) == data["totals"]["summarized"]
