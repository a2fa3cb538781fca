"""Every paragraph of a month's digest opens with its day: a date inside an entry's first sentence ("Hoy,
11 de octubre de 2025, hablé ...") is no label, while a paragraph that opens with its own day heading or
dateline gets no second one."""

from __future__ import annotations

from batchsum.digest_pages import digest_body
from batchsum.periods import FileFacts, Period

MONTH = Period("month", "2025-10")


def _facts(day: int, language: str) -> FileFacts:
    return FileFacts(f"j/2025-10-{day:02}.md", f"k{day}", f"2025-10-{day:02}", "", 20, "journal", language)


def test_an_entry_that_names_its_day_in_its_first_sentence_still_gets_its_label() -> None:
    parts = [
        "Heute war ich mit Jana im Tiergarten. Danach gab es Käsespätzle bei Frau Müller.",
        "Hoy, 11 de octubre de 2025, hablé con el Sr. García sobre el viaje. Al final comimos paella.",
        "Ce matin, le 20 octobre, j'ai pris un café avec M. Dupont à Lyon.",
    ]
    owners = [_facts(7, "de"), _facts(11, "es"), _facts(20, "fr")]
    text = (
        "Heute war ich mit Jana im Tiergarten. Hoy, 11 de octubre de 2025, hablé con el Sr. García sobre el viaje. "
        "Ce matin, le 20 octobre, j'ai pris un café avec M. Dupont à Lyon."
    )
    body = digest_body(MONTH, text, parts, owners)
    assert body.split("\n\n") == [
        "**7. Oktober** Heute war ich mit Jana im Tiergarten.",
        "**11 de octubre** Hoy, 11 de octubre de 2025, hablé con el Sr. García sobre el viaje.",
        "**20 octobre** Ce matin, le 20 octobre, j'ai pris un café avec M. Dupont à Lyon.",
    ]


def test_a_paragraph_that_opens_with_its_day_heading_gets_it_as_its_label() -> None:
    parts = [
        "_October_ 3.--Promises a fair day. We walked to the mill.",
        "October 5th.--A walk to the river with Tom.",
        "Berlin, le 7 octobre 2025.--Nous avons marché le long de la Spree.",
    ]
    owners = [_facts(3, "en"), _facts(5, "en"), _facts(7, "fr")]
    text = " ".join([parts[0].split(" We")[0], *parts[1:]])
    assert digest_body(MONTH, text, parts, owners).split("\n\n") == [
        "**3 October.** Promises a fair day.",
        "**5 October.** A walk to the river with Tom.",
        # A dateline a year's digest cannot read as a day: the label all the same.
        "**7 octobre** Berlin, le 7 octobre 2025.--Nous avons marché le long de la Spree.",
    ]


def test_a_day_heading_of_another_form_is_the_paragraphs_label() -> None:
    # A file dated the 2nd whose picked entry opens with the 3rd's heading: the 3rd's label, in its place
    # (it had read "**2 June.** _June_ 3, [_Abbotsford_].--This ...").
    heads = [
        ("_June_ 3, [_Abbotsford_].--", "**3 June.**"),
        ("_September 25, [Edinburgh]_,--", "**25 September.**"),
        ("_October_ 11, _Tuesday_.--", "**11 October.**"),
        ("_March 20._--", "**20 March.**"),
        ("_October 19_.--", "**19 October.**"),
        ("_July_ 3--- ", "**3 July.**"),
    ]
    months = ["", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]
    for head, label in heads:
        part = f"{head}This was a very idle day at home."
        day, month = label.strip("*.").split()
        before = f"2025-{months.index(month):02d}-{int(day) - 1:02d}"  # the file is dated the day before
        owners = [FileFacts("j/x.md", "x", before, "", 20, "journal", "en")]
        assert digest_body(MONTH, part, [part], owners) == f"{label} This was a very idle day at home.", head
