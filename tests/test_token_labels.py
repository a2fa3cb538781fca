"""`plan`'s estimate and `run`'s line name what their output tokens count: every level's against the finals'
(the same word under both had made a 5x difference look like a wrong estimate)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

TEXT = " ".join(f"Sentence {i} says the harbor crew checked buoy {i} and logged its reading." for i in range(400))


def test_plan_and_run_say_what_their_output_tokens_count(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "long.md").write_text(TEXT, encoding="utf-8")
    out = str(tmp_path / "out")
    plan = CliRunner().invoke(main, ["plan", str(src), "--out", out])
    assert plan.exit_code == 0, plan.output
    estimate = int(re.search(r"est\. output tokens \(every level\): ([\d,]+)", plan.output)[1].replace(",", ""))  # type: ignore[index]
    run = CliRunner().invoke(main, ["run", str(src), "--out", out, "--no-index", "--no-metrics"])
    assert run.exit_code == 0, run.output
    finals = int(re.search(r"→ ([\d,]+) in finals", run.output)[1].replace(",", ""))  # type: ignore[index]
    assert finals < estimate  # a chunked file writes its chunks' summaries too, not only its final
