"""Arguments of the wrong kind are refused by the library with ConfigError, before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import batchsum
from batchsum.errors import ConfigError
from tests.conftest import SAMPLE_CORPUS

DAY = SAMPLE_CORPUS / "journal" / "2026-10-01.md"


@pytest.mark.parametrize("paths", [[], (), 5, None, b"corpus", {"corpus": 1}, ["notes", 3]])
def test_run_refuses_what_is_no_list_of_paths(tmp_path: Path, paths: Any) -> None:
    out = tmp_path / "out"
    with pytest.raises(ConfigError):
        batchsum.run(paths, out=str(out))
    assert not out.exists()


@pytest.mark.parametrize("options", [{"progress": "yes"}, {"progress": print}, {"quiet": 1}, {"quiet": None}])
def test_progress_and_quiet_take_what_they_document(tmp_path: Path, options: dict[str, Any]) -> None:
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match=next(iter(options))):
        batchsum.run(str(DAY), out=str(out), **options)
    assert not out.exists()
    assert batchsum.run(str(DAY), out=str(out), no_index=True, progress=None, quiet=True).exit_code == 0


def _eval_set(tmp_path: Path) -> tuple[str, str]:
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir(), refs.mkdir()
    (docs / "a.txt").write_text(DAY.read_text(encoding="utf-8"), encoding="utf-8")
    (refs / "a.txt").write_text("A walk along the harbour after a storm.", encoding="utf-8")
    return str(docs), str(refs)


def test_eval_takes_string_paths(tmp_path: Path) -> None:
    docs, refs = _eval_set(tmp_path)
    out, db = tmp_path / "eval-out", tmp_path / "m" / "metrics.duckdb"
    report = batchsum.eval_summaries(docs, refs, out=str(out), metrics_db=str(db))
    assert report.n_with_reference == 1 and db.is_file() and out.is_dir()


@pytest.mark.parametrize("options", [{"out": 5}, {"baselines": "yes"}, {"limit": "3"}, {"methods": "lead"}])
def test_eval_refuses_wrong_types_before_any_work(tmp_path: Path, options: dict[str, Any]) -> None:
    docs, refs = _eval_set(tmp_path)
    with pytest.raises(ConfigError, match=next(iter(options))):
        batchsum.eval_summaries(docs, refs, **{"out": str(tmp_path / "eval-out"), **options})
    assert not (tmp_path / "eval-out").exists()
