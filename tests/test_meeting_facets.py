"""A meeting team's facets: a decision says who said it, a labelled or short item is one, an owner named is
a speaker, "until" is no deadline, a person is one participant, a note's decisions each shown once, and
``--type meeting`` names the conversation type; the meeting's own mechanics and mere agreement are no items.
Real runs where the final is what is checked."""

from __future__ import annotations

from pathlib import Path

from batchsum.facets import ExtractedFacets, extract_facets
from batchsum.written_facets import unshown
from tests.one_final import final_node, final_text

MEETING = (
    "Maya Chen: Thanks for joining, everyone, this is the release sync for the mobile app.\n"
    "Raj Patel: The regression suite passed on both platforms last night.\n"
    "Maya Chen: Good. We decided to ship version 2.4 on Thursday after the store review.\n"
    "Lena Fischer: I'll update the release notes by Wednesday.\n"
    "Raj Patel: Sounds good to me.\n"
)


def test_a_decision_names_who_said_it_in_the_body_and_the_front_matter(tmp_path: Path) -> None:
    meta, body = final_node(tmp_path, "meetings/sync.txt", MEETING, "--type", "conversation")
    decision = next(d for d in meta["decisions"] if "version 2.4" in str(d))
    assert decision["said_by"] == "Maya Chen" and decision["text"].startswith("We decided to ship")
    assert any(ln.startswith("- Maya Chen: ") and "version 2.4" in ln for ln in body.splitlines()), body


def _facets(*turns: tuple[str, str]) -> tuple[list[str], dict[str, tuple[str | None, str | None]]]:
    """Decisions, and each action item's task with its owner and due date."""
    f = extract_facets(list(turns))
    return f.decisions, {a.task: (a.owner, a.due) for a in f.action_items}


def test_the_board_of_directors_is_no_whiteboard() -> None:
    _, items = _facets(
        ("Maya Chen", "I'll send the deck to the board by Thursday. I'll write the numbers on the board."),
        ("Raj Patel", "Great, thanks Maya."),
    )
    assert items == {"I'll send the deck to the board by Thursday.": ("Maya Chen", "Thursday")}


def test_labelled_decisions_and_short_commitments_are_whole_phatic_talk_is_not() -> None:
    said = "Decision: we stay on AWS. Agreed: we ship Friday. Decision: postpone the launch. I'll email legal today."
    decisions, items = _facets(("Maya Chen", said), ("Raj Patel", "Okay, sounds good to me."))
    assert decisions == ["We stay on AWS.", "We ship Friday.", "Postpone the launch."]
    assert list(items) == ["I'll email legal today."] and items["I'll email legal today."][0] == "Maya Chen"


def test_an_owner_named_is_a_speaker_never_the_one_who_said_it() -> None:
    _, items = _facets(
        ("Maya Chen", "Action item: Lena to collect the vendor invoices by Nov 30."),
        ("Lena Fischer", "Noted, thanks."),
        ("Maya Chen", "Action item for Lena: send the signed contract to legal."),
        ("Maya Chen", "Lena, you will handle the press release by December 1."),
        ("Maya Chen", "Action item: Oscar to book the venue by Friday."),
    )
    assert items["Lena to collect the vendor invoices by Nov 30."] == ("Lena Fischer", "Nov 30")
    assert items["Send the signed contract to legal."][0] == "Lena Fischer"
    assert items["Lena, you will handle the press release by December 1."] == ("Lena Fischer", "December 1")
    # "Oscar" names no participant: the labelled task reads as "Talk to legal ..." does, the speaker's (a
    # capitalised word before "to" may be a verb; only a participant's name is known to be a name)
    assert items["Oscar to book the venue by Friday."][0] == "Maya Chen"
    _, items = _facets(
        ("Julia Roberts", "Fine."),
        ("Maya Chen", "Julia, you'll handle that."),
        ("Lena Fischer", "Noted."),
        ("Raj Patel", "Lena and I will test the failover on Tuesday."),
    )
    assert items["Julia, you'll handle that."][0] == "Julia Roberts"
    assert set(str(items["Lena and I will test the failover on Tuesday."][0]).split(", ")) == {
        "Lena Fischer",
        "Raj Patel",
    }


def test_until_is_no_deadline_and_lets_keep_is_no_task() -> None:
    _, items = _facets(
        ("Maya Chen", "Let's keep it until December 15 and then remove it."),
        ("Raj Patel", "I'll keep the old server running until Friday."),
    )
    assert "Let's keep it until December 15 and then remove it." not in items
    assert all(due is None for _, due in items.values()), items


