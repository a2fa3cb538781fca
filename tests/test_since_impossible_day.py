"""``search --since`` reads a file's entry days; a day no calendar has ("2023-02-29: ...") dates no entry."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.asked_periods import entry_days

JULY = """# July 2024

## July 2, 2024

We hiked up to the lake with Ana and swam in the cold water.

## July 20, 2024

The garden tomatoes finally turned red and we made a salad.

2023-02-29: a typo in a note about the lake trip.
"""


def test_an_impossible_day_label_neither_crashes_nor_dates_an_entry(tmp_path: Path) -> None:
    src, out = tmp_path / "j", tmp_path / "o"
    src.mkdir()
    (src / "2024-07.md").write_text(JULY, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["search", "lake", "--out", str(out), "--since", "2024-07-10", "--json"])
    assert res.exit_code == 0, res.output
    files = [h["source_path"] for h in json.loads(res.output) if not h["source_path"].startswith("digests/")]
    assert files == ["2024-07.md"]  # its July 20 entry is on or after the day asked
    assert [d.isoformat() for d in entry_days("2024-02-30: a note\n\n2024-03-01: another\n", 2024)] == ["2024-03-01"]
