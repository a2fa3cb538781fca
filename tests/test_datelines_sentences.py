"""A dateline is a label of its entry, never one of its sentences: also one that is its paragraph's first
sentence, the entry's words after it on the same line ("Lisbonne, le 11 mai 2024. Nous avons ...")."""

from __future__ import annotations

import pytest

from batchsum.backends.units import units_from_text
from batchsum.datelines import dateline, is_dateline


@pytest.mark.parametrize(
    "sentence",
    [
        "Lisbonne, le 11 mai 2024.",
        "Paris, le 3 mars 1850.",
        "Berlin, den 4. Mai 2024.",
        "Trient, den 10. September, abends.",
        "Lisboa, 18 de mayo de 2024.",
        "Москва, 5 мая 1890 г.",
        "Saturday, March 15th 2025.",
        "_July_ 14, ABBOTSFORD.",
        "1923年9月1日。",
    ],
)
def test_a_dateline_is_one_in_every_language(sentence: str) -> None:
    assert is_dateline(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Hoy, 11 de octubre de 2025, hablé con el Sr. García sobre el viaje.",  # a date inside a sentence
        "Nous avons réservé l'hôtel et acheté les billets d'avion pour le 14 mai.",
        "Le 14 juillet, nous avons dansé sur la place.",  # a clause after the day
        "Hier, le 11 mai, nous avons dansé.",
        "Am 4. Mai war ich krank.",
        "June 18th.--A walk to the river.",  # an entry dated run-in: the sentence is its text
        "Dear Sir,",
    ],
)
def test_a_sentence_that_names_a_day_is_no_dateline(sentence: str) -> None:
    assert not is_dateline(sentence)


def test_the_run_in_dateline_of_a_paragraph_is_its_first_sentence() -> None:
    # Neither alone on its line nor run in by a dash: the paragraph's dateline is seen in its sentence.
    paragraph = "Lisbonne, le 11 mai 2024. Nous avons réservé l'hôtel dans l'Alfama et acheté les billets."
    assert dateline(paragraph) is None
    assert is_dateline(paragraph.split(". ")[0] + ".")


def test_a_dateline_sentence_is_no_summary() -> None:
    text = (
        "Lisbonne, le 11 mai 2024. Nous avons réservé l'hôtel dans l'Alfama et acheté les billets d'avion.\n\n"
        "Claire m'a conseillé de visiter le monastère des Hiéronymites et de manger des pastéis de nata."
    )
    units = units_from_text(text, "journal", language="fr")
    assert not any(u.candidate and u.text.startswith("Lisbonne, le 11 mai") for u in units)
