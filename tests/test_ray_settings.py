"""Choosing the executor: command line, pipeline file, and the local default that never loads Ray."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.engine.executor import LocalExecutor
from batchsum.engine.executor_choice import executor_for
from batchsum.errors import PipelineError
from batchsum.pipeline_file import apply_pipeline, load_pipeline

REPO = Path(__file__).resolve().parent.parent


def test_pipeline_file_keys_choose_ray_and_its_cluster(tmp_path: Path) -> None:
    spec = tmp_path / "p.yaml"
    spec.write_text(
        "corpora:\n  - path: docs\nexecutor: ray\nray:\n  address: auto\n  workers: 3\n  limiter: nightly\n"
    )
    cfg = apply_pipeline(load_pipeline(spec), RunConfig(paths=[]), set())
    assert (cfg.executor, cfg.ray_address, cfg.ray_workers, cfg.ray_limiter) == ("ray", "auto", 3, "nightly")
    spec.write_text("corpora:\n  - path: docs\nexecutor: spark\n")
    with pytest.raises(PipelineError, match="executor"):
        load_pipeline(spec)


def test_unknown_executor_is_a_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["run", str(tmp_path), "--executor", "spark"])
    assert res.exit_code == 2 and "spark" in res.output


def test_the_local_executor_is_the_default_and_never_imports_ray() -> None:
    assert executor_for(RunConfig(paths=[])) is LocalExecutor
    probe = (
        "import sys; from batchsum.config import RunConfig; from batchsum.engine.executor_choice import executor_for;"
        " executor_for(RunConfig(paths=[])); print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"
