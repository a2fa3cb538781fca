"""A text's first line, alone and unpunctuated over a sentence of its own, is its title, not a sentence's start."""

from __future__ import annotations

from batchsum.backends.units import units_from_text

INTERVIEW = (
    "Oral history interview with Walter Kim, retired longshoreman\n"
    "Recorded 2 February 2026, Tacoma. Interviewer: Jo Park.\n\n"
    "Walter Kim worked the night shift at Pier 7 for twenty years. He heard about the strike from the foreman.\n"
)


def _sentences(text: str) -> list[str]:
    return [u.text for u in units_from_text(text, "document")]


def test_the_first_line_is_a_title_not_glued_to_the_next_sentence() -> None:
    sents = _sentences(INTERVIEW)
    assert not any("longshoreman" in s for s in sents)
    assert any(s.startswith("Recorded 2 February 2026") for s in sents)


def test_a_title_over_a_wrapped_paragraph() -> None:
    text = (
        "Notes from the harbour meeting with the union\n"
        "The union asked for a second hiring hall and the port agreed to look at the\n"
        "numbers before the end of the month, when the new contracts are signed by\n"
        "both sides.\n"
    )
    assert not any("union The union" in s for s in _sentences(text))


def test_hard_wrapped_prose_is_no_title() -> None:
    # A name runs on across the wrap; a line ends on a preposition; verse opens every line with a capital.
    for text in (
        "Produced by Mary Glenn Krause and the Online Distributed\nProofreading Team at the archive.\n",
        "Produced by Laura Natal Rodriguez and Marc Hooghe at\nFree Literature in the spring.\n",
        "I walked along the harbour wall in the rain with my old\nFriend from school, and we talked of the strike\n"
        "and the long winter that came after it.\n",
        "Love was all a thin illusion\nJoy, but the desert's flying stream\nAnd glancing back on long delusion\n",
        "Love was all a thin illusion\n     Joy, but the desert's flying stream.\n",
    ):
        first = text.split("\n")[0]
        assert any(first in s and len(s) > len(first) for s in _sentences(text)), text


def test_only_the_first_line_counts() -> None:
    text = (
        "The day began early.\n\n"
        "Oral history interview with Walter Kim, retired longshoreman\n"
        "Recorded 2 February 2026, Tacoma.\n"
    )
    assert any("longshoreman Recorded" in s for s in _sentences(text))
