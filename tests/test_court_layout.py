"""A court reporter's page layout is read away when a file is read: the line-number gutter (its numbers had
been read as words, "the April 3 deadline"), a deposition's "Q."/"A." labels, and a page's furniture between
the halves of a sentence a form feed cuts. Texts without such a layout read as they are."""

from __future__ import annotations

import re
from pathlib import Path

from batchsum.backends.units import units_from_text
from batchsum.model import Document
from batchsum.readers.court_layout import across_form_feeds, qa_as_labels, without_line_numbers
from batchsum.walk import SourceRef, read_document

PAGE_14 = [
    "Q.   What happened at the meeting on March 3?",
    "A.   Mr. Patel told us the supplier would not meet the April",
    "     deadline because the Fresno warehouse had flooded.",
    "Q.   Did you respond?",
    "A.   I drafted the termination letter the next week, and we",
    "     sent it by certified mail on March 10, 2021.",
    "Q.   Did anyone else attend the meeting?",
    "A.   Ms. Rivera attended for part of it and took notes on her",
]
PAGE_15 = [
    "     laptop, which she later e-mailed to the whole team.",
    "Q.   What did the notes say about the delivery schedule?",
    "A.   They listed a revised schedule with the first pallets",
    "     arriving on April 20 and the rest by the end of May.",
    "",
    "Q.   Who signed the quality reports?",
    "A.   Ms. Chen signed each of them.",
]
HEARING = [
    "     THE COURT: Good morning. We are here on plaintiff's",
    "motion to compel production of the Fresno warehouse records.",
    "Ms. Diaz, it is your motion.",
    "     MS. DIAZ: Thank you, Your Honor. Defendant has produced",
    "only 212 pages in response to forty-one requests.",
    "     THE COURT: Mr. Jones, why is the March 3 meeting",
    "privileged? There was no lawyer in the room.",
    "     MR. JONES: Your Honor, in-house counsel was copied on the",
    "follow-up e-mails.",
    "     THE COURT: The motion to compel is granted.",
]


def _numbered(lines: list[str], first: int = 1) -> str:
    """``lines`` with a court reporter's gutter: the line's number right-set in two columns, then spacing."""
    return "\n".join(f"{n:2d}   {line}".rstrip() for n, line in enumerate(lines, first))


def _read(tmp_path: Path, name: str, text: str) -> Document:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_document(SourceRef(path, name, tmp_path))


def test_a_transcripts_line_numbers_are_no_words(tmp_path: Path) -> None:
    pages = f"{' ' * 50}Page 14\n{_numbered(PAGE_14)}\n\f{' ' * 50}Page 15\n{_numbered(PAGE_15)}\n"
    doc = _read(tmp_path, "depo_excerpt.txt", pages)
    assert not re.search(r"^\s*\d", doc.text, re.M), doc.text  # no line opens with its number any more
    assert "Page 1" not in doc.text
    assert "the April deadline" in " ".join(doc.text.split())
    assert doc.content_type == "conversation", doc.type_reason
    said = [u.text for u in units_from_text(doc.text, doc.content_type)]
    # The answer a page break cuts is read whole, its speaker kept.
    assert any("took notes on her laptop, which she" in t and t.startswith("A:") for t in said), said


def test_a_dated_hearing_transcript_is_a_conversation(tmp_path: Path) -> None:
    doc = _read(tmp_path, "2021-07-20_hearing.txt", _numbered(HEARING, first=8) + "\n")
    assert doc.content_type == "conversation", doc.type_reason
    assert "\nmotion to compel" in doc.text and "THE COURT: Good morning" in doc.text  # no number, no indent


def test_numbered_texts_that_are_no_gutter_read_as_they_are(tmp_path: Path) -> None:
    shopping = "\n".join(
        f"{n}. {item}"
        for n, item in enumerate("Buy milk,Call Ana,Pay rent,Fix bike,Book hotel,Email Tom".split(","), 1)
    )
    table = "\n".join(
        f"{n:2d}   {fruit:<10}{n * 40:>6}{n * 7:>6}"
        for n, fruit in enumerate(["Apples", "Pears", "Plums", "Figs", "Kiwis", "Limes"], 1)
    )
    log = "\n".join(f"{n:3d}  12:00:{n:02d}  copied {n * 10} files" for n in range(1, 41))
    poem = "\n".join(
        f"{'5  ' if n == 5 else '10 ' if n == 10 else '   '}{line}"
        for n, line in enumerate(
            ["Whose woods these are I think I know.", "His house is in the village though;"] * 5, 1
        )
    )
    for name, text in [("list.md", shopping), ("table.txt", table), ("log.txt", log), ("poem.txt", poem)]:
        assert _read(tmp_path, name, text + "\n").text == text + "\n", name
        assert without_line_numbers(text) is text


def test_a_depositions_q_and_a_are_its_speakers(tmp_path: Path) -> None:
    depo = "BY MR. SMITH:\n" + "\n".join(line.strip() for line in PAGE_14 if not line.startswith(" "))
    doc = _read(tmp_path, "depo_plain.txt", depo + "\n")
    assert doc.content_type == "conversation", doc.type_reason
    said = [u.text for u in units_from_text(doc.text, doc.content_type)]
    assert any(t.startswith("Q: Did you respond") for t in said) and any(t.startswith("A: I drafted") for t in said)
    assert "BY MR. SMITH:" in doc.text


def test_an_initial_or_an_outlines_letter_is_no_speaker() -> None:
    initials = "A. Smith said the report was late.\nQ. Jones agreed with him.\nA. Smith left at noon."
    outline = "A. Introduction\nB. Methods\nC. Results\nQ. Questions from the floor\nA. Appendix\nQ. More questions"
    assert qa_as_labels(initials) is initials
    assert qa_as_labels(outline) is outline


def test_a_sentence_a_form_feed_cuts_is_read_whole(tmp_path: Path) -> None:
    cut = (
        "The supplier raised the flood at the meeting on March 3. On March 10 Harbor Foods drafted the\n"
        "termination letter, and Ms. Alvarez sent\n\n"
        f"{' ' * 25}HARBOR FOODS v. PACIFIC PALLET\n\f{' ' * 40}Page 7\n\n"
        "it by certified mail the same afternoon. Pacific Pallet did not respond to the letter.\n"
    )
    doc = _read(tmp_path, "statement.txt", cut)
    said = [u.text for u in units_from_text(doc.text, doc.content_type)]
    assert any("Ms. Alvarez sent it by certified mail" in t for t in said), said
    assert "Page 7" not in doc.text
    ended = "The letter went out that afternoon.\n\f\nCHAPTER TWO\n\nthe reply came in April.\n"
    assert across_form_feeds(ended) is ended  # a page's last sentence ends it: its furniture stays


def test_a_heading_opening_the_next_page_stays() -> None:
    text = "the parties met again on\n\f\nSettlement Talks\n\nthe first of May.\n"
    assert "Settlement Talks" in across_form_feeds(text)
