"""PATH arguments replace a pipeline file's corpora: a corpus the file names that no longer exists (renamed
since the file was written) stops only a run that would use it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus_renamed"
    corpus.mkdir()
    (corpus / "fence.md").write_text("We chose cedar for the garden fence. Bob orders planks.\n" * 6, encoding="utf-8")
    pipeline = tmp_path / "nightly.yaml"
    gone = tmp_path / "corpus"  # the name the corpus had when the file was written
    pipeline.write_text(f"corpora:\n  - {gone}\noutput: {tmp_path / 'out'}\n", encoding="utf-8")
    return corpus, pipeline


def test_path_arguments_replace_a_pipelines_missing_corpus(tmp_path: Path) -> None:
    corpus, pipeline = _setup(tmp_path)
    args = ["run", str(corpus), "--pipeline", str(pipeline), "--no-index", "--no-digests", "--json"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert [f["relpath"] for f in json.loads(res.stdout)["files"]] == ["fence.md"]
    assert (tmp_path / "out" / "fence.md" / "summaries").is_dir(), "the file's other settings still apply"


def test_a_pipelines_missing_corpus_is_an_error_when_it_is_used(tmp_path: Path) -> None:
    _, pipeline = _setup(tmp_path)
    res = CliRunner().invoke(main, ["run", "--pipeline", str(pipeline), "--no-index", "--no-digests"])
    assert res.exit_code == 2, res.output
    assert f"{pipeline}:2: corpus path" in res.output and "does not exist" in res.output
