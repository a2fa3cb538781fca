"""Italian "pag."/"pagg."/"n." before a number and French "Dr." before a name end no sentence: "Il contratto, vedi
art. 5 a pag. 7, parla chiaro." and "Ce matin, nous avons vu le Dr. Leroy à l'hôpital." had been cut in two."""

from __future__ import annotations

import pytest

from batchsum.text import split_sentences


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Il contratto, vedi art. 5 a pag. 7, parla chiaro.", "it"),
        ("Le regole sono alle pagg. 12-14 del manuale.", "it"),
        ("Abito in via Roma n. 5 da tre anni.", "it"),
        ("Ce matin, nous avons vu le Dr. Leroy à l'hôpital.", "fr"),
    ],
)
def test_a_short_form_ends_no_sentence(text: str, language: str) -> None:
    assert len(split_sentences(text, language)) == 1


def test_sentences_around_short_forms_still_end() -> None:
    text = "Vedi il capitolo a pag. 7 del libro. Poi siamo usciti a cena."
    assert [text[s.start : s.end].strip() for s in split_sentences(text, "it")] == [
        "Vedi il capitolo a pag. 7 del libro.",
        "Poi siamo usciti a cena.",
    ]
