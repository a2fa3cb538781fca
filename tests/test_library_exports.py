"""What ``import batchsum`` offers: the exceptions and result types by name, and a type checker that
catches a misspelled one (the package ships ``py.typed``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import batchsum
from batchsum import errors
from batchsum.compact.llm import LLMSummaryError
from batchsum.engine.records import RunResult
from batchsum.walk import Problem
from tests.conftest import REPO
from tests.fakeserver import FakeLLMServer

SCRIPT = """\
import batchsum
from batchsum import ConfigErorr
from batchsum import IndexError_, RunResult, SearchHit
batchsum.serch("out", "query")
reveal_type(batchsum.compact([{"role": "user", "content": "x"}], context_window=100))
"""


def test_a_type_checker_catches_misspelled_names(tmp_path: Path) -> None:
    (tmp_path / "use.py").write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", "use.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(REPO)},
    )
    lines = done.stdout.splitlines()
    errors_at = {line.split(":")[1] for line in lines if ": error:" in line}
    assert errors_at == {"2", "4"}, done.stdout  # the two typos, and nothing of the real names
    assert any("Revealed type" in line and "CompactionResult" in line for line in lines), done.stdout


@pytest.mark.parametrize("name", [n for n in batchsum.__all__ if n != "__version__"])
def test_every_listed_name_imports_from_batchsum(name: str) -> None:
    assert getattr(batchsum, name) is not None
    assert name in dir(batchsum)


def test_exceptions_and_types_are_the_modules_own() -> None:
    assert batchsum.IndexError_ is errors.IndexError_ and batchsum.RunResult is RunResult
    assert batchsum.Problem is Problem and batchsum.LLMSummaryError is LLMSummaryError
    assert issubclass(LLMSummaryError, errors.SummarizationError)
    with pytest.raises(batchsum.IndexError_):
        batchsum.check_index(str(REPO / "no-such-output"))


def test_a_failed_llm_compaction_is_a_batchsum_error(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(malformed_json=True)
    session = [{"role": "user", "content": f"step {i}: the gauge at pier {i} drifted again"} for i in range(60)]
    with pytest.raises(batchsum.BatchsumError) as caught:
        batchsum.compact(session, context_window=2048, base_url=fake_llm.base_url, model="fake", abort_on_failure=True)
    assert isinstance(caught.value, batchsum.SummarizationError)
