"""German writes an ordinal as digits and a period ("den 25. Hochzeitstag", "Omas 90. Geburtstag"): it ended
the sentence there, so a month digest line read "Heute feierten wir Omas 90." and a search snippet began
"Geburtstag im Gasthaus". A sentence that ends on a number and goes on with a function word ("Ich war 25.
Dann ging ich.") still ends there, and so does every other language's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.text import split_sentences

DAYS = {
    "2024-05-03.md": "Heute war ich mit Lena am See. Das Wasser war noch eiskalt. Danach gab es Kuchen im Café.",
    "2024-05-24.md": "Heute feierten wir Omas 90. Geburtstag im Gasthaus zur Linde mit der ganzen Familie. "
    "Onkel Peter kam sogar aus Kanada. Es gab Schweinebraten und Knödel.",
}


def _texts(text: str, language: str) -> list[str]:
    return [s.text for s in split_sentences(text, language)]


@pytest.mark.parametrize(
    ("text", "ordinal"),
    [
        ("Wir feierten den 25. Hochzeitstag. Schön war es.", "25. Hochzeitstag"),
        ("Am 12. Juni bekam Anne zum 13. Geburtstag ein Tagebuch. Sie schrieb sofort.", "13. Geburtstag"),
        ("Er wohnte im 19. Bezirk. Dort war es ruhig.", "19. Bezirk"),
        ("Am 16. Junius. Wie froh bin ich.", "16. Junius"),
        ("Heute feierten wir Omas 90. Geburtstag. Es gab Kuchen.", "90. Geburtstag"),
        ("Das war schon sein 3. Versuch. Er gab nicht auf.", "3. Versuch"),
        ("Sie kamen zur 14. Secessions-Ausstellung. Dort war es voll.", "14. Secessions-Ausstellung"),
        ("Das war kein 2. Versuch, sondern ein Fehler. Dann gingen wir.", "2. Versuch"),
    ],
)
def test_an_ordinal_before_a_noun_ends_no_german_sentence(text: str, ordinal: str) -> None:
    got = _texts(text, "de")
    assert len(got) == 2, got
    assert ordinal in got[0]


@pytest.mark.parametrize(
    "text",
    [
        "Ich war 25. Dann ging ich nach Hause.",  # a function word opens the next sentence
        "Sie war damals 30. Heute lebt sie in Berlin und ist heute glücklich.",  # written lower case too
        "Das war im Jahr 1704. Leibniz kam später.",  # a year, not an ordinal
        # A capitalised adverb opens the next sentence after a count: no determiner before the number
        # makes it an ordinal (review s8 cr1).
        "Der Bus kam um 8. Leider war er voll.",
        "Ich zählte bis 10. Danach schlief ich ein.",
        "Sie wurde 30. Morgen feiern wir.",
        "Heute wurde Lena 5. Gestern war sie noch 4.",
        "Er lief Platz 3. Trotzdem war er froh.",
        "Wir waren 12. Insgesamt kamen mehr als erwartet.",
        "Wir wohnten im Haus 5. Leider war es dort laut.",  # a noun after its article is no genitive
    ],
)
def test_a_number_that_ends_a_german_sentence_still_ends_it(text: str) -> None:
    assert len(_texts(text, "de")) == 2


@pytest.mark.parametrize("language", ["en", "da", "cs"])
def test_other_languages_still_end_a_sentence_on_a_number_before_a_capital(language: str) -> None:
    assert len(_texts("We were 25. Peter came late.", language)) == 2


def test_a_german_month_digest_and_search_show_the_ordinals_sentence_whole(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in DAYS.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--type", "journal", "--out", str(out), "-q"])
    assert got.exit_code == 0, got.output
    month = (out / "digests" / "2024" / "2024-05.md").read_text(encoding="utf-8")
    assert not re.search(r"Omas 90\.(?!\s*Geburtstag)", month), month
    found = CliRunner().invoke(main, ["search", "Gasthaus", "--out", str(out)])
    assert found.exit_code == 0, found.output
    assert "Omas 90. Geburtstag im Gasthaus" in found.output
    assert not re.search(r"^\s*Geburtstag", found.output, re.M), found.output
