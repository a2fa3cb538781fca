"""Default LLM rate limits fit where the server is, and a run held back by its own limits says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import LLMConfig, RunConfig
from batchsum.settings import validate
from batchsum.throttle import default_rates, local_server
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:11434/v1", True),
        ("http://10.0.0.5:8000/v1", True),
        ("http://172.20.0.3:8000/v1", True),
        ("http://gpubox:8000/v1", True),
        ("http://gpubox.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        ("https://openrouter.ai/api/v1", False),
    ],
)
def test_local_and_lan_servers_get_no_rate_limit_by_default(url: str, local: bool) -> None:
    assert local_server(url) is local
    assert default_rates(url) == ((None, None) if local else (60.0, 60000.0))


def test_a_config_settles_its_rates_from_the_server_unless_given() -> None:
    cfg = RunConfig(paths=[], llm=LLMConfig(base_url="http://127.0.0.1:9/v1", model="m"))
    validate(cfg)
    assert (cfg.llm.rpm, cfg.llm.tpm) == (None, None)
    cfg = RunConfig(paths=[], llm=LLMConfig(base_url="https://api.openai.com/v1", model="m"))
    validate(cfg)
    assert (cfg.llm.rpm, cfg.llm.tpm) == (60.0, 60000.0)
    cfg = RunConfig(paths=[], llm=LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", rpm=30.0))
    validate(cfg)
    assert (cfg.llm.rpm, cfg.llm.tpm) == (30.0, None)


def test_the_command_line_default_depends_on_the_server(tmp_path: Path) -> None:
    from batchsum.cli.run import build_config

    cmd = main.get_command(main.make_context("batchsum", ["run", "x"]), "run")
    assert cmd is not None
    for url, rpm in (("http://127.0.0.1:9/v1", None), ("https://api.example.com/v1", 60.0)):
        ctx = cmd.make_context(
            "run", [str(SAMPLE_CORPUS), "--out", str(tmp_path / "o"), "--base-url", url, "--model", "m"]
        )
        assert build_config(ctx, ctx.params).llm.rpm == rpm
    ctx = cmd.make_context("run", [str(SAMPLE_CORPUS), "--out", str(tmp_path / "o"), "--rpm", "0", "--base-url", url])
    ctx.params["model"] = "m"
    assert build_config(ctx, ctx.params).llm.rpm is None


def test_a_run_waiting_on_its_own_limit_says_so_in_the_progress_line(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        res = CliRunner().invoke(
            main,
            [
                "run",
                str(SAMPLE_CORPUS / "journal"),
                "--out",
                str(tmp_path / "out"),
                "--no-index",
                "--progress",
                "--base-url",
                server.base_url,
                "--model",
                "m",
                "--rpm",
                "240",  # one request every 0.25 s: the other three slots wait for the limiter
            ],
        )
    assert res.exit_code == 0, res.output
    assert "waiting for --rpm" in res.stderr
