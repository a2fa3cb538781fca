"""An e-mail's body is one turn of its writer: its signature (after RFC 3676's "-- " line), its salutation
and its closing are no words of the message, and the rest of it is left as it was written."""

from __future__ import annotations

from batchsum.readers.eml import render_eml
from batchsum.text import conversation_lines

HEADER = (
    "From: Ruth Olsen <ruth.olsen@example.com>\n"
    "To: Tom Reyes <tom@tidelines.example>\n"
    "Subject: Minutes\n"
    "Date: Fri, 13 Mar 2026 08:00:00 -0800\n\n"
)


def _turns(body: str) -> list[tuple[str | None, str]]:
    return conversation_lines(render_eml((HEADER + body).encode("utf-8")))


def test_salutation_closing_name_and_signature_are_left_out_and_the_body_is_one_turn() -> None:
    body = (
        "Dear Tom,\n\nI found the old minutes in my basement.\n\nThey cover 1958 to 1971.\n\n"
        "Ruth\n\n-- \nRuth Olsen, secretary\nTel. 360 555 0199\n"
    )
    assert _turns(body) == [("Ruth Olsen", "I found the old minutes in my basement. They cover 1958 to 1971.")]


def test_a_valediction_over_the_name_and_a_separator_without_its_space_are_left_out() -> None:
    body = "Hi all,\n\nThe boat is back in the water.\nThanks,\nRuth\n--\nSent from my phone\n"
    assert _turns(body) == [("Ruth Olsen", "The boat is back in the water.")]
    # A closing over the name signed, though the sentence above it has no stop.
    assert _turns("Please send it by Friday\nThanks,\nRuth Olsen\n") == [("Ruth Olsen", "Please send it by Friday")]


def test_a_letters_formal_closings_are_left_out() -> None:
    for closing in ("Very truly yours,", "Sincerely yours,", "Respectfully submitted,", "Cordially yours,"):
        body = f"Dear Mr. Jones,\n\nPlease produce the inspection records by March 25.\n\n{closing}\nRuth Olsen\n"
        assert _turns(body) == [("Ruth Olsen", "Please produce the inspection records by March 25.")], closing


def test_words_that_only_look_like_a_greeting_or_closing_stay() -> None:
    """The negative case: a greeting that is a sentence, a thanks that is a sentence, a name inside one."""
    body = (
        "Hi Tom, the boat is ready.\n\nI asked about the crane and\nthanks\nto you we got it.\n\n"
        "Thanks for the help with the boat, I'll tell Ruth\n"
    )
    (turn,) = _turns(body)
    assert turn[1].startswith("Hi Tom, the boat is ready.")
    assert "and thanks to you we got it." in turn[1]
    assert turn[1].endswith("Thanks for the help with the boat, I'll tell Ruth")


def test_a_message_of_a_thanks_alone_keeps_it() -> None:
    assert _turns("Thanks!\nRuth\n") == [("Ruth Olsen", "Thanks! Ruth")]


def test_a_list_keeps_its_items_line_by_line() -> None:
    text = render_eml((HEADER + "Hi Tom,\n\nWe need:\n\n- the ledger\n- the photographs\n\nBest,\nRuth\n").encode())
    assert text.endswith("We need:\n\n- the ledger\n- the photographs")


def test_a_quoted_reply_and_an_original_message_keep_their_writers_under_a_signature() -> None:
    body = (
        "Yes, I'll bring them on Friday.\n\nBest,\nRuth\n\n-- \nRuth Olsen, secretary\n\n"
        "On Thu, 12 Mar 2026 at 17:40, Tom Reyes <tom@tidelines.example> wrote:\n"
        "> Hi Ruth,\n>\n> Can you bring the minutes?\n>\n> Tom\n\n"
        "-----Original Message-----\nFrom: Ana Silva\nSent: Wed, 11 Mar 2026\nSubject: Minutes\n\n"
        "Hello everyone,\n\nWho has the 1971 minutes?\n\nKind regards,\nAna\n"
    )
    # In the order they were written: the original message, the quoted request, the reply above it.
    assert _turns(body) == [
        ("Ana Silva", "Who has the 1971 minutes?"),
        ("Tom Reyes", "Can you bring the minutes?"),
        ("Ruth Olsen", "Yes, I'll bring them on Friday."),
    ]
