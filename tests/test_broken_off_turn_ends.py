"""A transcript turn broken off at an interruption point, with only fillers and markers after it ("I must say
that it {disfmarker} Hmm ."), ends where it broke off, as a turn ending on the marker does: the turn's stop does
not make it a whole sentence, and it is no candidate for a summary nor a facet."""

from __future__ import annotations

from batchsum.backends.units import units_from_text
from batchsum.cleanup import clean_transcript
from batchsum.facets import extract_facets

MEETING = (
    "Project Manager: I must say that it {disfmarker} Hmm .\n"
    "Marketing: We will decide on the power button for the remote {disfmarker} um {vocalsound} .\n"
    "Industrial Designer: The case will be made of rubber so it does not break when it falls .\n"
    "User Interface: We could add a light to the buttons {disfmarker} Yeah , that would help in the dark .\n"
    "Marketing: Fifty percent of the users say they only {disfmarker}\n"
    "Project Manager: The next meeting is on Tuesday and we will look at the prototype then .\n"
    "Marketing: The users asked for a remote that is easy to find when it is lost .\n"
    "Industrial Designer: A rubber case in a bright colour would be easy to find on a sofa .\n"
)


def test_a_turn_broken_off_before_fillers_ends_as_one_broken_off_on_the_marker() -> None:
    lines = clean_transcript(MEETING).splitlines()
    # The same end as the turn that stops on its marker: no sentence's stop.
    assert lines[4].endswith("say they only"), lines
    assert lines[0].endswith("say that it") and lines[1].endswith("for the remote"), lines
    # Words after the marker that are no fillers are the repair: those turns end as said.
    assert lines[2].endswith("falls.") and lines[3].endswith("in the dark."), lines


def test_a_broken_off_turn_is_no_candidate_nor_a_decision() -> None:
    picked = [u.text for u in units_from_text(MEETING, "conversation") if u.candidate]
    assert not any("say that it" in t or "for the remote" in t for t in picked), picked
    assert any("made of rubber" in t for t in picked), picked
    decisions = [d.text for d in extract_facets(MEETING).decisions]
    assert not any("power button" in d for d in decisions), decisions
