"""``batchsum index`` on a folder that is no batchsum output (a mistyped OUT, or the sources themselves): refused
like ``search --out`` is, with nothing written into it; the "no index" hint never advises building one there."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import BatchsumError, IndexError_


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    src.mkdir()
    (src / "a.md").write_text("Bought milk at the corner shop.\n\nThe tapir ate the lettuce.\n", encoding="utf-8")
    return src


@pytest.mark.parametrize("flags", [["--check"], ["--rebuild"], [], ["--stats"]])
def test_index_refuses_a_folder_that_holds_no_output(corpus: Path, flags: list[str]) -> None:
    result = CliRunner().invoke(main, ["index", str(corpus), *flags])
    assert result.exit_code == 2, result.output
    assert "holds no batchsum output" in result.output and "--rebuild" not in result.output
    assert not (corpus / ".batchsum").exists()  # no empty "index" written into someone's folder


def test_index_refuses_the_source_folder_of_a_run(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run([corpus], out=out, metrics=False)
    result = CliRunner().invoke(main, ["index", str(out), "--check"])
    assert result.exit_code == 0 and "index OK" in result.output  # the output itself is indexed
    result = CliRunner().invoke(main, ["index", str(corpus)])
    assert result.exit_code == 2 and "holds no batchsum output" in result.output
    assert not (corpus / ".batchsum").exists()


@pytest.mark.parametrize("rebuild", [False, True])
def test_the_library_refuses_to_index_a_folder_that_holds_no_output(corpus: Path, rebuild: bool) -> None:
    with pytest.raises(IndexError_, match="holds no batchsum output"):
        batchsum.repair_index(corpus, rebuild=rebuild)
    assert not (corpus / ".batchsum").exists()


def test_no_index_hint_does_not_advise_indexing_a_folder_without_output(corpus: Path) -> None:
    with pytest.raises(BatchsumError) as caught:
        batchsum.search(corpus, "milk")
    assert "holds no batchsum output" in str(caught.value) and "--rebuild" not in str(caught.value)
    assert not (corpus / ".batchsum").exists()
