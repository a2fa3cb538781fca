"""`plan` checks the Ray options as `run` does, and the `--ray-*` options are refused without
`--executor ray` (they had been accepted and ignored)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main


def _src(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    (src / "a.md").write_text("Today I walked to the harbour and met Anna at the market.\n", encoding="utf-8")
    return src


def _free_port() -> int:
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_plan_refuses_a_ray_address_nobody_answers_as_run_does(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    src, out, port = _src(tmp_path), tmp_path / "out", _free_port()
    assert CliRunner().invoke(main, ["run", str(src), "--out", str(out)]).exit_code == 0  # nothing left to do
    for command in ("run", "plan"):
        args = [command, str(src), "--out", str(out), "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"]
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, (command, res.output)
        assert f"cannot reach Ray at 127.0.0.1:{port} (connection refused)" in res.output, (command, res.output)


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("option", [["--ray-workers", "2"], ["--ray-limiter", "nightly"], ["--ray-address", "auto"]])
def test_ray_options_without_the_ray_executor_are_a_usage_error(
    tmp_path: Path, command: str, option: list[str]
) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(main, [command, str(_src(tmp_path)), "--out", str(out), *option])
    assert res.exit_code == 2 and f"{option[0]} only apply to --executor ray" in res.output, res.output
    assert not out.exists()
