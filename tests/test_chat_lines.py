"""Chats and transcripts exported as text read as conversations: speakers kept, timestamps and the
export's own notices gone; a chat message that ends without a stop can still be summarized."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.backends.extractive import summarize_text
from batchsum.backends.units import units_from_text
from batchsum.readers.chat_lines import render_chat_lines
from batchsum.text import conversation_lines
from batchsum.tokens import get_tokenizer
from batchsum.walk import SourceRef, read_document

EXPORTS = {
    "whatsapp android": (
        "12/03/2024, 18:02 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
        "WhatsApp, can read or listen to them. Tap to learn more.\n"
        "12/03/2024, 18:02 - Ana Silva: The deadline for the budget is March 22.\n"
        "12/03/2024, 18:03 - Ben Okafor: I'll send the Northwind quote by Wednesday\n"
        "12/03/2024, 18:04 - Ben Okafor: <Media omitted>\n"
        "12/03/2024, 18:05 - Ana Silva: I will send the spreadsheet on Friday\nand also the workshop list\n"
    ),
    "whatsapp us": (
        "3/12/24, 9:14 AM - Ana Silva: The deadline for the budget is March 22.\n"
        "3/12/24, 9:15 AM - Ben Okafor: I'll send the Northwind quote by Wednesday\n"
        "3/12/24, 9:16 AM - Ana Silva: I will send the spreadsheet on Friday and also the workshop list\n"
    ),
    "whatsapp ios": (
        "\u200e[12/03/2024, 09:13:00] Messages and calls are end-to-end encrypted.\n"
        "[12/03/2024, 09:14:05] Ana Silva: The deadline for the budget is March 22.\n"
        "[12/03/2024, 09:15:40] Ben Okafor: I'll send the Northwind quote by Wednesday\n"
        "[12/03/2024, 09:16:11] Ana Silva: \u200e<attached: 00000012-PHOTO-2024-03-12-09-16-11.jpg>\n"
        "[12/03/2024, 09:16:30] Ana Silva: I will send the spreadsheet on Friday\n"
        "and also the workshop list\n"
        "[12/03/2024, 09:17:02] Ben Okafor: \u200eThis message was deleted.\n"
    ),
    "otter": (
        "Budget review - Otter.ai\nTue, Mar 12, 2024 2:05PM \u2022 6:12\n\nSUMMARY KEYWORDS\nbudget, quote\n\n"
        "SPEAKERS\nAna Silva, Ben Okafor\n\n"
        "Ana Silva  0:03\nThe deadline for the budget is March 22.\n\n"
        "Ben Okafor  0:12\nI'll send the Northwind quote by Wednesday.\n\n"
        "Ana Silva  0:20\nI will send the spreadsheet on Friday and also the workshop list.\n\n"
        "Transcribed by https://otter.ai\n"
    ),
    "zoom chat": (
        "09:14:05 From Ana Silva to Everyone:\n\tThe deadline for the budget is March 22.\n"
        "09:15:10 From Ben Okafor to Everyone:\n\tI'll send the Northwind quote by Wednesday.\n"
        '09:15:30 From Ana Silva to Everyone:\n\tReacted to "I\'ll send the Northw..." with \U0001f44d\n'
        "09:16:40 From Ana Silva to Ben Okafor (Direct Message):\n\tI will send the spreadsheet on Friday.\n"
    ),
    "zoom chat, older": (
        "09:14:05\t From  Ana Silva : The deadline for the budget is March 22.\n"
        "09:15:10\t From  Ben Okafor : I'll send the Northwind quote by Wednesday.\n"
        "09:17:02\t From  Ana Silva : I will send the spreadsheet on Friday.\n"
    ),
    "irc": (
        "[09:14] <ana> the deadline for the budget is March 22\n"
        "[09:15] * ben waves\n"
        "[09:16] <ben> I'll send the Northwind quote by Wednesday.\n"
        "[09:17] <ana> I will send the spreadsheet on Friday.\n"
    ),
    "name (time)": (
        "Ana (09:14): The deadline for the budget is March 22.\n"
        "Ben (09:16): I'll send the Northwind quote by Wednesday.\n"
        "Ana (09:17): I will send the spreadsheet on Friday.\n"
    ),
    "markdown bold": (
        "# Budget sync\n\n**Attendees:** Ana Silva, Ben Okafor\n\n"
        "**Ana:** The deadline for the budget is March 22.\n\n"
        "**Ben:** I'll send the Northwind quote by Wednesday.\n\n"
        "**Ana:** I will send the spreadsheet on Friday.\n"
    ),
}

_CLOCKS = ("18:0", "9:1", "09:1", "0:03", "0:12", "2:05")
_NOTICES = ("encrypted", "omitted", "attached", "deleted", "Otter", "SPEAKERS", "Transcribed", "Reacted", "waves")


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_export_reads_as_speaker_turns(tmp_path: Path, name: str) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(EXPORTS[name], encoding="utf-8")
    doc = read_document(SourceRef(path, "chat.txt", tmp_path))
    assert doc.content_type == "conversation", (name, doc.type_reason)
    turns = conversation_lines(doc.text)
    speakers = {who.lower() for who, _ in turns if who}
    assert {"ana", "ben"} <= {s.split()[0] for s in speakers}, turns
    assert all(who for who, said in turns if "Northwind" in said or "deadline" in said), turns
    for bad in (*_CLOCKS, *_NOTICES):
        assert bad not in doc.text, (name, bad, doc.text)
    if "workshop" in EXPORTS[name]:
        # A message's second line goes on with it.
        assert any("Friday" in said and "workshop" in said for _, said in turns), turns


@pytest.mark.parametrize(
    "text",
    [
        "Dear diary. Today was long.\n\nAna: not a chat, one quoted line.\n\nThe rest is prose, as before.\n",
        "Meeting at 09:14 went fine.\nWe talked about 12/03/2024.\nNothing else happened.\n",
        "# Notes\n\n**Important:** bring the keys.\n\nThe rest of the page is prose about the trip.\n",
    ],
)
def test_prose_is_left_alone(text: str) -> None:
    assert render_chat_lines(text) is None


def test_chat_messages_without_a_stop_are_summary_candidates() -> None:
    # In a chat most messages end without a stop; the end of a message is the end of its sentence.
    chat = "\n".join(
        [
            "Marco: Hey all. Checkout is timing out for everyone on the payments page",
            "Aisha: Looking. The p99 latency on the payments service is at twelve seconds",
            "Jun: Oh no. I shipped the new fraud-check client behind a flag at five percent",
            "Aisha: Hm. The flag dashboard says the flag is on for all traffic",
            "Jun: That was me. I'll roll the fraud-check flag back right now",
            "Marco: Thanks. Let's require two approvals for flag changes on payments",
            "Jun: Done. The flag is back to zero and checkout works again",
        ]
    )
    units = units_from_text(chat, "conversation")
    candidates = [u.text for u in units if u.candidate]
    assert sum("approvals" in t or "roll the" in t or "works again" in t for t in candidates) == 3, candidates
    summary = summarize_text(
        chat, target_tokens=60, max_tokens=60, kind="standard", content_type="conversation", tokenizer=get_tokenizer()
    )
    assert summary.strip(), summary
    assert all(": " in line for line in summary.splitlines() if line.strip()), summary


def test_spoken_transcript_still_drops_broken_off_sentences() -> None:
    # Most turns end with a stop: one that does not was cut short, and is context only.
    talk = "\n".join(
        [
            "Anna: We looked at the costs of the new case this week.",
            "Ben: The rubber case costs more than the plastic one, but it feels much better in the hand.",
            "Anna: So the landmark-iness is correlated with",
            "Ben: The plastic case is cheaper and we can print the logo on it.",
            "Anna: Then we take the plastic case for the prototype.",
        ]
    )
    units = units_from_text(talk, "conversation")
    cut = [u for u in units if "correlated with" in u.text]
    assert cut and not cut[0].candidate


def test_messages_that_mention_added_or_left_are_kept() -> None:
    """Only a line with no sender is the export's notice: "I added the slides" had been dropped as one."""
    chat = (
        "12/03/2024, 18:01 - Ana added Ben\n"
        "12/03/2024, 18:02 - Ana: I added the slides to the shared drive\n"
        "12/03/2024, 18:03 - Ben: Thanks, I left some comments on slide 4\n"
        "12/03/2024, 18:05 - Ana: Great, see you tomorrow\n"
        "12/03/2024, 18:06 - Ben: Replying to your point: yes\n"
    )
    export = render_chat_lines(chat)
    assert export is not None
    assert [said for _, said in conversation_lines(export.text)] == [
        "I added the slides to the shared drive",
        "Thanks, I left some comments on slide 4",
        "Great, see you tomorrow",
        "Replying to your point: yes",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-12 07:30 - Woke up early, went for a run.\n2024-03-12 12:15 - Lunch with Marta at the harbour.\n"
        "2024-03-13 21:00 - Finished the quarterly report at last.\n2024-03-14 08:00 - Rain all day, stayed in.\n",
        "# Ana Ribeiro\n\n**Role:** Backend engineer\n**Team:** Payments\n**Birthday:** 2 May\n**Likes:** climbing\n",
        "Breakfast (08:30): oatmeal with berries\nLunch (12:45): soup\nRun (17:00): 5 km\nDinner (19:30): fish\n",
    ],
    ids=["timed journal", "properties", "food log"],
)
def test_labelled_lines_that_nobody_says_twice_are_no_chat(text: str) -> None:
    assert render_chat_lines(text) is None


