"""A sentence a PDF's page break cuts ("... morally responsible for what she" | footer, page number, running
header | "did. Many philosophers ...") is read whole: both halves had been lost to the summary."""

from __future__ import annotations

from batchsum.backends.units import units_from_text

HEADER = "PHIL 210 Course Reader                          Week 5: Free Will"
FOOTER = "Copyright 2026 University Press. For enrolled students only."
PARAGRAPHS = [
    "Compatibilism is the view that free will and determinism are compatible. On this view an action is\n"
    "free when it flows from the agent's own desires and is not the product of coercion.",
    "The consequence argument states that if determinism is true, then our acts are the consequences of\n"
    "the laws of nature. Frankfurt cases describe an agent who could not have done otherwise but who\n"
    "nonetheless seems to be morally responsible for what she",
    "did. Many philosophers conclude that moral responsibility does not require the ability to do\n"
    "otherwise. The debate remains one of the most active in contemporary metaphysics.",
    "Libertarians hold that free will requires indeterminism and that agents are the sources of their\n"
    "choices, a view defended at length in the readings for next week.",
]


FILLER = [
    f"Reading {n} of the course adds a case of its own, discussed in seminar group {n} on the Friday after it,\n"
    f"with questions {n}a and {n}b set for the essay that closes the unit."
    for n in range(1, 5)
]


def _pages(paragraphs: list[str]) -> str:
    """``paragraphs`` a page each, among pages of other text, every page under a running header and over a
    footer (running headers are told by their repeats)."""
    pages = [*FILLER[:2], *paragraphs, *FILLER[2:]]
    return "\n".join(f"{HEADER}\n\n{p}\n\n{' ' * 34}{n}\n{FOOTER}\n" for n, p in enumerate(pages, 1))


def test_a_sentence_cut_by_a_page_break_is_read_whole() -> None:
    texts = [u.text for u in units_from_text(_pages(PARAGRAPHS), "document")]
    assert any("morally responsible for what she did." in t for t in texts), texts
    assert not any(t.startswith("did.") for t in texts)


def test_paragraphs_that_end_their_sentences_stay_apart() -> None:
    texts = [u.text for u in units_from_text(_pages([PARAGRAPHS[0], PARAGRAPHS[3]]), "document")]
    assert not any("coercion. Libertarians" in t for t in texts)
