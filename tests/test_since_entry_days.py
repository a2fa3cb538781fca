"""``search --since`` reads a file of many days by its entries' days: a month file ("2024-04.md") or a week file is
dated by its name's first day, and its entries under "## Dienstag, 2. April 2024" had been left out by
``--since 2024-04-02``, with a hint blaming the file's copy date (a reviewer's German journal)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

APRIL = """# April 2024

## Dienstag, 2. April 2024

Innsbruck liegt herrlich in einem breiten Tale zwischen hohen Felsen. Wir blieben zwei Nächte im Gasthof am Inn.

## Mittwoch, 17. April 2024

Zu Hause regnete es den ganzen Tag. Ich habe Briefe geschrieben und die Fotos der Reise sortiert.
"""

# ISO week 1 of 2025 starts on Monday 30 December 2024: its second entry is a day of the next year.
WEEK = """# Woche 1

## Montag, 30. Dezember 2024

Wir packten die Koffer für die Reise in die Berge und kauften Proviant für die lange Fahrt.

## Donnerstag, 2. Januar 2025

Die Hütte am Achensee war eiskalt, aber der Blick auf den gefrorenen See entschädigte für alles.
"""

MARCH = "Die Fahrt nach Innsbruck dauerte sechs Stunden. Im Zug las ich Goethes Reisetagebuch bis zum Brenner.\n"

UNDATED = "Zirbenholz riecht nach Wald. Der Schreiner in Schwaz hat uns eine Truhe daraus gebaut, sehr schön.\n"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("journal")
    for name, text in (("2024-04.md", APRIL), ("2025-W01.md", WEEK), ("2024-03-05.md", MARCH), ("notes.md", UNDATED)):
        (src / name).write_text(text, encoding="utf-8")
    os.utime(src / "notes.md", ns=(COPIED, COPIED))
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return out


def _sources(out: Path, query: str, since: str) -> list[str]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "--since", since, "--json"])
    assert res.exit_code == 0, res.output
    return [h["source_path"] for h in json.loads(res.output)] if res.output.strip().startswith("[") else []


def test_a_month_file_passes_since_by_its_entries_days(out: Path) -> None:
    assert "2024-04.md" in _sources(out, "Innsbruck", "2024-04-02")
    assert "2024-04.md" in _sources(out, "Innsbruck", "2024-04-17")  # a later entry of the file is on the day
    # No entry of the file is that late, and a day's file is its day's only (April's and 2024's digests pass by
    # their periods, which hold the day).
    assert [s for s in _sources(out, "Innsbruck", "2024-04-18") if not s.startswith("digests/")] == []
    assert "2024-03-05.md" not in _sources(out, "Innsbruck", "2024-03-06")


def test_a_week_file_entry_in_the_next_year_passes_since(out: Path) -> None:
    assert "2025-W01.md" in _sources(out, "Achensee", "2025-01-01")
    assert [s for s in _sources(out, "Achensee", "2025-01-03") if not s.startswith("digests/")] == []


def test_the_hint_blames_the_copy_date_only_for_a_file_dated_by_it(out: Path) -> None:
    # After 2024: its year's digest, which quotes the entries, holds days on or after a day of 2024.
    res = CliRunner().invoke(main, ["search", "Innsbruck", "--out", str(out), "--since", "2025-06-01"])
    assert res.exit_code == 0 and "No match" in res.output, res.output
    assert "copied" not in res.output, res.output  # the best is dated by its name
    res = CliRunner().invoke(main, ["search", "Zirbenholz", "--out", str(out), "--since", "2024-05-01"])
    assert res.exit_code == 0 and "notes.md" in res.output and "copied" in res.output, res.output
