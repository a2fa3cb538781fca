"""A printed play's "NAME. line" labels (Gutenberg's Shakespeare, Ibsen, Shaw, Plato) are its speakers, as
"NAME: line" ones are, when the whole text is laid out so; an outline's "I. Introduction", an initial's
"A. Smith", "NOTE. ..." and "CHAPTER I." are none. A screenplay's Fountain title page ("Title:", "Author:")
is its metadata, not its cast. Real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.readers.court_layout import play_as_labels
from batchsum.speaker_labels import is_turn
from tests.one_final import final_text

PLAY = (
    "# THE LIGHTHOUSE\n\n"
    "*A lighthouse kitchen. Evening. AGNES mends a net. SAMUEL enters with a lantern.*\n\n"
    "SAMUEL. The glass is falling fast. We'll have a gale before midnight.\n\n"
    "AGNES. Then the Marigold won't make harbour tonight.\n\n"
    "SAMUEL. [*Setting down the lantern.*] The Marigold will make harbour if the light is kept.\n\n"
    "[*Enter THOMAS, dripping wet.*]\n\n"
    "THOMAS. The inspector says the light is to be automated by spring and the keepers sent away.\n\n"
    "MRS. PENROSE. Sent away? After thirty-one years of keeping this light?\n\n"
    "AGNES. [*Aside.*] Then there is nothing to keep me here any longer.\n\n"
    "THOMAS. Agnes, come to Falmouth with me. My uncle has a boat and a house on the quay.\n\n"
    "AGNES. Ask me again when the Marigold is in.\n\n"
    "[*A distant ship's horn. Curtain.*]\n"
)
# Lines that open with capitals and a period in a document: no speaker among them.
OUTLINE = (
    "CHAPTER I. The harbour and its keepers\n\n"
    "I. Introduction to the survey of the Cornish lights.\n\n"
    "A. Smith wrote the first account of the lighthouse in 1820.\n\n"
    "NOTE. The figures below are from the Trinity House archive.\n\n"
    "II. Methods used to count the keepers and their families.\n\n"
    "B. Jones kept the log from 1841 until the light was automated.\n\n"
    "NOTE. Some entries are missing for the winter of 1852.\n\n"
    "III. Results of the survey, by decade and by station.\n"
)


def _final(tmp_path: Path, name: str, text: str) -> str:
    return final_text(tmp_path, name, text)


def _participants(final: str) -> set[str]:
    head = final.split("\n---\n", 1)[0]
    if "participants:" not in head:
        return set()
    listed = head.split("participants:", 1)[1].splitlines()[1:]
    return {ln[2:].strip() for ln in listed if ln.startswith("- ")}


def test_a_play_in_the_printed_dot_form_reads_as_its_colon_form(tmp_path: Path) -> None:
    names = ["SAMUEL", "AGNES", "THOMAS", "MRS. PENROSE"]
    colon_form = PLAY
    for name in names:
        colon_form = colon_form.replace(f"\n{name}. ", f"\n{name}: ")
    dotted = _final(tmp_path / "dot", "act.md", PLAY)
    coloned = _final(tmp_path / "colon", "act.md", colon_form)
    assert "content_type: conversation" in dotted, dotted
    assert _participants(dotted) == _participants(coloned) == set(names), dotted
    # The same summary: each picked line one speaker's, labelled, no two characters' lines run together.
    assert dotted.split("\n---\n", 1)[1] == coloned.split("\n---\n", 1)[1], (dotted, coloned)


def test_a_plays_stage_directions_and_speeches_keep_their_text() -> None:
    read = play_as_labels(PLAY)
    assert "SAMUEL: [*Setting down the lantern.*] The Marigold" in read
    assert "MRS. PENROSE: Sent away?" in read
    assert "[*Enter THOMAS, dripping wet.*]" in read and "# THE LIGHTHOUSE" in read


def test_outline_numbers_initials_notes_and_chapters_are_no_speakers(tmp_path: Path) -> None:
    assert play_as_labels(OUTLINE) is OUTLINE
    final = _final(tmp_path, "survey.md", OUTLINE)
    assert "content_type: conversation" not in final and not _participants(final), final
    # Inside a play they stay as they are too: only names are labels.
    mixed = play_as_labels(PLAY + "\nNOTE. The horn is offstage.\n\nCHAPTER I. Not a name.\n")
    assert "NOTE. The horn" in mixed and "CHAPTER I. Not" in mixed and "AGNES: Ask me" in mixed


TITLE_PAGE = (
    "Title: The Diner\nCredit: Written by\nAuthor: Nora Vale\nDraft date: 3 March 2026\n"
    "Contact: nora@example.com\n\n"
    "INT. DINER - NIGHT\n\nA chrome diner lit by one buzzing sign. ROSA wipes the counter.\n\n"
    "ROSA\nKitchen's closed. Coffee's not.\n\nJONAH\nCoffee, then. And the road to Millbrook.\n\n"
    "ROSA\n(pouring)\nThere is no road to Millbrook. Not since the dam was built.\n\n"
    "JONAH\nMy brother wrote to me from Millbrook last week.\n\n"
    "ROSA\nThen your brother is writing from the bottom of a lake.\n\n"
    "EXT. DINER - NIGHT\n\nJonah walks out into the rain.\n"
)


@pytest.mark.parametrize("key", ["Title", "Credit", "Author", "Authors", "Source", "Draft date", "Contact"])
def test_a_title_page_key_is_no_turn(key: str) -> None:
    assert not is_turn(f"{key}: The Diner")


def test_a_screenplays_title_page_names_no_participant(tmp_path: Path) -> None:
    final = _final(tmp_path, "diner.txt", TITLE_PAGE)
    assert _participants(final) == {"ROSA", "JONAH"}, final


def test_a_fountain_file_is_read_as_its_screenplay(tmp_path: Path) -> None:
    final = _final(tmp_path, "diner.fountain", TITLE_PAGE)
    assert _participants(final) == {"ROSA", "JONAH"}, final
