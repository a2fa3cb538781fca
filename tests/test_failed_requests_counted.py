"""Every LLM request a run sends is counted, whatever --on-error does with a failure: a failed node's row
is recorded with its error, and its requests count in its file's and its run's llm_calls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.store import default_db_path
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


def _run(tmp_path: Path, *args: str) -> tuple[dict[str, Any], int, Path]:
    corpus = tmp_path / "journal"
    corpus.mkdir()
    shutil.copy(SAMPLE_CORPUS / "journal" / "2026-10-01.md", corpus)
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500}])
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "--json", "--rpm", "0",
             "--tpm", "0", "--base-url", server.base_url, "--model", "m", *args],
        )  # fmt: skip
        sent = len(server.log)
    return json.loads(res.stdout), sent, out


@pytest.mark.parametrize(("on_error", "attempts"), [("fail", "1"), ("fail", "2"), ("fallback", "2")])
def test_sent_requests_are_counted_whatever_on_error_does(tmp_path: Path, on_error: str, attempts: str) -> None:
    data, sent, out = _run(tmp_path, "--on-error", on_error, "--max-attempts", attempts)
    assert sent > 0
    assert data["run"]["llm_calls"] == sent
    assert sum(f["llm_calls"] for f in data["files"]) == sent
    con = duckdb.connect(str(default_db_path(out)), read_only=True)
    try:
        rows = con.execute("SELECT llm_calls, attempts, error FROM nodes").fetchall()
    finally:
        con.close()
    assert sum(r[0] for r in rows) == sent
    assert rows and all(r[2] and "500" in r[2] for r in rows), rows
    report = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"])
    reasons = json.loads(report.stdout)["fallback_reasons"]
    assert reasons and "500" in reasons[0]["reason"]
