"""A month or year digest that fails under ``--on-error fail`` still counts the requests it sent: the
server's request count equals the run's ``llm_calls``, and the other digests are written. Real HTTP to
the loopback server, which fails every digest request naming one marker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer

ENTRY = (
    "Walked to the harbour in the morning and watched the ferries come in through the fog. "
    "Wrote three pages of the report in the afternoon and sent the draft to Maria for comments."
)
DIGEST = "Synthesize these section summaries"  # the digests' prompt (meta.txt); a short entry has no group


# February's digest (its second entry's text, then the next part): neither entry's nor the year's prompt.
FEBRUARY = "Lanternfish.\n\nSection 2:"


def run_failing_february(tmp_path: Path, on_error: str, *extra: str) -> tuple[Result, int, list[Any], Path]:
    """A four-entry journal run (more options: ``extra``) against a server failing February's digest:
    (result, requests the server saw, its failed requests, the output folder)."""
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
             "--base-url", server.base_url, "--model", "fake", "--max-attempts", "2", "--on-error", on_error, *extra],
        )  # fmt: skip
        return res, server.request_count, [e for e in server.log if e.status == 500], out


def test_a_failing_digest_counts_the_requests_it_sent(tmp_path: Path) -> None:
    res, sent, failed, out = run_failing_february(tmp_path, "fail")
    data = json.loads(res.stdout)
    assert len(failed) == 2 and all(DIGEST in e.prompt_text for e in failed), res.output  # both attempts
    assert sent > len(failed)  # January's digest and the year's were sent too
    assert data["run"]["llm_calls"] == sent, res.output
    assert any("February 2024" in w and "not made" in w for w in data["warnings"]), data["warnings"]
    digests = out / "digests" / "2024"
    assert (digests / "2024-01.md").is_file() and not (digests / "2024-02.md").exists()
