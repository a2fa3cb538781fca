"""Facets the author wrote down (lists under "Decisions", "Action items", "Open questions"; open tasks)
come first, in any kind of file: meeting notes had given none of their 4 action items, 2 decisions and
1 open question, and their one participant was "Attendees"."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.facets import extract_facets
from batchsum.tree import read_node
from batchsum.written_facets import has_written_facets, with_written, written_facets

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
        ("ask Ana for the ladder", None),  # SCHEDULED says when to do it, not by when
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
    assert {(a["owner"], a.get("due")) for a in meta["action_items"]} >= {
        ("Priya", "Wednesday 2024-11-20"),  # the weekday of a dated note, dated (Monday 2024-11-18's Wednesday)
        ("Dana", None),
    }
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


def _tasks(text: str, participants: tuple[str, ...] = ()) -> list[tuple[str, str | None, str | None]]:
    facets = written_facets(text, participants) if participants else written_facets(text)
    return [(a.task, a.owner, a.due) for a in facets.action_items]


def test_a_heading_names_a_kind_only_as_a_whole() -> None:
    # Done work, sights to see and an FAQ are no open items; a heading that only starts with a kind's name
    # had made them so.
    assert written_facets("## Tasks completed this week\n\n- Migrated the billing service\n").is_empty()
    assert written_facets("To do in Lisbon:\n- Visit the Alfama\n- Eat pastéis de nata in Belém\n").is_empty()
    faq = "## Questions\n\n- How do I reset my password? Use the link on the login page.\n"
    assert written_facets(faq).is_empty()
    # A wrapped sentence's last word before a colon is no heading.
    assert written_facets("The test functions perform these three\nactions:\n\n- Set up the data.\n").is_empty()
    # Emphasis, emoji, numbering, a note in brackets and "... for <what>" around the name are fine.
    for heading in (
        "## 📋 Action items",
        "## 2. **Action items** (from Monday):",
        "## Action items for the Harbor Gas project",
        "**Next steps:**",
        "_Follow-ups_:",
    ):
        assert _tasks(f"{heading}\n\n- Priya: send the deck by Friday\n") == [
            ("send the deck by Friday", "Priya", "Friday")
        ], heading
    assert written_facets("## Open issues\n\n- Which caterer?\n").unresolved == ["Which caterer?"]


def test_only_top_level_items_count_and_fenced_code_is_no_note() -> None:
    nested = "## Action items\n- Priya: send the deck\n  - slides 1-5 from Marco\n  - appendix\n- Ben: book the room\n"
    assert _tasks(nested) == [("send the deck", "Priya", None), ("book the room", "Ben", None)]
    # A sub-task with a box of its own is a task.
    assert len(_tasks("- [ ] Plan the trip\n    - [ ] book the flights\n")) == 2
    readme = "# Tasks plugin\n\nWrite a task like this:\n\n```markdown\n- [ ] Buy milk 📅 2024-03-15\n```\n\nDone.\n"
    assert written_facets(readme).is_empty()
    tilde = "## Next steps\n\n~~~\n- not an item\n~~~\n\n- Ship it\n"
    assert _tasks(tilde) == [("Ship it", None, None)]


def test_an_owner_is_a_person() -> None:
    text = (
        "## Action items\n\n- Backend: migrate to Postgres 16\n- Urgent: renew the TLS certificate\n"
        "- Deploy the fix (Monday)\n- Fix the login page (P1)\n- QA: run the smoke tests\n- @home fix the shelf\n"
        "- Send the invoice (Dana)\n- @marco review the PR\n"
    )
    assert _tasks(text) == [
        ("Backend: migrate to Postgres 16", None, None),
        ("Urgent: renew the TLS certificate", None, None),
        ("Deploy the fix", None, "Monday"),  # the date in brackets is its due date, said once
        ("Fix the login page (P1)", None, None),
        ("QA: run the smoke tests", None, None),
        ("@home fix the shelf", None, None),
        ("Send the invoice", "Dana", None),
        ("@marco review the PR", "marco", None),
    ]


def test_in_a_conversation_an_owner_is_the_participant_named() -> None:
    text = "## Action items\n\n- Priya: send the deck\n- Marketing: print the flyers\n- Lee: call Ana\n"
    assert _tasks(text, ("Priya Raman", "Marketing", "Ben Okafor")) == [
        ("send the deck", "Priya Raman", None),
        ("print the flyers", "Marketing", None),
        ("call Ana", "Lee", None),  # no participant: a person all the same
    ]


def test_the_cheap_check_reads_headings_as_written_facets_does() -> None:
    cases = [
        "## 📋 Action items\n\n- Priya: send the deck by Friday\n",
        "## Action items for the Harbor Gas project\n\n- Priya: send the deck by Friday\n",
        "## Action items (from Monday)\n\n- Priya: send the deck by Friday\n",
        "## Tasks completed this week\n\n- Migrated the billing service\n",
        "## Questions\n\n- How do I reset my password? Use the link.\n",
        "## Action items\n\nNone this week.\n",
        "The test functions perform these three\nactions:\n\n- Set up the data.\n",
    ]
    for text in cases:
        assert has_written_facets(text) == (not written_facets(text).is_empty()), text
    assert has_written_facets("Notes.\n- [ ] call the bank\n")


def test_a_date_in_brackets_at_a_tasks_end_is_its_due_date() -> None:
    text = (
        "# Weekly status\n\n## Next week\n\n"
        "- [ ] Sofia: mid-fidelity pricing wireframes (Sep 10)\n"
        "- [ ] Tom: validation script (due Friday)\n"
        "- [ ] Hannah: copy for the banner (two versions)\n"
    )
    items = {a.owner: a for a in written_facets(text).action_items}
    assert (items["Sofia"].task, items["Sofia"].due) == ("mid-fidelity pricing wireframes", "Sep 10")
    assert items["Tom"].due == "Friday"
    # A time of day in capitals is a due date, not an owner (a run had stopped on it with a ValueError).
    evening = written_facets("## Next week\n\n- [ ] call the plumber (This Evening)\n").action_items
    assert [(a.task, a.owner, a.due) for a in evening] == [("call the plumber", None, "This Evening")]
    # An explicit date before the brackets says when; the brackets stay the task's words.
    dated = written_facets("## Next week\n\n- [ ] call the plumber 📅 2026-10-03 (Friday)\n").action_items
    assert [a.due for a in dated] == ["2026-10-03"]
    iso = {
        a.owner: a
        for a in written_facets("## Next week\n\n- [ ] Ana: send the invoice (due: 2026-10-03)\n").action_items
    }
    assert (iso["Ana"].task, iso["Ana"].due) == ("send the invoice", "2026-10-03")
    assert items["Hannah"].due is None and items["Hannah"].task.endswith("(two versions)")


def test_only_a_due_date_is_a_due_date() -> None:
    """The Tasks plugin's start (🛫) and scheduled (⏳) dates and Logseq's SCHEDULED say when to work on a task,
    not by when it is due (a new-user review: "Renew library card 🛫 2025-09-11" had read "due: 2025-09-11");
    📅, Logseq's DEADLINE and "due:" are due dates. None of them is a word of the task."""
    note = (
        "- [ ] Renew library card 🛫 2025-09-11\n"
        "- [ ] Book the dentist ⏳ 2025-09-15\n"
        "- [ ] Send Anna the photos 📅 2025-09-12\n"
        "- [ ] Return the drill due: 2025-09-13\n"
        "- TODO Ask Ana for the ladder\n  SCHEDULED: <2025-09-14 Sun>\n"
        "- TODO File the tax return\n  DEADLINE: <2025-09-30 Tue>\n"
        "- LATER Oil the bike chain SCHEDULED: <2025-09-16 Tue>\n"
    )
    assert [(a.task, a.due) for a in written_facets(note).action_items] == [
        ("Renew library card", None),
        ("Book the dentist", None),
        ("Send Anna the photos", "2025-09-12"),
        ("Return the drill", "2025-09-13"),
        ("Ask Ana for the ladder", None),
        ("File the tax return", "2025-09-30"),
        ("Oil the bike chain", None),
    ]


