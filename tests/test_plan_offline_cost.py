"""`plan` prices only LLM requests: the offline extractive backend costs 0 whichever price option is given,
under one label and one JSON key, as the report of its run says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "journal"
    shutil.copytree(SAMPLE_CORPUS / "journal", src)
    return src


@pytest.mark.parametrize("price", [["--price", "1"], ["--price", "0.15,0.60"], ["--price-per-1k", "0.01"]])
def test_an_offline_plan_costs_nothing_under_one_label_and_key(corpus: Path, tmp_path: Path, price: list[str]) -> None:
    out = tmp_path / "out"
    plan = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json", *price])
    assert plan.exit_code == 0, plan.output
    data = json.loads(plan.stdout)
    assert data["llm_calls"] == 0 and data["prompt_tokens"] == 0 and data["input_tokens"] > 0
    assert data["cost"] == 0 and "est_cost" not in data
    text = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), *price]).stdout
    costs = [line for line in text.splitlines() if "cost:" in line]
    assert len(costs) == 1 and costs[0].startswith("cost: 0.0000"), text
    # The report of the run it planned prices it the same.
    assert CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"]).exit_code == 0
    report = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json", *price])
    assert json.loads(report.stdout)["cost"]["selected_runs"] == 0


@pytest.mark.parametrize("value", ["nan", "inf", "1,nan", "-inf,1"])
def test_a_price_that_is_no_finite_number_is_refused(corpus: Path, tmp_path: Path, value: str) -> None:
    out = ["--out", str(tmp_path / "out")]
    for args in (["plan", str(corpus), *out], ["report", *out]):
        res = CliRunner().invoke(main, [*args, "--price", value])
        assert res.exit_code == 2 and "Invalid value for '--price'" in res.output, res.output


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_report_price_per_1k_that_is_no_finite_number_is_refused(tmp_path: Path, value: str) -> None:
    res = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "out"), "--price-per-1k", value])
    assert res.exit_code == 2 and "Invalid value for '--price-per-1k'" in res.output, res.output
