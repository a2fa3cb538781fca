"""``run --json`` names the same tokenizer every night: one with work, and one with nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def _run_json(corpus: Path, out: Path, *args: str) -> dict[str, object]:
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json", *args])
    assert res.exit_code == 0, res.output
    parsed: dict[str, object] = json.loads(res.stdout)
    return parsed


def test_unchanged_night_names_the_configured_encoding(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    text = "# Day\n\nWe moved the boat to the north dock. The pump works again.\n"
    (corpus / "a.md").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    for encoding in ("cl100k_base", "o200k_base"):
        busy = _run_json(corpus, out, "--encoding", encoding, "--rebuild")
        quiet = _run_json(corpus, out, "--encoding", encoding)
        assert busy["run"]["files_done"] == 1 and quiet["run"]["files_unchanged"] == 1  # type: ignore[index]
        assert busy["tokenizer"] == quiet["tokenizer"] == encoding
