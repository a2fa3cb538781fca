"""A month's (and a year's) digest puts each picked sentence under the day of the entry it comes from: also
a sentence that closes a quotation, one the summarizer respaced, and the same words written on two days;
a day's label stands before a sentence, never inside one."""

from __future__ import annotations

import re

import pytest

from batchsum.digest_pages import day_labelled, digest_body
from batchsum.periods import FileFacts, Period

MONTH = Period("month", "2024-06")
LABEL = re.compile(r"\*\*[^*]+\*\* ")


def _facts(days: list[int], language: str) -> list[FileFacts]:
    return [FileFacts(f"j/2024-06-{d:02}.md", f"k{d}", f"2024-06-{d:02}", "", 20, "journal", language) for d in days]


def _paragraphs(body: str) -> list[tuple[str, str]]:
    """Each paragraph as (its label, its words)."""
    out = []
    for paragraph in body.split("\n\n"):
        label = LABEL.match(paragraph)
        assert label is not None, paragraph  # every paragraph opens with its day
        out.append((label.group(0).strip(), paragraph[label.end() :]))
    return out


# (language, an entry's last sentence closing a quotation, the labels of the 9th and the 16th)
QUOTED = [
    ("de", "Sie sagte: „Die Stadt ist im Winter ehrlicher.“", ("**9. Juni**", "**16. Juni**")),
    ("de", "Sie sagte: »Die Stadt ist im Winter ehrlicher.«", ("**9. Juni**", "**16. Juni**")),
    ("fr", "Il m'a dit : « Il faut écrire chaque jour ! »", ("**9 juin**", "**16 juin**")),
    ("en", 'She said: "The city is more honest in winter."', ("**9 June.**", "**16 June.**")),
    ("en", "She said: “The city is more honest in winter.”", ("**9 June.**", "**16 June.**")),
]


@pytest.mark.parametrize(("language", "quoted", "labels"), QUOTED)
def test_a_sentence_that_closes_a_quotation_stays_under_its_own_day(
    language: str, quoted: str, labels: tuple[str, str]
) -> None:
    parts = [
        f"Heute war ich mit Jana im Tiergarten. {quoted}",
        "Die Projektleiterin, Frau Özdemir, hat das Budget gekürzt. Ich bin erst um 21 Uhr heimgekommen.",
    ]
    # The summarizer's picks run on in one paragraph: the quotation's end, then the next day's first sentence.
    text = f"{quoted} Die Projektleiterin, Frau Özdemir, hat das Budget gekürzt."
    body = digest_body(MONTH, text, parts, _facts([9, 16], language))
    assert _paragraphs(body) == [
        (labels[0], quoted),
        (labels[1], "Die Projektleiterin, Frau Özdemir, hat das Budget gekürzt."),
    ]


def test_an_opening_mark_after_a_stop_stays_with_the_sentence_it_opens() -> None:
    parts = ["Il pleuvait. « Viens vite » m'a dit Claire.", "Nous avons dîné chez Paul."]
    text = "Il pleuvait. « Viens vite » m'a dit Claire. Nous avons dîné chez Paul."
    body = digest_body(MONTH, text, parts, _facts([2, 5], "fr"))
    assert _paragraphs(body) == [
        ("**2 juin**", "Il pleuvait. « Viens vite » m'a dit Claire."),
        ("**5 juin**", "Nous avons dîné chez Paul."),
    ]


def test_a_sentence_the_summarizer_respaced_is_still_its_days() -> None:
    # "10 %" in the entry, "10%" in the summary: the sentence is the 16th's, not an orphan of the 9th.
    parts = ["Heute war ich mit Jana im Tiergarten.", "Die Projektleiterin hat das Budget um 10 % gekürzt."]
    text = "Heute war ich mit Jana im Tiergarten. Die Projektleiterin hat das Budget um 10% gekürzt."
    body = digest_body(MONTH, text, parts, _facts([9, 16], "de"))
    assert _paragraphs(body) == [
        ("**9. Juni**", "Heute war ich mit Jana im Tiergarten."),
        ("**16. Juni**", "Die Projektleiterin hat das Budget um 10% gekürzt."),
    ]


def test_the_same_words_on_two_days_are_each_days_own() -> None:
    parts = ["Müde. Kopfweh. Früh ins Bett.", "Müde. Kopfweh. Früh ins Bett.", "Regen. Kino mit Lea."]
    text = "\n\n".join(parts)  # a month short enough is quoted whole
    body = digest_body(MONTH, text, parts, _facts([5, 6, 8], "de"))
    assert _paragraphs(body) == [
        ("**5. Juni**", "Müde. Kopfweh. Früh ins Bett."),
        ("**6. Juni**", "Müde. Kopfweh. Früh ins Bett."),
        ("**8. Juni**", "Regen. Kino mit Lea."),
    ]


def test_a_sentence_an_entry_says_twice_stays_with_it() -> None:
    # The 5th says "Müde." twice, the 6th once: the 5th's second "Müde." is still the 5th's.
    parts = ["Müde. Viel Arbeit im Büro. Müde.", "Müde. Regen."]
    text = "Müde. Viel Arbeit im Büro. Müde. Regen."
    body = digest_body(MONTH, text, parts, _facts([5, 6], "de"))
    assert _paragraphs(body) == [("**5. Juni**", "Müde. Viel Arbeit im Büro. Müde."), ("**6. Juni**", "Regen.")]


def test_a_years_day_label_is_never_inside_a_sentence() -> None:
    days = [
        "**9. Februar** Sie sagte: „Die Stadt ist im Winter ehrlicher.“",
        "**14. Februar** Die Projektleiterin, Fr. Özdemir, hat das Budget um ca. 10 % gekürzt.",
        "**21. Februar** Der Chef war um ca. 9 Uhr im Büro.",
    ]
    text = (
        "Sie sagte: „Die Stadt ist im Winter ehrlicher.“ "
        "Die Projektleiterin, Fr. Özdemir, hat das Budget um ca. 10% gekürzt."
    )
    out = day_labelled(text, days)
    assert out == (
        "**9. Februar** Sie sagte: „Die Stadt ist im Winter ehrlicher.“ "
        "**14. Februar** Die Projektleiterin, Fr. Özdemir, hat das Budget um ca. 10% gekürzt."
    )
