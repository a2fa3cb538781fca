"""A ``--base-url`` that cannot be asked (no http:// or https://, or a user name and password in it) is a
usage error before anything is written: exit 2, the output folder does not remember it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import STATE_DIR
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


@pytest.mark.parametrize("command", ["run", "facts"])
def test_a_base_url_without_a_scheme_is_a_usage_error(tmp_path: Path, fake_llm: FakeLLMServer, command: str) -> None:
    out = tmp_path / "out"
    bare = fake_llm.base_url.removeprefix("http://")  # 127.0.0.1:PORT/v1
    res = CliRunner().invoke(main, [command, str(SAMPLE_CORPUS / "journal"), "--out", str(out),
                                    "--base-url", bare, "--model", "fake"])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "http:// or https://" in res.output, res.output
    assert not (out / STATE_DIR / "settings.json").exists(), "the URL was remembered"
    assert not fake_llm.log


def test_a_base_url_with_credentials_is_not_remembered(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    out = tmp_path / "out"
    url = fake_llm.base_url.replace("http://", "http://user:pw@")
    res = CliRunner().invoke(main, ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--no-index",
                                    "--base-url", url, "--model", "fake"])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert not (out / STATE_DIR / "settings.json").exists(), "the URL was remembered"
