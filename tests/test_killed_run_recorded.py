"""A run killed with SIGKILL before its metrics is recorded by the next run as ``interrupted``, an
offline (extractive) run too, which paid for no LLM call."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.test_killed_run_files import killed_after_a_file


def test_killed_extractive_run_is_reported_as_interrupted(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md").read_text(encoding="utf-8")
    for i in range(40):  # enough work that the run is still busy when it is killed
        (corpus / f"log{i}.md").write_text(text.replace("buoy", f"buoy{i}"), encoding="utf-8")
    out, log = tmp_path / "out", tmp_path / "killed.log"
    killed_after_a_file(corpus, out, log)
    killed = next(json.loads(x)["run_id"] for x in log.read_text(encoding="utf-8").splitlines() if "run_started" in x)
    for extra in sorted(corpus.iterdir())[1:]:  # the next night has little to do
        extra.unlink()
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "-q"])
    assert res.exit_code == 0, res.output
    report = json.loads(CliRunner().invoke(main, ["report", "--out", str(out), "--json", "--last", "5"]).stdout)
    runs = {r["run_id"]: r for r in report["runs"]}
    assert runs[killed]["status"] == "interrupted" and runs[killed]["backend"] == "extractive"
    assert str(corpus) in runs[killed]["command"]
    assert len(runs) == 2  # the killed night and the one that finished
