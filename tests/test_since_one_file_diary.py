"""``search --since`` reads a one-file diary (dated by its first entry) by its entries' days, as it reads a month's
file: a travel journal of June, August and October 2024 had been left out by ``--since 2024-09-01`` although
its October entry is later (a journal keeper's report)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

TRAVEL = """# Travel journal

June 2, 2024.--Left Lisbon on the early train and reached Porto by noon; the river was brown after the rain.

August 14, 2024.--Climbed to the old lighthouse with Marta and counted forty gulls on the rocks.

October 2, 2024.--Took the ferry to Vigo; the harbour smelled of diesel and sardines, and the customs officer kept
my umbrella.
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("diary")
    (src / "travel.md").write_text(TRAVEL, encoding="utf-8")
    os.utime(src / "travel.md", ns=(COPIED, COPIED))
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "-q"])
    assert res.exit_code == 0, res.output
    return out


def _sources(out: Path, query: str, since: str) -> list[str]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "--since", since, "--json"])
    assert res.exit_code == 0, res.output
    return [h["source_path"] for h in json.loads(res.output)] if res.output.strip().startswith("[") else []


def test_a_one_file_diary_is_dated_by_its_first_entry(out: Path) -> None:
    final = (out / "travel.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert 'doc_date: "2024-06-02"' in final and "date_source: first entry" in final


def test_a_one_file_diary_passes_since_by_its_later_entries(out: Path) -> None:
    assert "travel.md" in _sources(out, "ferry to Vigo customs officer umbrella", "2024-09-01")
    assert "travel.md" in _sources(out, "ferry to Vigo customs officer umbrella", "2024-10-02")
    # No entry is that late: the file is left out.
    assert "travel.md" not in _sources(out, "ferry to Vigo customs officer umbrella", "2024-10-03")
