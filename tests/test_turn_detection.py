"""A file is a conversation when most of its lines are turns as the summarizer reads them
(speaker_labels.parse_speaker_line): Day One's "Date:", "Location:" and "Weather:" entry headers are no
speakers, and a committee's "The Acting Chair (Mr. Bruce Stanton (Simcoe North, CPC)):" is one."""

from __future__ import annotations

from pathlib import Path

from batchsum.speaker_labels import parse_speaker_line
from batchsum.walk import SourceRef, read_document

DAY_ONE = "".join(
    f"Date:\t{day} January 2018 at 13:05:00 GMT\nLocation:\tBristol, United Kingdom\nWeather:\t9°C Cloudy\n\n"
    f"Walked up to the bridge with Anna on day {day} and made a list of places to visit this year.\n\n\n"
    for day in (2, 9, 16, 23)
)
COMMITTEE = (
    "The Acting Chair (Mr. Bruce Stanton (Simcoe North, CPC)): I call this meeting to order.\n"
    "Right Hon. Justin Trudeau (Papineau, Lib.): Thank you, Mr. Chair. I rise today to speak.\n"
    "The Acting Chair (Mr. Bruce Stanton): The honourable Leader of the Opposition.\n"
    "Hon. Andrew Scheer (Leader of the Opposition): Thank you very much, Mr. Chair.\n"
    "The Acting Chair (Mr. Bruce Stanton): The honourable member for Burnaby South.\n"
)


def _read(tmp_path: Path, name: str, text: str) -> tuple[str, str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    doc = read_document(SourceRef(tmp_path / name, name, tmp_path))
    return doc.content_type, doc.type_reason


def test_day_one_headers_are_no_turns(tmp_path: Path) -> None:
    assert _read(tmp_path, "Journal.md", DAY_ONE)[0] == "journal"


def test_a_committee_with_constituencies_in_its_labels_is_a_conversation(tmp_path: Path) -> None:
    kind, reason = _read(tmp_path, "committee.txt", COMMITTEE)
    assert kind == "conversation" and reason.startswith("speaker turns"), reason


NOTES = (
    "# BIO110 lec 3 notes\n\n"
    "* lupin = protein rich grain crop, used for feed + human consumption\n"
    "* narrow-leafed lupin (NLL) -> good for crop rotation b/c N fixation\n"
    "* key eq: growth rate r = ln(N_t/N_0) / t\n"
    "* genome ~ 1.15 Gb, diploid, 2n=40\n"
    "* gene families: conglutins (alpha, beta, gamma, delta) -> seed storage proteins\n"
    "* exam: final in dec, pset 3 due fri\n"
    "* Q: why is NLL low in alkaloids? -> domestication\n"
)


def test_labelled_list_items_are_no_turns(tmp_path: Path) -> None:
    """A bulleted "* key eq: ..." is an item's label, as "- key eq: ..." is (its "*" had been read as a bold
    mark): lecture notes were a conversation of "key eq", "gene families", "exam" and "Q"."""
    assert _read(tmp_path, "bio-notes.md", NOTES)[0] == "document"
    assert parse_speaker_line("* key eq: growth rate")[0] is None
    assert parse_speaker_line("**Ana:** I'll send it")[0] == "Ana"  # a bold label stays one