def test_a_person_is_one_participant_and_a_placeholder_is_none() -> None:
    f = extract_facets(
        [
            ("The Chair (Hon. Anthony Rota (Nipissing, Lib.))", "We will now begin the statements by members."),
            ("Hon. Andrew Scheer (Leader of the Opposition)", "I will table the motion by Friday."),
            ("The Chair", "Thank you, the member has the floor."),
            ("Hon. Andrew Scheer", "I'll send the report to the clerk by Monday."),
            ("Unknown Speaker", "Yes, thank you."),
            ("Speaker 2", "Agreed, thanks."),
        ]
    )
    bare = [p.split(" (")[0] for p in f.participants]
    assert sorted(bare) == ["Hon. Andrew Scheer", "The Chair"], f.participants
    assert {a.owner for a in f.action_items} >= {"Hon. Andrew Scheer"}  # owners still resolve by their label


NOTES = """# Product sync 2026-11-19

Attendees: Maya Chen, Raj Patel, Tom Berger

## Decisions
- Pricing page goes live on December 1.
- Free tier keeps 3 projects.

## Action items
- [ ] Raj: update the billing limits by 2026-11-26
- [ ] Tom: brief the sales team by Friday
- [x] Maya: send the agenda

## Open questions
- Do we grandfather existing free users?
"""


def test_a_notes_decisions_are_all_listed_when_its_summary_keeps_one_bullet(tmp_path: Path) -> None:
    """The summary picked both bullets and kept the second's marker only: no list, so the facets list both."""
    body = final_text(tmp_path, "meetings/2026-11-19-notes.md", NOTES).split("\n---\n", 1)[1]
    facets = body.split("## Facets (extracted)", 1)[1]
    decisions = facets.split("**Decisions**", 1)[1].split("\n\n**", 1)[0] if "**Decisions**" in facets else ""
    for decision in ("Pricing page goes live on December 1.", "Free tier keeps 3 projects."):
        assert f"- {decision}" in decisions, body


def test_type_meeting_names_the_conversation_type(tmp_path: Path) -> None:
    meta, _ = final_node(tmp_path, "sync.txt", MEETING, "--type", "meeting")
    assert meta["content_type"] == "conversation"


CHAIR = ("Ben Okafor", "Thanks for joining the planning call for the spring campaign.")


def test_a_labelled_task_opening_with_a_verb_stays_the_speakers() -> None:
    for task in ("TODO: Talk to legal about the contract.", "Follow-up: Reply to the vendor about the price."):
        _, items = _facets(("Ben Okafor", task), ("Maya Chen", "Noted, thanks."))
        assert [owner for owner, _ in items.values()] == ["Ben Okafor"], items
    _, items = _facets(("Ben Okafor", "TODO: Maya to send the contract to legal."), ("Maya Chen", "Noted."))
    assert [owner for owner, _ in items.values()] == ["Maya Chen"], items


def test_the_meetings_mechanics_and_whiteboard_are_no_tasks() -> None:
    for said in (
        "I'll grab a coffee.",
        "We'll take a break.",
        "I'll go first.",
        "I will mute myself.",
        "I'll erase the board so we can start fresh.",
        "I'll clear the board before the next session starts.",
        "I'll pull up the board and go through the tickets.",
    ):
        _, items = _facets(CHAIR, ("Maya Chen", said), ("Ben Okafor", "Sounds good, thanks."))
        assert not items, said
    _, items = _facets(CHAIR, ("Maya Chen", "We will brief the board on Monday. I'll call Priya."))
    assert len(items) == 2, items  # the directors, and a short task with a named object


def test_agreement_after_a_decision_label_decides_nothing() -> None:
    for said in ("Agreed: sounds good to me.", "Agreed: let's do that.", "Agreed - that works for me."):
        decisions, _ = _facets(CHAIR, ("Maya Chen", said), ("Ben Okafor", "Great, thanks everyone."))
        assert not decisions, said


def test_people_sharing_a_role_are_two_and_transcriber_labels_none() -> None:
    f = extract_facets(
        [
            ("The Acting Speaker (Mrs. Carol Hughes)", "Resuming debate, the member for Calgary has the floor."),
            ("The Acting Speaker (Mr. Anthony Rota)", "Order, the time for debate has expired."),
            ("SPEAKER_00", "I will table the petition by Friday."),
            ("Speaker A", "I'll send the report to the clerk by Monday."),
        ]
    )
    assert sorted(f.participants) == ["The Acting Speaker (Mr. Anthony Rota)", "The Acting Speaker (Mrs. Carol Hughes)"]


def test_a_list_after_an_emphasised_label_or_with_wrapped_items_is_shown_once() -> None:
    f = ExtractedFacets(decisions=["Move the launch to March.", "Keep the free tier."], unresolved=["Who pays?"])
    shown = "**Decisions:**\n- Move the launch to March.\n\n**Open questions**\n- Who pays?"
    assert unshown(f, shown).decisions == ["Keep the free tier."] and not unshown(f, shown).unresolved
    wrapped = (
        "## Decisions\n\n- Move the launch to March, after the vendor\n  delivers the build.\n- Keep the free tier."
    )
    assert unshown(f, wrapped).decisions == ["Move the launch to March."]
