"""The report splits a run's LLM spend into its files' share and the month, year and folder digests':
the runs table counts the digests' requests, the files table does not, and someone reconciling the two
had to work the difference out. Real HTTP to the loopback fake server, real DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.metrics.usage_journal import UsageJournal
from tests.fakeserver import FakeLLMServer

ENTRY = (
    "Walked to the harbour in the morning and watched the ferries come in through the fog. "
    "Wrote three pages of the report in the afternoon and sent the draft to Maria for comments. "
)
SPLIT = ("llm_calls", "prompt_tokens", "completion_tokens")


def _llm_run(tmp_path: Path) -> Path:
    """A four-entry journal over two months, summarized by the fake server: its digests send requests."""
    corpus, out = tmp_path / "journal", tmp_path / "out"
    corpus.mkdir()
    for day in ("2024-01-05", "2024-01-09", "2024-02-03", "2024-02-11"):
        (corpus / f"{day}.md").write_text(f"{day}: {ENTRY * 3}\n", encoding="utf-8")
    with FakeLLMServer() as server:
        res = CliRunner().invoke(
            main,
            ["run", str(corpus), "--out", str(out), "--no-index", "--rpm", "0", "--tpm", "0",
             "--base-url", server.base_url, "--model", "fake"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    return out


def _report(out: Path, fmt: str, *args: str) -> str:
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--format", fmt, *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_report_shows_the_digests_share_of_a_runs_llm_spend(tmp_path: Path) -> None:
    out = _llm_run(tmp_path)
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    run_row = con.execute(f"SELECT {', '.join(SPLIT)} FROM runs").fetchone()
    file_sums = con.execute(f"SELECT {', '.join(f'sum({c})' for c in SPLIT)} FROM files").fetchone()
    con.close()
    assert run_row is not None and file_sums is not None
    assert run_row[0] > file_sums[0] > 0  # the digests sent requests the files table does not hold

    (run,) = json.loads(_report(out, "json"))["runs"]
    for i, col in enumerate(SPLIT):
        assert run[col] == run_row[i]
        assert run[f"files_{col}"] == file_sums[i]
        assert run[f"files_{col}"] + run[f"digests_{col}"] == run[col], col
    md = _report(out, "md")
    calls = f"{run['llm_calls']} ({file_sums[0]} for files, {run_row[0] - file_sums[0]} for digests)"
    assert f"| LLM calls | {calls} |" in md, md
    assert f"{file_sums[1]:,} + {file_sums[2]:,} for files" in md, md  # prompt + completion tokens
    page = tmp_path / "report.html"
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--html", str(page)], catch_exceptions=False)
    assert res.exit_code == 0 and calls in page.read_text(encoding="utf-8")
    (trend,) = json.loads(_report(out, "json"))["trend"]  # every run's row carries the split too
    assert trend["files_llm_calls"] + trend["digests_llm_calls"] == trend["llm_calls"] == run_row[0]


def test_an_interrupted_runs_share_beyond_its_files_names_its_unfinished_files(tmp_path: Path) -> None:
    # A run killed while a file's request was answered leaves that request in its journal and no row for the
    # file: the share beyond the files is not the digests' alone, and the report says so.
    corpus, out = tmp_path / "journal", tmp_path / "out"
    corpus.mkdir()
    (corpus / "2024-01-05.md").write_text(ENTRY * 3, encoding="utf-8")
    killed = "20240105T080000Z-abcdef"
    journal = UsageJournal(out / ".batchsum", killed)
    journal.start(started_at="2024-01-05T08:00:00Z", command="batchsum run", backend="llm", model="fake")
    journal.paid("2024-01-05.md#L1.0", "fake", 120, 30)  # a node that never finished
    journal.close(recorded=False)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output  # the next run records the killed one from its journal

    res = CliRunner().invoke(main, ["report", "--out", str(out), "--run", killed, "--format", "json"])
    (run,) = json.loads(res.stdout)["runs"]
    assert run["status"] == "interrupted"
    assert (run["files_llm_calls"], run["digests_llm_calls"], run["digests_prompt_tokens"]) == (0, 1, 120)
    md = _report(out, "md", "--run", killed)
    assert "| LLM calls | 1 (0 for files, 1 for digests and unfinished files) |" in md, md
