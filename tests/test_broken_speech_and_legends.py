"""Broken-off pieces stay out of summaries: a self-repair's capitalised restart starts a new sentence, a
sentence cut where words went unheard ("{gap}") or a reference was stripped ("is provided as ."), and a
figure legend's key whose "Figure N." label a scrape lost ("the red spots indicate ...")."""

from __future__ import annotations

from batchsum.backends.units import units_from_text
from batchsum.cleanup import clean_transcript


def _picked(text: str, kind: str) -> list[str]:
    """The candidates' words, without a turn's speaker label."""
    return [u.text.split(": ", 1)[-1] for u in units_from_text(text, kind) if u.candidate]  # type: ignore[arg-type]


def test_a_capitalised_restart_after_a_marker_starts_a_sentence() -> None:
    text = (
        "Project Manager: So what are we going to do now is {disfmarker} Next meeting is in half an h hour .\n"
        "Marketing: We should ask Jane about the budget for the new remote control before the next meeting .\n"
        "Project Manager: Then we use {disfmarker} Jane told me the figures for the whole project .\n"
        "Grad A: So we should ask {disfmarker} Priyanka about the schedule for the recordings ."
    )
    picked = _picked(text, "conversation")
    assert not any("now Next" in t or "now is Next" in t for t in picked), picked
    assert any(t.startswith("Next meeting is in half an hour") for t in picked), picked
    # A name, one the transcript writes inside a sentence or never in lower case, is no restart: the words run
    # on as said (the start "So we should ask" had been dropped before "Priyanka").
    cleaned = clean_transcript(text)
    assert "Then we use Jane told me" in cleaned and "ask Priyanka about" in cleaned, cleaned


def test_a_restart_that_repeats_the_subject_drops_the_abandoned_start() -> None:
    text = "Project Manager: We've got {disfmarker} um we're planning to sell these remote controls for twenty Euros ."
    cleaned = clean_transcript(text)
    assert "got we're" not in cleaned, cleaned
    assert "We're planning to sell these remote controls" in cleaned, cleaned


def test_a_sentence_cut_at_an_unheard_gap_is_no_candidate() -> None:
    text = (
        "Project Manager: First we have a look at {gap} . Then we talk about the {gap} design of the remote .\n"
        "Industrial Designer: The case will be made of rubber so it does not break ."
    )
    picked = _picked(text, "conversation")
    assert not any(t.rstrip(".… ").endswith(" at") for t in picked), picked
    assert any(t.startswith("Then we talk about the design") for t in picked), picked


def test_a_sentence_cut_where_a_reference_was_stripped_is_no_candidate() -> None:
    text = (
        "We fitted the model to three time series of the network. A complete list of network topologies and "
        "associated kinetic parameters is provided as . With three time series, the method identifies the "
        "actual topology of the network."
    )
    picked = _picked(text, "document")
    assert not any(t.rstrip(". ").endswith(" as") for t in picked), picked
    assert any(t.startswith("We fitted the model") for t in picked), picked


def test_a_legends_key_is_apparatus_wherever_it_stands() -> None:
    text = (
        "Allelic histone modification differed between the hybrid and both of its parents in most genes. "
        "The red spots indicate the genes with a different modification between parents, and the blue spot "
        "represents all of the analyzed genes. Orange represents the genes with allelic modification in the "
        "hybrid; green represents the remaining genes. Error bars show the standard error of three replicates."
    )
    picked = _picked(text, "document")
    assert picked and all(t.startswith("Allelic histone") for t in picked), picked
