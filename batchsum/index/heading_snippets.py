"""A snippet that shows the query's words together: a document found holding them as a phrase ("gene
expression") whose best passage holds them only apart ("monoallelic expression genes") shows the first sentence
that holds the phrase, or, when that is a section's heading (no sentence), the heading and the first sentence
under it ("<heading> — <sentence>"): the reader sees why it matched."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from batchsum.backends.noise import line_kind
from batchsum.index.snippet_sentences import WORD, sentences
from batchsum.index.snippets import SNIPPET_CHARS, QueryWords, clean_text, query_matcher

__all__ = ["heading_snippet", "phrase_snippet", "together"]

_HEADING_KINDS = ("heading", "short")  # what the summarizer reads as a plain-text heading


def together(text: str, groups: Sequence[Sequence[str]], language: str | None) -> bool:
    """Whether ``text`` holds the query's words side by side in the query's order ("gene expression", not
    "expression of the genes" nor "genes whose expression")."""
    matchers = [query_matcher([g], language) for g in groups]
    at = 0  # the group the next word must match
    for m in WORD.finditer(text):
        word = m.group(0)
        if matchers[at](word):
            at += 1
            if at == len(groups):
                return True
        else:
            at = 1 if matchers[0](word) else 0
    return False


def heading_snippet(
    window: str,
    groups: Sequence[Sequence[str]],
    language: str | None = None,
    query_words: QueryWords | None = None,
) -> tuple[str, list[str]] | None:
    """ "<heading> — <first sentence under it>" for the first heading of ``window`` (raw source text, headings
    and all) holding the query's words together, and the query words in it; None when no heading does."""
    found = query_matcher(groups, language, query_words)
    lines = window.split("\n")
    for i, line in enumerate(lines):
        head = line.strip().lstrip("#").strip()
        is_heading = line.lstrip().startswith("#") or line_kind(line) in _HEADING_KINDS
        if not head or not is_heading or not together(head, groups, language):
            continue
        under: list[str] = []
        for nxt in lines[i + 1 :]:
            if not nxt.strip():
                if under:
                    break
                continue
            under.append(nxt)
        first = next(iter(sentences(clean_text("\n".join(under)))), "")
        shown = " ".join(clean_text(head).split())
        if first:
            room = SNIPPET_CHARS - len(shown) - 3
            if len(first) > room:
                first = first[: max(0, room - 1)].rsplit(" ", 1)[0] + " …"
            shown = f"{shown} — {first}"
        return shown, sorted({w.lower(): w for w in found(shown)}.values(), key=str.lower)
    return None


def phrase_snippet(
    text: str,
    groups: Sequence[Sequence[str]],
    language: str | None = None,
    query_words: QueryWords | None = None,
) -> tuple[str, list[str]] | None:
    """The first place in ``text`` (a whole source) holding the query's words together: its sentence, or its
    heading and the sentence under it (:func:`heading_snippet`), with the query words in it; None for none."""
    stems = [min(g, key=len).lower() for g in groups]
    starts = [0, *(m.end() for m in _PARAGRAPHS.finditer(text))]
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        paragraph = text[start:end]
        low = paragraph.lower()
        # Cheap first: a paragraph without each term's letters cannot hold the phrase (a stem is a word's start).
        if not all(stem in low for stem in stems) or not together(paragraph, groups, language):
            continue
        for sentence in sentences(clean_text(paragraph)):
            if together(sentence, groups, language):
                return _shown(sentence, query_matcher(groups, language, query_words))
        # A heading alone in its paragraph: the sentence under it is the next paragraph's.
        headed = heading_snippet(text[start : end + SNIPPET_CHARS * 2], groups, language, query_words)
        if headed is not None:
            return headed
    return None


def _shown(sentence: str, found: Callable[[str], list[str]]) -> tuple[str, list[str]]:
    """``sentence`` cut to a snippet's length at a word, and the query words in it."""
    if len(sentence) > SNIPPET_CHARS:
        sentence = sentence[: SNIPPET_CHARS - 2].rsplit(" ", 1)[0] + " …"
    return sentence, sorted({w.lower(): w for w in found(sentence)}.values(), key=str.lower)


_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
