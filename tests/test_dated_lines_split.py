"""A child summary's dated line ("1786-09-08: ...") starts a sentence of its own in every language: under a
line ending a sentence it had run on into it (German is split by sentencex, which starts no sentence at a
digit), and its sentences kept the day before's date in the level above."""

from __future__ import annotations

import pytest

from batchsum.text import split_sentences

LINES = "1786-09-07: Sie versicherte nämlich, daß es gut Wetter gäbe.\n1786-09-08: Es sieht gut aus mit dem Wetter."


@pytest.mark.parametrize("language", [None, "en", "de", "fr"])
def test_a_dated_line_starts_a_sentence(language: str | None) -> None:
    assert [s.text for s in split_sentences(LINES, language)] == LINES.split("\n")
