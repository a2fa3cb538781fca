"""`search --type`: only sources of that content type. A folder's digest is no source (its text is read as a
document whatever its files are), so it is left out under --type (real run, real index, the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.config import RunConfig

CALLS = {
    "calls/call1.txt": "Ana: The budget for the offsite is too high.\nTom: Then we cut the catering budget by half.\n"
    "Ana: Agreed, catering goes to the cheaper vendor.\n",
    "calls/call2.txt": "Ana: Did finance approve the budget?\nTom: Finance approved the travel budget yesterday.\n"
    "Ana: Good, book the trains.\n",
    "docs/memo.md": "# Budget memo\n\nThe budget for next year grows by four percent. Travel stays flat.\n",
}


def _search(out: Path, *args: str) -> list[dict[str, object]]:
    got = CliRunner().invoke(main, ["search", "budget", "--out", str(out), "--json", *args])
    assert got.exit_code == 0, got.output
    return list(json.loads(got.output))


def test_type_keeps_to_sources_of_that_type_and_leaves_digests_out(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for name, text in CALLS.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    assert (out / "digests" / "folders" / "calls.md").is_file()
    assert any(h["level"] == 4 for h in _search(out, "--level", "period"))  # the digests are found without --type
    documents = _search(out, "--type", "document", "-k", "10")
    assert [h["source_path"] for h in documents] == ["docs/memo.md"], documents
    conversations = _search(out, "--type", "conversation", "-k", "10")
    assert {h["source_path"] for h in conversations} == {"calls/call1.txt", "calls/call2.txt"}, conversations
