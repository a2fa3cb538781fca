"""A month digest that fails under ``--on-error abort`` still counts the requests the digest pass sent: the
server's request count equals the run's ``llm_calls``. Real HTTP to the loopback server, which fails every
digest request naming one marker (as in test_digest_failed_requests)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer
from tests.test_digest_failed_requests import DIGEST, ENTRY, FEBRUARY


def test_an_aborted_digest_pass_counts_the_requests_it_sent(tmp_path: Path) -> None:
    corpus = tmp_path / "journal"
    corpus.mkdir()
    for day in ("2024-01-05", "2024-01-09", "2024-02-03", "2024-02-11"):
        marker = " Lanternfish." if day.startswith("2024-02") else ""
        (corpus / f"{day}.md").write_text(f"{ENTRY}{marker}\n", encoding="utf-8")
    out = tmp_path / "out"
    with FakeLLMServer(rules=[{"match": FEBRUARY, "status": 500}]) as server:
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(out), "--no-index", "--json", "--rpm", "0", "--tpm", "0",
             "--base-url", server.base_url, "--model", "fake", "--max-attempts", "2", "--on-error", "abort"],
        )  # fmt: skip
        sent = server.request_count
        failed = [e for e in server.log if e.status == 500]
    data = json.loads(res.stdout)
    assert failed and all(DIGEST in e.prompt_text for e in failed), res.output
    assert data["run"]["llm_calls"] == sent, res.output
    assert not (out / "digests" / "2024" / "2024-02.md").exists()
