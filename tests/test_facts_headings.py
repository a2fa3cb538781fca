"""A journal's entries are split at every dated heading batchsum reads ("9 October 2026", "9. Oktober
2026", "14.03.2025"), so appending one entry sends only that entry for extraction."""

from __future__ import annotations

import json
from pathlib import Path

from batchsum.memory.units import journal_entries
from batchsum.model import Document
from tests.fakeserver import FakeLLMServer
from tests.test_facts import extraction_requests, facts_cli, facts_json, live_texts, memory_json

PORTO = "The user lives in Porto."
LISBON_NEW = "The user moved to Lisbon."
LISBON = "The user lives in Lisbon."


def _journal(text: str) -> Document:
    return Document(Path("j.md"), "j.md", text, "0", len(text), 0, "journal", "test", doc_date="2026-01-01")


def test_day_first_localized_and_numeric_headings_start_entries() -> None:
    headings = [
        "# 1 October 2026",
        "## Freitag, 9. Oktober 2026",
        "**14.03.2025**",
        "## 03.04.2025",  # a day, though not which one: an entry, dated as the file is
        "# Monday, October 5",
        "## Tue, Oct 6 2026",  # a month's short name, as diaries write it
        "## 2026-10-07 (Wednesday) moving day",
        "## 10 things I learned",  # no day: part of the entry above
    ]
    entries = journal_entries(_journal("\n".join(f"{h}\nSome words.\n" for h in headings)))
    dates = ["2026-10-01", "2026-10-09", "2025-03-14", "2026-01-01", "2026-01-01", "2026-10-06", "2026-10-07"]
    assert [(u.line, u.date) for u in entries] == [(1 + 3 * i, d) for i, d in enumerate(dates)]
    assert entries[-1].text.endswith("## 10 things I learned\nSome words.")


def test_weekday_headings_in_every_language_the_reader_dates_start_entries() -> None:
    # The facts pass reads the weekdays the summarizer reads (periods.WEEKDAY_WORDS): Italian and Portuguese too.
    headings = ["## martedì 5 marzo 2024", "## terça-feira, 12 de março de 2024", "## mardi 19 mars 2024"]
    entries = journal_entries(_journal("\n".join(f"{h}\nSome words.\n" for h in headings)))
    assert [u.date for u in entries] == ["2024-03-05", "2024-03-12", "2024-03-19"]


def test_appending_a_day_first_entry_sends_only_that_entry(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    life = src / "journal" / "life.md"
    first = "# 1 October 2026\nI live in Porto with my partner.\n"
    fake_llm.configure(
        rules=[
            {"match": "The journal entry:\n\n# 1 October 2026", "content": facts_json(PORTO)},
            {"match": "The journal entry:\n\n# 9 October 2026", "content": facts_json(LISBON_NEW)},
            {"match": f'"new_facts": [\n  "{LISBON_NEW}"', "content": memory_json(("0", LISBON, "UPDATE"))},
        ]
    )
    life.write_text(first, encoding="utf-8")
    assert facts_cli(src, "--out", out, "--no-index", base_url=fake_llm.base_url).exit_code == 0
    life.write_text(first + "\n# 9 October 2026\nBig news: I moved to Lisbon last week.\n", encoding="utf-8")
    fake_llm.configure(reset_log=True)
    result = facts_cli(src, "--out", out, "--json", "--no-index", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    sent = extraction_requests(fake_llm)
    assert len(sent) == 1 and "9 October 2026" in sent[0] and "Porto" not in sent[0]
    assert json.loads(result.output)["units"] == 1
    assert live_texts(out) == [LISBON]
