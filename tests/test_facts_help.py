"""`batchsum facts --help` says that --base-url is required: facts are extracted by an LLM."""

from __future__ import annotations

from click.testing import CliRunner

from batchsum.cli import main


def _base_url_help(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=400)
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.strip().startswith("--base-url"))
    return " ".join(line.split())


def test_facts_help_says_base_url_is_required() -> None:
    text = _base_url_help("facts")
    assert "facts and serve require it" in text
    assert "Without it, summaries come from" not in text


def test_run_help_still_says_it_summarizes_offline_without_it() -> None:
    assert "run, watch and compact summarize offline" in _base_url_help("run")
