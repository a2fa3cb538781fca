"""The library takes plain strings and keyword options named like the command's flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.options import run_config
from tests.conftest import SAMPLE_CORPUS

JOURNAL = str(SAMPLE_CORPUS / "journal")


def test_run_takes_strings_and_flag_named_options(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    result = batchsum.run(JOURNAL, out=out, type="document", thresholds="50,400,3000,15000", no_index=True)
    assert result.exit_code == 0
    assert {f.content_type for f in result.files} == {"document"}
    assert (tmp_path / "out" / "2026-10-01.md" / "summaries" / "L3" / "final.md").is_file()
    # Options left out take the folder's remembered settings: nothing to redo.
    again = batchsum.run([JOURNAL], out=out, index=False)
    assert {f.status for f in again.files} == {"unchanged"}
    assert batchsum.plan(JOURNAL, out=out).changed == []
    saved = json.loads((tmp_path / "out" / ".batchsum" / "settings.json").read_text())["settings"]
    assert saved["content_type"] == "document"


def test_run_config_with_strings_runs(tmp_path: Path) -> None:
    cfg = RunConfig(paths=[JOURNAL], out=str(tmp_path / "out"), index=False)  # type: ignore[list-item, arg-type]
    assert cfg.paths == [Path(JOURNAL)] and cfg.out == tmp_path / "out"
    assert batchsum.run(cfg).exit_code == 0
    assert IndexConfig(out="x").out == Path("x")  # type: ignore[arg-type]


def test_options_map_like_the_flags() -> None:
    cfg, given = run_config(
        "notes",
        {
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "rpm": 0,
            "no_cache": True,
            "fallback_model": "b",
            "prompts": "p",
            "ignore": "*.tmp",
            "chunk_size": 800,
        },
    )
    assert cfg.paths == [Path("notes")] and cfg.llm.base_url == "http://127.0.0.1:9/v1"
    assert cfg.llm.rpm is None and cfg.llm.cache is False and cfg.llm.fallback_models == ["b"]
    assert cfg.llm.prompts_dir == Path("p") and cfg.ignore == ["*.tmp"] and cfg.chunk_size == 800
    assert {"llm.base_url", "llm.model", "chunk_size"} <= given
    with pytest.raises(TypeError, match="did you mean 'chunk_size'"):
        run_config("notes", {"chunk_sise": 3})


def test_search_and_report_take_the_output_folder_as_a_string(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    batchsum.run(JOURNAL, out=out, type="journal")
    hits = batchsum.search(out, "storm at the harbor", k=2)
    assert 1 <= len(hits) <= 2
    assert batchsum.report(out, last=1).runs


def test_compact_is_callable_from_the_package() -> None:
    messages = [{"role": "user", "content": f"turn {i}: " + "harbor buoy tide " * 60} for i in range(12)]
    result = batchsum.compact(messages, context_window=1024)
    assert result.tokens_after < result.tokens_before
    from batchsum.compact import compact

    assert compact(messages, context_window=1024).tokens_after == result.tokens_after


def test_the_library_checks_its_arguments_as_the_command_does(tmp_path: Path) -> None:
    from batchsum.errors import ConfigError

    src = tmp_path / "src"
    src.mkdir()
    (src / "2026-10-01.md").write_text("Today I walked to the harbour and met Anna at the market about the boats.\n")
    out = str(tmp_path / "out")
    with pytest.raises(ConfigError, match="--executor 'dask': use local, ray"):
        batchsum.run(str(src), out=out, executor="dask")
    assert batchsum.run(str(src), out=out).exit_code == 0
    assert batchsum.search(out, "harbour", level=3) == batchsum.search(out, "harbour", level="3")
    assert batchsum.search(out, "harbour", since="2026-09-30")
    assert not batchsum.search(out, "harbour", since="2026-10-02")
    with pytest.raises(ConfigError, match="since 'yesterday'"):
        batchsum.search(out, "harbour", since="yesterday")
    with pytest.raises(ConfigError, match="query None"):
        batchsum.search(out, None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="--type bogus"):
        batchsum.report(out, content_type="bogus")
