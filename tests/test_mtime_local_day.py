"""A file dated by its modification time takes the local day the user saved it on, not the UTC day."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from batchsum.walk import SourceRef, read_document

PROSE = "We walked along the harbour wall and watched the ferries come in. Later I cooked a fish stew.\n"


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("new_york")
def test_a_late_evening_save_is_dated_that_evening(tmp_path: Path) -> None:
    note = tmp_path / "notes.md"
    note.write_text(PROSE)
    evening = dt.datetime(2026, 3, 10, 23, 30).timestamp()  # local time: 04:30 UTC on the 11th
    os.utime(note, (evening, evening))
    doc = read_document(SourceRef(note, note.name, tmp_path))
    assert (doc.doc_date, doc.date_source) == ("2026-03-10", "mtime")
