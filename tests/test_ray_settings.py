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


def test_a_ray_address_nobody_answers_is_refused_before_the_output_is_touched(tmp_path: Path) -> None:
    """Ray waits minutes for a head node that is not there; a connect to the address says at once."""
    import socket

    pytest.importorskip("ray")
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("Today I walked to the harbour and met Anna at the market.\n")
    out = tmp_path / "out"
    args = ["run", str(src), "--out", str(out), "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2 and f"cannot reach Ray at 127.0.0.1:{port} (connection refused)" in res.output
    assert not out.exists()
