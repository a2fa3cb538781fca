"""The library takes plain strings and keyword options named like the command's flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import batchsum
from batchsum import errors, remembered
from batchsum.config import IndexConfig, RunConfig
from batchsum.model import Thresholds
from batchsum.options import run_config
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer

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


def test_a_keyword_of_the_wrong_kind_is_refused_before_anything_is_remembered(tmp_path: Path) -> None:
    from batchsum.errors import ConfigError

    src = tmp_path / "src"
    src.mkdir()
    (src / "note.md").write_text("Today I walked to the harbour and met Anna at the market about the boats.\n")
    out = tmp_path / "out"
    for bad, message in [
        ({"type": None}, "type=None: give a value"),
        ({"language": None}, "language=None"),
        ({"concurrency": "4"}, "concurrency='4': must be an integer, not str"),
        ({"no_index": "yes"}, "no_index='yes': must be True or False"),
        # A typo of an encoding had been remembered, and every later run counted tokens by estimate.
        ({"encoding": "cl100k"}, "unknown tiktoken encoding 'cl100k'"),
        # Equal bounds leave a level empty: every file had become HIERARCHICAL.
        ({"thresholds": "100,100,100,100"}, "four increasing integers"),
        ({"thresholds": [0, 0, 0, 0]}, "four increasing integers"),
        ({"thresholds": Thresholds(100, 500, 500, 15000)}, "four increasing integers"),
    ]:
        with pytest.raises(ConfigError, match=message):
            batchsum.run(str(src), out=str(out), **bad)
    assert not out.exists()  # nothing written, nothing remembered: the next run is a first run
    assert batchsum.run(str(src), out=str(out), no_index=True).exit_code == 0


def test_run_may_be_called_from_async_code_with_an_llm(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    """An internal tool built on asyncio (FastAPI, aiohttp) calls the library from a running loop; the
    stages run their own loop, which a running one forbids, so the call goes to a worker thread."""
    import asyncio

    src = tmp_path / "src"
    src.mkdir()
    (src / "chat.txt").write_text("Ana: The boats are in.\nBen: Good, we count them tomorrow at nine.\n" * 30)
    out = str(tmp_path / "out")

    async def tool() -> tuple[int, int]:
        first = batchsum.run(str(src), out=out, base_url=fake_llm.base_url, model="fake", no_index=True)
        again = await asyncio.to_thread(batchsum.run, str(src), out=out, no_index=True)
        return first.run.files_done, again.run.files_unchanged

    assert asyncio.run(tool()) == (1, 1)


def test_the_library_leaves_where_its_log_goes_to_its_caller(tmp_path: Path) -> None:
    """No handler configured: a warning of batchsum's (an LLM's invalid facets JSON) is not printed on
    stderr by Python's last resort; the caller's own logging setup gets it."""
    import subprocess
    import sys

    code = (
        "import logging, sys, batchsum\n"
        f"batchsum.plan({JOURNAL!r}, out={str(tmp_path / 'out')!r})\n"
        "logging.getLogger('batchsum.backends.llm').warning('invalid facets JSON')\n"
        "if sys.argv[1:] == ['configured']:\n"
        "    logging.basicConfig()\n"
        "    logging.getLogger('batchsum.backends.llm').warning('now shown')\n"
    )
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert quiet.stderr == "" and quiet.stdout == ""
    shown = subprocess.run([sys.executable, "-c", code, "configured"], capture_output=True, text=True, check=True)
    assert shown.stderr == "WARNING:batchsum.backends.llm:now shown\n"


def test_a_runs_result_says_where_each_final_is(tmp_path: Path) -> None:
    from batchsum.tree import read_node

    out = tmp_path / "out"
    first = batchsum.run(JOURNAL, out=str(out), no_index=True)
    again = batchsum.run(JOURNAL, out=str(out), no_index=True)  # unchanged files keep their finals
    assert again.run.files_unchanged == first.run.files_done > 0
    for result in (first, again):
        finals = result.finals()
        assert set(finals) == {f.relpath for f in first.files if f.status == "done"}
        meta, text = read_node(next(iter(finals.values())))
        assert meta["is_final"] is True and text.strip()


def test_every_command_but_the_services_is_a_function(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    out = tmp_path / "out"
    batchsum.run(JOURNAL, out=str(out), type="journal")
    check = batchsum.check_index(str(out))
    assert check.ok and check.nodes_in_tree == check.nodes_in_index > 0
    assert batchsum.repair_index(out).nodes_indexed == 0  # repair: nothing to do on an intact index
    written = batchsum.export(out, tmp_path / "export", format="csv")
    assert {p.name for p in written} >= {"runs.csv", "files.csv"}
    # eval: one document against its reference, scored by the real runner.
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir(), refs.mkdir()
    (docs / "a.txt").write_text((SAMPLE_CORPUS / "journal" / "2026-10-01.md").read_text(), encoding="utf-8")
    (refs / "a.txt").write_text("A walk along the harbour after a storm.", encoding="utf-8")
    report = batchsum.eval_summaries(docs, refs, out=tmp_path / "eval-out", metrics=False)
    assert report.methods[0].n_docs == 1 and 0 < report.methods[0].rouge1 <= 1
    # facts: extraction from the journal through the loopback server.
    fake_llm.configure(rules=[{"match": "The journal entry:", "content": json.dumps({"facts": ["The user walks."]})}])
    done = batchsum.facts(JOURNAL, out=str(out), base_url=fake_llm.base_url, model="fake", rpm=0)
    assert done.files > 0


def test_the_named_exceptions_import_from_the_package(tmp_path: Path) -> None:
    assert batchsum.ConfigError is errors.ConfigError and batchsum.RunInterrupted is errors.RunInterrupted
    assert batchsum.SettingsChanged is remembered.SettingsChanged and issubclass(batchsum.LockedError, Exception)
    with pytest.raises(batchsum.ConfigError):
        batchsum.run(tmp_path / "nowhere", out=str(tmp_path / "out"))
    with pytest.raises(AttributeError):
        batchsum.no_such_thing  # noqa: B018
