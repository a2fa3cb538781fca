"""A snippet's sentences in a lower-cased text (scraped papers such as SumPubMed's): each opens where its
sentence does, not mid-sentence after an earlier one's stop."""

from __future__ import annotations

from batchsum.index.snippet_sentences import sentences

CAPTION = (
    "correlation of histone modifications and ashm between the parents and the f1 hybrid. , the correlation "
    "between h3k27me3-ashm and the ase level from the gl alleles in gl × tq. the ase and ashm levels are "
    "presented as the ratio of gl expression, e.g. the gl level, to the total expression."
)


def test_a_lower_cased_text_splits_into_sentences_at_its_stops() -> None:
    got = sentences(CAPTION)
    assert got == [
        "correlation of histone modifications and ashm between the parents and the f1 hybrid.",
        "the correlation between h3k27me3-ashm and the ase level from the gl alleles in gl × tq.",
        "the ase and ashm levels are presented as the ratio of gl expression, e.g. the gl level, to the total "
        "expression.",
    ]


def test_a_capitalised_text_still_goes_on_after_a_stop_before_a_lower_case_word() -> None:
    # "Eh !" | "mon Dieu": where capitals tell a sentence's start, a lower-case word goes on with it.
    assert sentences("We met at 9 a.m. and it rained. Then we left.") == [
        "We met at 9 a.m. and it rained.",
        "Then we left.",
    ]


def test_a_heading_in_capitals_leaves_a_lower_cased_paragraph_lower_cased() -> None:
    assert sentences("BACKGROUND\neukaryotic dna is wrapped. the regulation of gene expression varies.") == [
        "BACKGROUND eukaryotic dna is wrapped.",
        "the regulation of gene expression varies.",
    ]