def test_notes_keep_their_headings_lists_and_bullets() -> None:
    """ "**Name:**" notes: a heading, a bold label and the list under them are nobody's words, and a
    message's bullet list stays (it had been glued to the last speaker, or dropped as IRC actions)."""
    notes = (
        "# Harbor Gas sync\n\n**Priya:** The April date works for us.\n**Marco:** Then we go with April.\n"
        "**Priya:** Here is the plan:\n* book the venue by Friday\n* send the invites\n**Dana:** Fine by me.\n\n"
        "## Action items\n\n- [ ] Priya: tell Harbor Gas about the April date by Wednesday\n"
        "- [ ] Marco: book the crane\n\n**Decisions:**\n- Go with the April date\n"
    )
    export = render_chat_lines(notes)
    assert export is not None
    assert "* book the venue by Friday" in export.text and "* send the invites" in export.text
    assert "\n\n## Action items\n- [ ] Priya: tell Harbor Gas" in export.text, export.text
    assert "\n\n**Decisions:**\n- Go with the April date" in export.text, export.text


def test_a_journal_type_reads_timestamps_as_written(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(EXPORTS["whatsapp android"], encoding="utf-8")
    doc = read_document(SourceRef(path, "chat.txt", tmp_path), "journal")
    assert doc.content_type == "journal" and "12/03/2024, 18:02 - Ana Silva:" in doc.text
