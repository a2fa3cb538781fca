"""A run refused before it summarizes anything (a usage error, an unknown model) leaves no record behind:
no phantom ``interrupted`` run in the report, no settings the folder is then held to."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "small2"
    folder.mkdir()
    for name in ("2026-10-01.md", "2026-10-02.md"):
        shutil.copy(SAMPLE_CORPUS / "journal" / name, folder)
    return folder


def _run(corpus: Path, out: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "--rpm", "0", "--tpm", "0", *args]
    )


def _runs(out: Path) -> list[dict[str, Any]]:
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--json", "--last", "10"])
    assert res.exit_code == 0, res.output
    return list(json.loads(res.stdout)["runs"])


def test_a_mistyped_model_is_not_remembered(corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(models=["fake"])
    out = tmp_path / "o"
    llm = ("--base-url", fake_llm.base_url)
    assert _run(corpus, out, *llm, "--model", "fakee").exit_code != 0
    res = _run(corpus, out, *llm, "--model", "fake")
    assert res.exit_code == 0, res.output
    assert "settings changed" not in res.stderr, res.stderr


def test_switching_back_to_the_llm_with_every_summary_stored_is_not_refused(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    out = tmp_path / "out_sw"
    llm = ("--base-url", fake_llm.base_url, "--model", "fake")
    assert _run(corpus, out, *llm).exit_code == 0
    switched = _run(corpus, out, "--base-url", "")
    assert switched.exit_code == 0 and "settings changed" in switched.stderr, switched.output
    sent = fake_llm.request_count
    back = _run(corpus, out, *llm)
    assert back.exit_code == 0, back.output
    assert fake_llm.request_count == sent  # nothing to pay for: every summary was stored
    # With a summary to pay for, the refusal stands.
    (corpus / "2026-10-01.md").write_text("A new day.\n\n" + (corpus / "2026-10-02.md").read_text(encoding="utf-8"))
    assert _run(corpus, out, "--base-url", "").exit_code == 0
    assert _run(corpus, out, *llm).exit_code == 5
