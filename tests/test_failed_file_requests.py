"""A file that fails under ``--on-error fail`` counts every request its nodes sent: its other nodes already
asking the server are not cancelled (their requests are paid), so the server's request count equals the
metrics' llm_calls. Real HTTP to the loopback server, one chunk failing for good."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner, Result

from batchsum.cli import main
from batchsum.metrics.store import default_db_path
from tests.fakeserver import FakeLLMServer

# Paragraphs long enough that --chunk-size 120 gives one chunk each; the one naming FAILMARK fails.
BOOK = "\n\n".join(
    f"Chapter {i}. The river town of Elmsford woke to rain, and the ferryman counted the crossings of the day "
    f"while the miller argued about the price of grain with the baker and the smith sharpened the ploughs "
    f"for the spring that everyone said would come late this year. {'FAILMARK ' if i == 0 else ''}"
    f"The children ran along the dyke and the schoolmaster rang his bell twice before anyone listened."
    for i in range(8)
)


def run_failing_book(tmp_path: Path, *, concurrency: int, on_error: str) -> tuple[Result, int]:
    """A book whose first chunk fails (HTTP 500) while the others are in flight (their 0.3 s latency), summarized
    by the LLM with ``--on-error on_error``: the run's result and the requests the server received."""
    corpus = tmp_path / "books"
    corpus.mkdir()
    (corpus / "town.txt").write_text(BOOK, encoding="utf-8")
    out = tmp_path / "out"
    with FakeLLMServer(latency=0.3, rules=[{"match": "FAILMARK", "status": 500, "latency": 0.0}]) as server:
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(out), "--no-index", "--no-digests", "--json", "--rpm", "0",
             "--tpm", "0", "--base-url", server.base_url, "--model", "fake", "--chunk-size", "120",
             "--chunk-overlap", "0", "--thresholds", "10,20,30,100000", "--concurrency", str(concurrency),
             "--max-attempts", "1", "--on-error", on_error],
        )  # fmt: skip
        return res, server.request_count


def test_failed_file_counts_the_requests_of_its_nodes_in_flight(tmp_path: Path) -> None:
    res, sent = run_failing_book(tmp_path, concurrency=8, on_error="fail")
    data = json.loads(res.stdout)
    assert res.exit_code != 0 and data["run"]["files_failed"] == 1, res.output
    assert sent > 2, data  # the failing chunk and its siblings in flight
    assert data["run"]["llm_calls"] == sent
    assert sum(f["llm_calls"] for f in data["files"]) == sent
    con = duckdb.connect(str(default_db_path(tmp_path / "out")), read_only=True)
    try:
        (calls,) = con.execute("SELECT sum(llm_calls) FROM nodes").fetchone() or (0,)
    finally:
        con.close()
    assert calls == sent
