"""A file that stops the run under ``--on-error abort`` counts every request its nodes sent: its nodes already
asking the server finish instead of being cancelled (their requests are paid), the stopping node's own request
counts, and no request waiting for its turn is sent. The server's request count equals the run's llm_calls in
its --json result and in the metrics store. Real HTTP to the loopback server, one chunk failing for good."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.store import default_db_path
from tests.fakeserver import FakeLLMServer
from tests.test_failed_file_requests import BOOK, run_failing_book


def test_an_aborted_file_counts_the_requests_of_its_nodes_in_flight(tmp_path: Path) -> None:
    res, sent = run_failing_book(tmp_path, concurrency=4, on_error="abort")
    data = json.loads(res.stdout)
    assert res.exit_code == 1 and data["run"]["status"] == "aborted", res.output
    assert sent >= 1
    assert data["run"]["llm_calls"] == sent, (sent, data["run"])
    (town,) = data["files"]
    assert town["status"] == "failed" and town["llm_calls"] == sent
    con = duckdb.connect(str(default_db_path(tmp_path / "out")), read_only=True)
    try:
        nodes = con.execute("SELECT sum(llm_calls) FROM nodes").fetchone()
        runs = con.execute("SELECT llm_calls FROM runs").fetchone()
    finally:
        con.close()
    assert nodes is not None and runs is not None and nodes[0] == runs[0] == sent


def test_a_key_rejected_mid_run_sends_no_request_that_waited_for_its_turn(tmp_path: Path) -> None:
    """Requests queued behind --concurrency when the server rejects the key are not sent once it has:
    the stopped run waits for what is in flight only (its queued nodes are no longer cancelled)."""
    corpus = tmp_path / "books"
    corpus.mkdir()
    (corpus / "town.txt").write_text(BOOK, encoding="utf-8")
    with FakeLLMServer(rules=[{"status": 401}]) as server:  # its model list answers: the chat requests do not
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--no-digests", "--json", "--rpm",
             "0", "--tpm", "0", "--base-url", server.base_url, "--model", "fake", "--chunk-size", "120",
             "--chunk-overlap", "0", "--thresholds", "10,20,30,100000", "--concurrency", "1"],
        )  # fmt: skip
        sent = server.request_count
    data = json.loads(res.stdout)
    assert res.exit_code == 1 and "rejected the credentials" in data["stopped_by"], res.output
    assert sent == 1, sent
