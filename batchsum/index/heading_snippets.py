"""A snippet that shows the query's words together: a document found holding them as a phrase ("gene
expression") whose best passage holds them only apart ("monoallelic expression genes") shows the first sentence
that holds the phrase, or, when that is a section's heading (no sentence), the heading and the first sentence
under it ("<heading> — <sentence>"): the reader sees why it matched."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from batchsum.backends.noise import line_kind
from batchsum.index.snippet_sentences import WORD, sentences
from batchsum.index.snippets import SNIPPET_CHARS, QueryWords, clean_text, query_matcher

__all__ = ["heading_snippet", "phrase_snippet", "together"]

_HEADING_KINDS = ("heading", "short")  # what the summarizer reads as a plain-text heading


def together(
    text: str, groups: Sequence[Sequence[str]], language: str | None, query_words: QueryWords | None = None
) -> bool:
    """Whether ``text`` holds the query's words side by side in the query's order ("gene expression", not
    "expression of the genes" nor "genes whose expression"); ``query_words``: the query's, when it reads
    other texts too."""
    matchers = (query_words or QueryWords(groups)).each_group(language)
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
    query_words = query_words or QueryWords(groups)
    found = query_matcher(groups, language, query_words)
    lines = window.split("\n")
    for i, line in enumerate(lines):
        head = line.strip().lstrip("#").strip()
        is_heading = line.lstrip().startswith("#") or line_kind(line) in _HEADING_KINDS
        if not head or not is_heading or not together(head, groups, language, query_words):
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
    query_words = query_words or QueryWords(groups)  # one word table for every line read
    stems = [min(g, key=len).lower() for g in groups]
    pos = 0
    for line in text.split("\n"):
        at, pos = pos, pos + len(line) + 1
        low = line.lower()
        # Cheap first: a line without each term's letters cannot hold the phrase (a stem is a word's start).
        if not all(stem in low for stem in stems) or not together(line, groups, language, query_words):
            continue
        if line.lstrip().startswith("#") or line_kind(line) in _HEADING_KINDS:
            headed = heading_snippet(text[at : at + SNIPPET_CHARS * 3], groups, language, query_words)
            if headed is not None:
                return headed
        # The line's paragraph, so that a hard-wrapped sentence is read from its start; a long one (a
        # transcript's turns under no blank line) by the line alone: its cost is the paragraph's length.
        first = text.rfind("\n\n", 0, at) + 1
        last = text.find("\n\n", pos)
        last = len(text) if last < 0 else last
        block = text[first:last] if last - first <= _PARAGRAPH_READ else line
        for sentence in sentences(clean_text(block)):
            if together(sentence, groups, language, query_words):
                return _shown(sentence, query_matcher(groups, language, query_words))
    return None


def _shown(sentence: str, found: Callable[[str], list[str]]) -> tuple[str, list[str]]:
    """``sentence`` cut to a snippet's length at a word, and the query words in it."""
    if len(sentence) > SNIPPET_CHARS:
        sentence = sentence[: SNIPPET_CHARS - 2].rsplit(" ", 1)[0] + " …"
    return sentence, sorted({w.lower(): w for w in found(sentence)}.values(), key=str.lower)


_PARAGRAPH_READ = 4000  # characters: a longer paragraph is read by the line that holds the phrase
