"""A legal text and a case team's notes read as written: a citation's courts and reporters ("Cal. Civ. Code",
"(9th Cir. 1999)", "Chen Dep. 22:4") end no sentence (a memo's summary had read "... supply agreement. 1999)
held that ..."), nor does a company's "Inc." before its defined term; a meeting note's roll call is no
summary sentence."""

from __future__ import annotations

from batchsum.backends.noise import is_boilerplate
from batchsum.text import split_sentences

MEMO = (
    "Cal. Civ. Code § 1636 requires that a contract be read to give effect to the parties' intent. "
    "Smith v. Jones, 123 F.3d 456, 461 (9th Cir. 1999) held that a notice defect is excused. "
    "See Chen Dep. 22:4-19. The case was filed in the N.D. Cal. court in 2021. "
    "They flew to Washington, D.C. Then they met the lawyers."
)


def test_citations_end_no_sentence() -> None:
    pieces = [MEMO[s.start : s.end] for s in split_sentences(MEMO)]
    assert pieces[:4] == [
        "Cal. Civ. Code § 1636 requires that a contract be read to give effect to the parties' intent.",
        "Smith v. Jones, 123 F.3d 456, 461 (9th Cir. 1999) held that a notice defect is excused.",
        "See Chen Dep. 22:4-19.",
        "The case was filed in the N.D. Cal. court in 2021.",
    ]
    assert pieces[-1] == "Then they met the lawyers."  # "D.C." still ends a sentence before a capital


def test_a_company_name_before_its_defined_term_goes_on() -> None:
    text = 'This Agreement is made between Harbor Foods, Inc. ("Harbor") and Pacific Pallet. It runs a year.'
    pieces = [text[s.start : s.end] for s in split_sentences(text)]
    assert pieces == [
        'This Agreement is made between Harbor Foods, Inc. ("Harbor") and Pacific Pallet.',
        "It runs a year.",
    ]
    assert len(split_sentences("We sell apples, pears etc. The rest is fine.")) == 2  # still a sentence's end


def test_a_roll_call_is_no_summary_sentence() -> None:
    assert is_boilerplate("Present: Ana Diaz, Maria Alvarez, James Okafor")
    assert is_boilerplate("Attendees: Dana, Marco, Priya.")
    assert not is_boilerplate("Maria Alvarez confirmed that she sent the termination letter on March 10.")
    assert not is_boilerplate("The present situation: we wait for the court.")
