"""A command to the listeners at a ``{disfmarker}`` ("let me just skip ahead", "let us", "let's") restarts
the sentence after any word left hanging but a coordinator ("This is {disfmarker} let me ...", "of the
{disfmarker} let me ..."): the abandoned start does not run into it. After a coordinating conjunction it goes
on as said, and after "to" or a modal "let me" is the phrase's verb."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cleanup import clean_transcript
from batchsum.cli import main
from batchsum.disfluency import INTERRUPTION, resolve_interruptions
from batchsum.text import split_sentences


def starts(line: str) -> list[str]:
    """The sentences of a cleaned line, lower case, without its speaker's label."""
    return [s.text.lower() for s in split_sentences(line.split(": ", 1)[1])]


def test_a_command_after_a_hanging_copula_starts_its_own_sentence() -> None:
    cleaned = clean_transcript(
        "Project Manager: Okay . This is {disfmarker} let me just skip ahead to the budget slide , okay .\n"
        "Marketing: I think that {disfmarker} let us look at the numbers first .\n"
        "User Interface: We can do that and {disfmarker} let 's meet on Friday to finish it ."
    ).split("\n")
    assert any(s.startswith("let me just skip ahead") for s in starts(cleaned[0])), cleaned[0]
    assert "this let me" not in cleaned[0].lower() and "is let me" not in cleaned[0].lower(), cleaned[0]
    assert any(s.startswith("let us look") for s in starts(cleaned[1])), cleaned[1]
    assert "that let us" not in cleaned[1].lower(), cleaned[1]
    assert "let's meet on friday" in cleaned[2].lower() and len(starts(cleaned[2])) == 1, cleaned[2]


def test_the_final_of_a_meeting_has_no_start_run_into_a_command(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    turns = [
        "Project Manager: Okay , so this is the overall budget for our project .",
        "Project Manager: This is {disfmarker} let me just skip ahead to the slide with the budget for the remote .",
        "Marketing: The remote should cost no more than twenty five Euros in the shops .",
        "Industrial Designer: The batteries of the remote last a year with the standard chip .",
    ]
    (src / "meeting.txt").write_text("\n".join(turns) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    final = (out / "meeting.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "Let me just skip ahead" in final and "This let me" not in final


def test_a_command_after_to_or_a_modal_continues_the_phrase() -> None:
    """ "to" and a modal take a bare verb: the reported request is kept, "to" and all (review s8 cr1)."""
    cleaned = clean_transcript(
        "Marketing: I asked him to {disfmarker} let us use the room .\n"
        "Project Manager: I want you to {disfmarker} let me see the draft .\n"
        "Industrial Designer: Could you {disfmarker} let me know when it 's done ?"
    ).split("\n")
    assert "asked him to let us use the room" in cleaned[0], cleaned[0]
    assert "want you to let me see the draft" in cleaned[1], cleaned[1]
    assert "you let me know" in cleaned[2], cleaned[2]
    assert all(len(starts(line)) == 1 for line in cleaned), cleaned


def test_a_command_after_a_hanging_article_or_preposition_starts_its_own_sentence() -> None:
    """No preposition or article takes a bare verb: the start they leave hanging is abandoned (review s8 cr2)."""
    cleaned = clean_transcript(
        "Project Manager: So the main point of the {disfmarker} let me just skip ahead to the costs .\n"
        "Marketing: We had a look at {disfmarker} let us look at the numbers first ."
    ).split("\n")
    assert any(s.startswith("let me just skip ahead") for s in starts(cleaned[0])), cleaned[0]
    assert "point let me" not in cleaned[0].lower(), cleaned[0]
    assert any(s.startswith("let us look") for s in starts(cleaned[1])), cleaned[1]
    assert "look let us" not in cleaned[1].lower(), cleaned[1]


def test_let_me_after_a_subject_is_its_verb() -> None:
    """A subject takes "let me"/"let us" as its verb: the report runs on, not a command (review s8 cr3)."""
    said = resolve_interruptions(f"Yesterday she {INTERRUPTION} let me borrow the car.")
    assert said.startswith("Yesterday she let me borrow"), said
    said = resolve_interruptions(f"Last week they {INTERRUPTION} let us use the big room.")
    assert said.startswith("Last week they let us use"), said
    assert resolve_interruptions(f"This is {INTERRUPTION} let me skip ahead.").startswith("Let me skip"), said
