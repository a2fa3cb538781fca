"""Units cut out of their context read as whole ones or not at all: inline code holds no emphasis marks, a
list's label from inside a blockquote is its words, a lower-cased paper's sub-heading is no sentence's start,
and a piece opening with a comma is no candidate."""

from __future__ import annotations

from batchsum.backends.extractive import summarize_text
from batchsum.cleanup import _balance_underscores
from batchsum.text import ends_apart
from batchsum.tokens import get_tokenizer

_NOTE = """# Integer overflow

> ##### Integer Overflow
>
> When you compile in release mode, Rust does not include checks for integer overflow that cause
> panics. Instead, if overflow occurs, Rust performs two's complement wrapping of the value.
>
> To explicitly handle the possibility of overflow, you can use these families of methods:
>
> - Wrap in all compilation modes with the `wrapping_*` methods, such as `wrapping_add`.
> - Return the `None` value if there is overflow with the `checked_*` methods.
> - Saturate at the value's minimum or maximum values with the `saturating_*` methods.

Floating-point numbers are numbers with decimal points, and Rust has two types of them for you.
"""


def _summary(text: str, tokens: int = 150) -> str:
    return summarize_text(
        text,
        target_tokens=tokens,
        max_tokens=tokens,
        kind="standard",
        content_type="document",
        tokenizer=get_tokenizer(),
    )


def test_an_underscore_in_inline_code_is_no_italic_mark() -> None:
    """The `_` of `checked_*` had been read as a closing italic mark: "_- Return ..." ran on as prose."""
    item = "- Return the `None` value if there is overflow with the `checked_*` methods."
    assert _balance_underscores(item) == item
    assert _balance_underscores("the gun runners._ He left.").startswith("_")  # a real mark still balanced


def test_a_list_label_from_a_blockquote_is_its_words() -> None:
    """A list picked from an mdBook note ("> ##### Integer Overflow") had "> #####" in its label."""
    summary = _summary(_NOTE)
    labels = [line for line in summary.split("\n") if line.endswith(":")]
    assert labels, summary
    assert all(not line.lstrip().startswith((">", "#")) for line in labels), summary
    assert all(not line.startswith("_") for line in summary.split("\n")), summary


_PAPER = (
    "BACKGROUND\n"
    "chlamydiae are implicated in a wide variety of diseases in animals. "
    + "the infections are common in pigs and are often mixed with viruses of the gut. "
    * 4
    + "\n\nRESULTS\n"
    "chlamydial co-infection does alter viral infection depending on the species but does not alter viral shape\n"
    "to determine whether chlamydial pre-infection altered later viral infection, numbers of syncytia and "
    "infected cells were counted in single and co-infected cultures. "
    + "the numbers of syncytia were reduced in the co-infected cultures compared with single ones. " * 4
    + "\n"
)


def test_a_lower_cased_sub_heading_is_not_glued_to_its_paragraph() -> None:
    """A scraped paper's sub-heading (no stop, above a one-line paragraph far wider than it) had read
    "... does not alter viral shape to determine whether ...": the line under it is no wrap of it."""
    summary = _summary(_PAPER, 400)
    assert "to determine whether" in summary, summary
    assert "viral shape to determine" not in summary, summary


_CUT = (
    "the genome-wide frequency of allelic modifications in rice hybrids is much higher than in earlier studies."
    "\n, the allelic histone modification patterns of the genes in the two hybrid crosses.\n"
    "the levels of the allelic modifications were compared between the two hybrid crosses in detail."
)


def test_a_piece_opening_with_a_comma_is_never_picked() -> None:
    """ ", the allelic histone modification patterns of the genes." had been a PubMed paper's summary line."""
    summary = _summary(_CUT, 60)
    assert summary.strip(), summary
    assert not any(line.lstrip()[:1] in ",;:" for line in summary.split("\n")), summary
    assert ", the allelic" not in summary, summary


def test_a_line_wrapped_mid_sentence_after_a_whole_sentence_is_no_heading() -> None:
    """A scraped paper's paragraph whose first line holds a whole sentence and wraps mid-way through the next
    ("... potassium channel expression. it was ... as compared to nf" / "cells suggesting ...") had been read as
    a sub-heading, and its finding was lost."""
    assert not ends_apart(
        "over-representation analysis of these data highlighted changes in potassium channel expression. it was "
        "previously demonstrated that wild-type schwann cells have altered channel activity as compared to nf",
        ["mutant schwann cells suggesting that this may be one factor by which the cells can be distinguished."],
    )
