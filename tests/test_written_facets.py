"""Facets the author wrote down (lists under "Decisions", "Action items", "Open questions"; open tasks)
come first, in any kind of file: meeting notes had given none of their 4 action items, 2 decisions and
1 open question, and their one participant was "Attendees"."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node
from batchsum.written_facets import written_facets

NOTES = """# Weekly product sync

Attendees: Dana Whitfield, Marco Bellini, Priya Raman, Sam Osei

## Discussion

Priya said the offline-sync project needs one more engineer to hit the March date. Marco said he
cannot spare anyone before January.

## Decisions

- Offline sync launches in April, not March.
- Translations go to the external agency, capped at 40 articles.

## Action items

- [ ] Priya: tell Harbor Gas about the April date by Wednesday.
- [ ] Dana: send the agency the purchase order for 40 articles.
- [x] Sam: close the old ticket queue.

## Open questions

- Do we need a second agency for Portuguese next year?

Dana will look into it later.

- A list after the prose is not under the heading any more.
"""

DAILY = """---
tags: [daily]
---
# 2024-03-12

Slept badly; the pipes knocked all night and the kitchen floor was wet again in the morning. The
plumber's number is on the fridge, but his line was busy until noon, and the shop that sold us the
boiler closes early on Tuesdays. Walked to the harbour in the afternoon and watched the ferry come in
late, with the wind against it the whole way from the island. Read two chapters of the new book in
the evening and went to bed early, hoping for a quieter night than the last one.

- [ ] call the plumber about the kitchen pipes 📅 2024-03-15
- [x] pay the electricity bill
- TODO ask [[Ana Silva|Ana]] for the ladder SCHEDULED: <2024-03-14 Thu>
- DONE water the plants
"""


def test_lists_under_facet_headings_and_open_tasks_are_read() -> None:
    facets = written_facets(NOTES)
    assert facets.decisions == [
        "Offline sync launches in April, not March.",
        "Translations go to the external agency, capped at 40 articles.",
    ]
    tasks = [(a.task, a.owner, a.due) for a in facets.action_items]
    assert tasks == [
        ("tell Harbor Gas about the April date by Wednesday.", "Priya", "Wednesday"),
        ("send the agency the purchase order for 40 articles.", "Dana", None),
    ]  # the ticked one is done
    assert facets.unresolved == ["Do we need a second agency for Portuguese next year?"]
    daily = written_facets(DAILY)
    assert [(a.task, a.due) for a in daily.action_items] == [
        ("call the plumber about the kitchen pipes", "2024-03-15"),
        ("ask Ana for the ladder", "2024-03-14"),
    ]


def _final(tmp_path: Path, name: str, text: str, *extra: str) -> tuple[dict, str]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q", *extra])
    assert res.exit_code == 0, res.output
    meta, body = read_node(out / name / "summaries" / "L3" / "final.md")
    return meta, body


def test_meeting_notes_get_the_facets_they_wrote(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, "2024-11-18 product sync.md", NOTES, "--type", "conversation")
    assert meta["decisions"][:2] == written_facets(NOTES).decisions
    assert {(a["owner"], a.get("due")) for a in meta["action_items"]} >= {("Priya", "Wednesday"), ("Dana", None)}
    assert "Do we need a second agency for Portuguese next year?" in meta["unresolved"]
    assert "Attendees" not in meta.get("participants", [])
    assert "## Facets (extracted)" in body


def test_a_journal_page_lists_its_open_tasks(tmp_path: Path) -> None:
    meta, _ = _final(tmp_path, "2024-03-12.md", DAILY, "--type", "journal")
    assert [a["task"] for a in meta["action_items"]] == [
        "call the plumber about the kitchen pipes",
        "ask Ana for the ladder",
    ]
    assert meta["action_items"][0]["due"] == "2024-03-15"
