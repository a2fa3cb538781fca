"""Offline facets a user labelled wrong on unseen meetings, calls and chats (issue #28): an action item is a
task for later whose words say what is to be done, a labelled task keeps its owner and reads as a sentence, a
label in emphasis or with a dash is still a label, a document's labelled lines are read as a conversation's,
an entity is a name, and a hedged decision is none. Rules on small texts, then real runs."""

from __future__ import annotations

from pathlib import Path

from batchsum.facets import extract_facets
from batchsum.tree import parse_markdown
from tests.one_final import final_text


def _tasks(text: str) -> list[str]:
    return [a.task for a in extract_facets(text).action_items]


def test_the_rooms_mechanics_and_tasks_leaning_on_context_are_no_action_items() -> None:
    text = (
        "Ana Lopez: I'll take you over the minutes of last meeting.\n"
        "Ben Okafor: I'll get back to my thing then.\n"
        "The Acting Chair (Mrs. Carol Hughes): We will go to the honourable minister.\n"
        "Ana Lopez: I'll now turn to the member for Vancouver East.\n"
        "Ben Okafor: I will do so after every meeting, as usual.\n"
        "Ana Lopez: I'll put it back in a minute.\n"
        "Ben Okafor: I will write that one in a Word document.\n"
        "Ana Lopez: I'm going to remind you of them again.\n"
        "Ben Okafor: I'm going to try to find that out.\n"
        "Ana Lopez: I'm going to work for a company.\n"
        # the tasks beside them stay: a content object, an answer owed to someone, a date to keep
        "Ben Okafor: I'll send the revised budget to finance.\n"
        "Ana Lopez: Ben, I'll get back to you on the budget by Friday.\n"
        "Ben Okafor: I will review it this afternoon and merge it if the checks pass.\n"
    )
    assert _tasks(text) == [
        "I'll send the revised budget to finance.",
        "Ben, I'll get back to you on the budget by Friday.",
        "I will review it this afternoon and merge it if the checks pass.",
    ]


def test_a_labelled_task_keeps_its_owner_and_reads_as_a_sentence() -> None:
    text = (
        "Anna Berg: Action: @omar to fix the Android analytics events before the release.\n"
        "Omar Haddad: Sure, on it.\n"
        "Anna Berg: Action item for Priya: update the Jira board with the new dates by Monday.\n"
        "Priya Shah: TODO: jonas to book a usability test with five users.\n"
        "Jonas Weber: Fine by me.\n"
    )
    items = extract_facets(text).action_items
    assert [a.owner for a in items] == ["Omar Haddad", "Priya Shah", "Jonas Weber"]
    assert all(a.task[0].isupper() and "@" not in a.task for a in items), items


def test_a_decision_label_in_emphasis_or_with_a_dash_is_a_label() -> None:
    for label in ("Decision:", "**Decision:**", "*Decision:*", "**Decision**:", "Decision -", "_Decision_ -"):
        text = (
            "Anna Berg: Quick sync on the billing migration.\n"
            f"Anna Berg: {label} freeze deploys to billing from Dec 1 until the cutover is done.\n"
            "Rahul Mehta: ok.\n"
        )
        assert [d.split()[0] for d in extract_facets(text).decisions] == ["Freeze"], label
    open_text = "Ana: **Open question:** do we need a downtime window for the cutover?\nBen: ok.\n"
    assert extract_facets(open_text).unresolved == ["Do we need a downtime window for the cutover?"]


def test_a_hedged_decision_is_none() -> None:
    text = (
        "Project Manager: We have decided more or less the basic structure of the remote.\n"
        "Marketing: We sort of agreed on the yellow case for the remote.\n"
        "Industrial Designer: We decided to use a rubber case for the remote.\n"
    )
    assert extract_facets(text).decisions == ["We decided to use a rubber case for the remote."]


def test_an_entity_is_a_name_not_a_word_with_a_number_a_title_or_a_split_word() -> None:
    text = (
        "Ana Lopez: The COVID-19 rules changed again in March, and COVID-19 testing is slower at Northwind.\n"
        "Ben Okafor: Our COVID-19 plan is fine, the Minister said so, and the Minister agreed with the Bill.\n"
        "Ana Lopez: The Bill passed, I think the Minister will sign it for Northwind.\n"
        "Ben Okafor: Export as J_ PEG . Okay , export as J_ PEG again .\n"
    )
    assert extract_facets(text).entities == ["Northwind"]


MINUTES = """# Design review — 2026-11-19

Attendees: Anna Berg, Jonas Weber, Lena Fischer, Omar Haddad

## Notes

Jonas walked through the new onboarding flow. Lena raised concerns about the consent screen.
Omar said the analytics events are not firing on Android.

Decision: We will ship the onboarding flow behind a feature flag on December 3.
**Decision:** Drop the legacy tutorial screens.

Action: @anna to update the Figma file with the new consent copy by Monday.
TODO: Jonas to book a usability test with five users.

Open questions: Do we need a separate consent screen for EU users? Who signs off on the final copy?
"""


def test_a_documents_labelled_lines_are_its_facets(tmp_path: Path) -> None:
    meta, body = parse_markdown(final_text(tmp_path, "team/2026-11-19-design-review-minutes.md", MINUTES))
    assert [d.split()[0] for d in meta["decisions"]] == ["We", "Drop"]
    tasks = {a["owner"]: a["task"] for a in meta["action_items"]}
    assert sorted(tasks) == ["Anna", "Jonas"]
    assert all(t[0].isupper() and "@" not in t for t in tasks.values()), tasks
    # Each open question once: the summary's inline "Open questions: a? b?" or the facets' list, not both.
    facets = body.split("## Facets", 1)[1]
    for question in ("Do we need a separate consent screen for EU users?", "Who signs off on the final copy?"):
        assert body.count(question) == 1, body
        assert (question in facets) != ("Open questions: " in body.split("## Facets", 1)[0]), body


CHAT = """Anna Berg: morning all, quick sync on the billing migration
Omar Haddad: I'll finish the schema diff by Tuesday
Anna Berg: Action: @omar to fix the Android analytics events before the release
Omar Haddad: ok
Anna Berg: *Decision:* freeze deploys to billing from Dec 1 until the cutover is done
"""


def test_a_chats_labelled_task_and_decision_in_a_run(tmp_path: Path) -> None:
    meta, _ = parse_markdown(final_text(tmp_path, "chat/sync.txt", CHAT))
    owners = {a["task"].split()[0]: a.get("owner") for a in meta["action_items"]}
    assert owners.get("Omar") == "Omar Haddad", meta["action_items"]
    decisions = [d["text"] if isinstance(d, dict) else d for d in meta["decisions"]]
    assert any(d.startswith("Freeze deploys") for d in decisions), decisions