def test_tags_that_file_a_task_are_no_words_of_it() -> None:
    """Tags before a task's words or after them (among its dates) file it: "Send Anna the photos 📅 2025-09-12
    #todo" had read "Send Anna the photos todo". A tag among the words reads as its word, as in any sentence."""
    note = (
        "- [ ] Send Anna the photos 📅 2025-09-12 #todo\n"
        "- [ ] #task Renew the library card #errands #home/admin\n"
        "- [ ] Reset the #homelab router 📅 2025-09-20 #p1 ⏫\n"
        "- [ ] Paint the gate #garden ⏳ 2025-09-21 #weekend\n"
        "- TODO Call the plumber #house\n"
    )
    assert [(a.task, a.due) for a in written_facets(note).action_items] == [
        ("Send Anna the photos", "2025-09-12"),
        ("Renew the library card", None),
        ("Reset the homelab router", "2025-09-20"),
        ("Paint the gate", None),
        ("Call the plumber", None),
    ]
    # A tag after a task's last sentence is no heading of the items under it: "#todo" had made "milk" a task.
    shopping = written_facets("- [ ] Send the photos. #todo\n- milk\n- eggs\n\n## Decisions\n- Sell the van. #car\n")
    assert [a.task for a in shopping.action_items] == ["Send the photos."]
    assert shopping.decisions == ["Sell the van."]


def test_a_written_decision_is_no_found_action_item() -> None:
    """A sentence the notes file under Decisions ("We will file the motion to compel by June 28.") had come back
    as an action item without an owner, found by the rules in the same words."""
    notes = (
        "# Case team\n\n## Decisions\n\n- We will file the motion to compel by June 28.\n\n"
        "## Action items\n\n- [ ] Priya Shah: prepare deposition digests by June 25\n"
    )
    facets = with_written(written_facets(notes), extract_facets(notes))
    assert facets.decisions == ["We will file the motion to compel by June 28."]
    assert all("motion to compel" not in a.task for a in facets.action_items), facets.action_items
