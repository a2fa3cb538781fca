"""A note kept whole shows no mdBook directive (its page never does: "{{#playground ...}}" had read
"{{playground ...}}"), and a journal heading on a day the calendar has not ("## 2024-02-30") labels no
summary line with it (the reader warns of it and dates nothing). Real runs."""

from __future__ import annotations

from pathlib import Path

from tests.one_final import final_text


def test_a_kept_note_shows_no_mdbook_directive(tmp_path: Path) -> None:
    text = "# Listing\n\nHere is the program.\n\n{{#playground ../listings/main.rs}}\n\n{{#include ../out.txt}}\n"
    final = final_text(tmp_path, "short.md", text)
    assert "Here is the program." in final
    assert "playground" not in final and "{{" not in final and "listings" not in final


def _entry(place: str, friend: str) -> str:
    return (
        f"I walked to the {place} in the morning and counted the boats that came in before the storm arrived. "
        f"The keeper told me the tide gauge at the {place} had drifted again and that he would reset it by hand. "
        f"In the afternoon I wrote three letters and read the first chapters of the book that {friend} had sent. "
        f"{friend} called in the evening to ask whether the {place} was flooded, and I said it was not yet. "
        f"We talked for an hour about the garden, the beetles under the stones and the price of coal this year. "
        f"Before bed I mended the lantern by the {place} door and wrote down the tides for tomorrow morning.\n"
    )


def test_an_impossible_heading_day_labels_no_line(tmp_path: Path) -> None:
    days = [("2024-02-30", "harbour", "Anna"), ("2024-03-02", "market", "Tomas"), ("2024-03-04", "quay", "Ruth"),
            ("2024-03-06", "chapel", "Ines")]  # fmt: skip
    text = "\n".join(f"## {day}\n\n{_entry(place, friend)}" for day, place, friend in days)
    final = final_text(tmp_path, "journal/days.md", text, "--type", "journal")
    assert "walked to the harbour" in final  # the entry under it is picked, without that label
    assert "2024-02-30" not in final
