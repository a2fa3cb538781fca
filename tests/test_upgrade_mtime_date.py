"""A file dated by its modification time that a new reader version dates otherwise (the local day, not the UTC
day) has its date rewritten by the next run, its summaries kept: no LLM request is sent for it."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import STATE_DIR
from batchsum.state import StateStore
from batchsum.walk import READER_VERSION
from tests.fakeserver import FakeLLMServer

GARDEN = (
    "The tomatoes along the south fence finally set fruit after the warm week. I tied the tallest vines to "
    "new stakes and pulled the bindweed that had crept in under the mulch. The beans need picking every "
    "other day now, and the courgettes are ahead of anything we can eat. Next weekend I want to sow a late "
    "row of spinach and move the compost bins closer to the shed so the paths stay clear.\n"
) * 2


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _run(src: Path, out: Path, llm: list[str]) -> dict[str, Any]:
    args = ["run", str(src), "--out", str(out), "--no-index", "--no-digests", "--json", *llm]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _date_line(final: Path) -> str:
    return next(line for line in final.read_text(encoding="utf-8").splitlines() if line.startswith("doc_date:"))


@pytest.mark.usefixtures("new_york")
def test_an_upgrade_that_dates_an_mtime_otherwise_rewrites_the_date_without_a_request(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    note = src / "notes" / "garden.md"
    note.parent.mkdir(parents=True)
    note.write_text(GARDEN, encoding="utf-8")
    late = dt.datetime(2026, 3, 1, 2, 0, tzinfo=dt.UTC).timestamp()  # 21:00 on 28 February in New York
    os.utime(note, (late, late))
    final = out / "notes" / "garden.md" / "summaries" / "L3" / "final.md"
    with FakeLLMServer().start() as server:
        llm = ["--base-url", server.base_url, "--model", "mock", "--rpm", "0", "--tpm", "0", "--no-facets"]
        _run(src, out, llm)
        assert server.request_count == 1 and "2026-02-28" in _date_line(final)
        # As the previous reader left the folder: the UTC day in the entry and the final, its reader's version.
        state = StateStore(out / STATE_DIR)
        entry = state.load_manifest()["notes/garden.md"]
        final.write_text(final.read_text(encoding="utf-8").replace("2026-02-28", "2026-03-01"), encoding="utf-8")
        st = final.stat()
        state.save_entry(
            replace(entry, doc_date="2026-03-01", reader=READER_VERSION - 1, final_stat=[st.st_size, st.st_mtime_ns])
        )
        state.write_snapshot()
        server.configure(reset_log=True)

        run = _run(src, out, llm)
        assert server.request_count == 0, "its summary is kept: only its date changed"
    assert sum("dated otherwise" in w for w in run["warnings"]) == 1, run["warnings"]
    assert "2026-02-28" in _date_line(final)
    assert StateStore(out / STATE_DIR).load_manifest()["notes/garden.md"].doc_date == "2026-02-28"


def test_a_new_date_under_the_same_reader_is_not_said_to_be_this_versions(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    note = src / "note.md"
    note.write_text(GARDEN * 4, encoding="utf-8")
    march = dt.datetime(2026, 3, 5, 12, 0).timestamp()
    os.utime(note, (march, march))
    _run(src, out, [])
    (out / "note.md" / "summaries" / "L3" / "final.md").unlink()
    july = dt.datetime(2026, 7, 9, 12, 0).timestamp()  # a touch: another day, the same reader
    os.utime(note, (july, july))

    args = ["plan", str(src), "--out", str(out), "--no-index", "--no-digests", "--json"]
    plan = json.loads(CliRunner().invoke(main, args).stdout)
    assert plan["changed"] == ["note.md"]
    assert plan["reasons"]["note.md"] != "dated otherwise", "this version dated it as it dates any file"
    assert not any("dated otherwise" in n for n in plan["change_notes"]), plan["change_notes"]
    run = _run(src, out, [])
    assert not any("dated otherwise" in w for w in run["warnings"]), run["warnings"]
