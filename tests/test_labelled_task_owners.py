"""Who a written task belongs to, and which labelled decisions stand: a task opening "Name to ..." names its
owner only when the name is a participant, a mention ("@jonas") or, after a task label, a word the text uses
as a name elsewhere; a journal's "- [ ] Need to buy milk" opens with its verb. A hedged "Decision:" is none,
in a document as in a conversation's turn."""

from __future__ import annotations

from pathlib import Path

from batchsum.agent_transcript import run_extras
from batchsum.facets import ActionItem, extract_facets
from batchsum.tree import parse_markdown
from tests.one_final import final_text


def _tasks(text: str, content_type: str = "document") -> list[ActionItem]:
    extras = run_extras(text, content_type=content_type, type_reason="", offline_facets=True)
    return list(extras.facets.action_items) if extras is not None and extras.facets is not None else []


def test_a_verb_opening_a_plain_task_is_no_owner(tmp_path: Path) -> None:
    journal = "Weekend\n\n- [ ] Need to buy milk and eggs\n- [ ] Try to fix the bike\n- [ ] Remember to call mum\n"
    meta, _ = parse_markdown(final_text(tmp_path, "2026-11-28.md", journal, "--type", "journal"))
    items = meta["action_items"]
    assert len(items) == 3, items
    assert all(not a.get("owner") for a in items), items
    assert [a["task"].split()[0] for a in items] == ["Need", "Try", "Remember"]  # the task whole


def test_a_labelled_task_names_a_mention_or_a_name_the_text_uses() -> None:
    assert [(a.owner, a.task) for a in _tasks("Notes\n\nTODO: @jonas to book the room\n")] == [
        ("Jonas", "Book the room")
    ]
    # A label is no name's warrant on its own: the word must be a name elsewhere in the text.
    assert [a.owner for a in _tasks("Planning\n\nAction: Need to update the board\n")] == [None]
    spoken = "Priya: I can take the board this week.\nBob: Great, thanks.\n\nAction: Priya to update the board\n"
    assert [a.owner for a in _tasks(spoken, "conversation")] == ["Priya"]
    assert [a.owner for a in _tasks(spoken)] == ["Priya"]  # a document quoting her as a speaker
    noted = "Planning\n\nWe asked Priya about the sprint.\n\nAction: Priya to update the board\n"
    assert [a.owner for a in _tasks(noted)] == ["Priya"]


def test_a_hedged_labelled_decision_is_none_in_a_meeting_and_in_a_document() -> None:
    hedged = "Decision: we will probably ship the beta on Friday."
    assert extract_facets(f"Alice: {hedged}\nBob: Fine, sounds good to me.").decisions == []
    extras = run_extras(f"Sync notes\n\n{hedged}\n", content_type="document", type_reason="", offline_facets=True)
    assert extras is None or extras.facets is None or extras.facets.decisions == []
    plain = run_extras("Sync notes\n\nDecision: we will ship the beta on Friday.\n", content_type="document",
                       type_reason="", offline_facets=True)  # fmt: skip
    assert plain is not None and plain.facets is not None and len(plain.facets.decisions) == 1
