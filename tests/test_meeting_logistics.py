"""A recorded meeting's logistics (its microphones, the recording, the screen, the digits read for the corpus) are
phatic talk: context, never a summary's line nor a facet (backends/phatic.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.phatic import is_phatic
from batchsum.backends.units import units_from_text
from batchsum.cli import main

LOGISTICS = [
    "Is my mic on?",
    "Can everyone hear me?",
    "We're recording now.",
    "I'll go ahead and start with digits.",
    "Transcript L dash two one five.",
    "You're muted, Dave.",
    "Let me share my screen.",
    "Okay, we should read our digits.",
]
MEETING = f"""Grad A: {LOGISTICS[0]} {LOGISTICS[1]}
Professor B: Yes, {LOGISTICS[2][0].lower()}{LOGISTICS[2][1:]}
Grad A: {LOGISTICS[3]}
Grad A: {LOGISTICS[4]}
Grad A: Four two zero zero one seven.
Professor B: OK, so the first thing is the new recognizer for the far-field channels.
PhD C: I trained it on the Aurora data and the error rate dropped from six percent to four percent.
Professor B: That is a big gain, but we should check it on the close-talking data as well.
PhD C: I will run the close-talking test this week and send the numbers on Friday.
Grad A: {LOGISTICS[5]}
PhD D: Sorry. The transcribers finished the first twenty meetings and the rest will be done by March.
Professor B: Good, then we can start the forced alignment in April.
Grad A: {LOGISTICS[6]}
PhD D: The schedule has the alignment in April and the release of the corpus in June.
Professor B: {LOGISTICS[7]}
"""


@pytest.mark.parametrize(
    "sentence",
    [
        "Turning off the microphone made it crash.",
        "We're on the same page about the budget.",
        "We should read our digits before the review of the noise results.",
        "Let me share my screen to show the error rates.",
        "The lapel mike picks up other people's speech.",
    ],
)
def test_talk_about_the_kit_or_with_a_matter_is_not_logistics(sentence: str) -> None:
    assert not is_phatic(sentence)


def test_a_meetings_logistics_are_no_candidates() -> None:
    picked = [u.body for u in units_from_text(MEETING, "conversation") if u.candidate]
    assert picked, picked
    assert not any(line.rstrip("?.") in body for body in picked for line in LOGISTICS if len(line.split()) >= 5)
    assert any("forced alignment" in body for body in picked), picked


def test_a_meetings_summary_and_facets_hold_no_logistics(tmp_path: Path) -> None:
    src = tmp_path / "meetings"
    src.mkdir()
    (src / "meeting.txt").write_text(MEETING, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(
        main, ["run", str(src), "--out", str(out), "--no-index", "--json", "--thresholds", "20,30,40,15000"]
    )
    assert r.exit_code == 0, r.output
    final = (out / "meeting.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "task:" in final, final  # the meeting's real task is still a facet
    for line in LOGISTICS:
        assert line.rstrip("?.") not in final, final


def test_a_question_about_what_something_runs_on_is_no_logistics() -> None:
    # "Is this on Windows?" asks about the software; "Is it on?" asks about the mic (review).
    assert not is_phatic("Is this on Windows or Linux?")
    assert not is_phatic("Okay, it's on Slack now.")
    assert is_phatic("Is it on?")


def test_a_sound_check_is_logistics_and_a_count_in_a_sentence_is_not() -> None:
    # A mic check counted into the kit had come into a meeting's final as an answer (regression reader).
    assert is_phatic("OK, yeah, channel B, one two three four five.")
    assert is_phatic("Testing, one, two, three.")
    assert not is_phatic("I counted one, two, three errors in the log.")
