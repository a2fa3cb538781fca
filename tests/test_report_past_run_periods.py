"""A report on a past run says its Period digests section is the folder's digests now, not that run's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS


def _report(out: Path, *args: str) -> tuple[dict[str, Any], str]:
    data = json.loads(CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json", *args]).stdout)
    text = CliRunner().invoke(main, ["report", "--out", str(out), *args]).stdout
    return data, text


def test_a_past_runs_report_labels_the_period_digests_as_now(tmp_path: Path) -> None:
    corpus, out = tmp_path / "journal", tmp_path / "out"
    shutil.copytree(SAMPLE_CORPUS / "journal", corpus)
    run = ["run", str(corpus), "--out", str(out), "--no-index", "--json"]
    first = json.loads(CliRunner().invoke(main, run).stdout)["run"]["run_id"]
    (corpus / "2026-10-22.md").write_text("# 2026-10-22\n\nA quiet day at the harbour; I fixed the tide gauge.\n")
    assert CliRunner().invoke(main, run).exit_code == 0
    latest, latest_text = _report(out)
    assert latest["periods"] and latest["periods_as_of"] == "latest run"
    assert "Period digests\n" in latest_text
    past, past_text = _report(out, "--run", first)
    assert past["periods"] and past["periods_as_of"] == "now"
    assert "Period digests (now, as of this report" in past_text
