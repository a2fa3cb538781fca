"""How a prose text's lines group into the blocks the units are read from: a paragraph whose lines are units of
their own (a survey's answers one per line), and a paragraph cut by a page break joined again. Read by
:func:`batchsum.backends.units.units_from_text` (its ``_prose_blocks``)."""

from __future__ import annotations

from batchsum.text import lines_are_items, runs_on

__all__ = ["across_page_breaks", "item_lines"]


def item_lines(lines: list[str]) -> tuple[frozenset[int], dict[str, bool]]:
    """The indices of the lines of each paragraph that is a unit a line (:func:`batchsum.text.lines_are_items`),
    and that reading of each paragraph of five lines or more (fewer are never items), by its text."""
    found: set[int] = set()
    readings: dict[str, bool] = {}
    start = 0
    for i in range(len(lines) + 1):
        if i == len(lines) or not lines[i].strip():
            paragraph = "\n".join(lines[start:i]) if i - start >= 5 else ""
            if paragraph:
                readings[paragraph] = lines_are_items(paragraph)
            # Not when the text goes on in lower case below it: its last line's sentence runs on there (a
            # Gutenberg header's blurb, "... before Syme Rector's guns" / "" / "to give him the key ...").
            if paragraph and readings[paragraph] and not _goes_on_below(lines, i):
                found.update(range(start, i))
            start = i + 1
    return frozenset(found), readings


def _goes_on_below(lines: list[str], i: int) -> bool:
    """Whether the first line of text at or after ``lines[i]`` opens in lower case."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i < len(lines) and lines[i].lstrip()[:1].islower()


def across_page_breaks(
    blocks: list[tuple[str, str | None, str | None, int, str]],
) -> list[tuple[str, str | None, str | None, int, str]]:
    """``blocks`` with a block that stops mid-sentence joined by the next one of its section when that one goes
    on in lower case: a PDF's page break, its footer, page number and running header between them left out,
    cut "... morally responsible for what she" from "did. Many philosophers ...", both halves lost. Only in
    a text that capitalises its sentences (a lower-cased one opens every paragraph in lower case)."""
    out: list[tuple[str, str | None, str | None, int, str]] = []
    for block in blocks:
        if out and out[-1][1:4] == block[1:4] and block[0][:1].islower() and runs_on(out[-1][0]):
            out[-1] = (out[-1][0] + "\n" + block[0], *out[-1][1:])
        else:
            out.append(block)
    return out
