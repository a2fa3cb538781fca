"""``run --facts`` exits with the most severe of its two parts' codes: files that failed (1) outrank
nodes that fell back to the extractive summarizer (4), as the exit-code table ranks them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.engine.ledger import EXIT_DEGRADED, worst_exit
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer


def test_failed_facts_outrank_a_degraded_run(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        # Every request fails: the summaries fall back (degraded), the facts of the journal fail.
        server.configure(any_model=True, rules=[{"status": 500}])
        res = CliRunner().invoke(
            main,
            ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(tmp_path / "out"), "--no-index", "--facts",
             "--base-url", server.base_url, "--model", "m", "--max-attempts", "1", "--rpm", "0", "--tpm", "0"],
        )  # fmt: skip
    assert "DEGRADED:" in res.stdout, res.output
    assert "failed" in res.output and res.exit_code == 1, res.output


def test_exit_codes_combine_by_severity() -> None:
    assert worst_exit(0, 0) == 0
    assert worst_exit(0, EXIT_DEGRADED) == worst_exit(EXIT_DEGRADED, 0) == EXIT_DEGRADED
    assert worst_exit(EXIT_DEGRADED, 1) == worst_exit(1, EXIT_DEGRADED) == 1
    assert worst_exit(1, 0) == 1
