"""Words hard-wrapped at a hyphen ("sum-\\nmarization", "high-\\nbacked"): one word again, with or without it.

A line break after a hyphen is either a word broken by the typesetter (its hyphen goes: "summarization")
or a compound that happened to wrap at its own hyphen (it stays: "high-backed"). As classic de-hyphenation
does, the document is the first witness: the joined word written elsewhere in it without a break says join,
the hyphenated form written elsewhere says keep. Without either, a joined word that is a known word joins
("expre-ssion"), two halves that are both words keep their hyphen ("well-known"), and anything else joins
("simul-taneous": "taneous" is no word). Known words are the document's own and the English word pieces of
the search index's tokenizer vocabulary (whole words only). A capitalised second half ("Anglo-\\nSaxon",
"Jean-\\nPaul") names something and keeps its hyphen.
"""

from __future__ import annotations

import functools
import json
import re
from importlib.resources import files

__all__ = ["WRAPPED_HYPHEN", "dehyphenate", "document_words"]

# The hyphen at a line's end between two letters, with the break's blanks and a blockquote's marks.
WRAPPED_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\n[ \t>]*(?=[^\W\d_])")
# The whole word broken at the hyphen: its halves are no evidence of themselves.
_BROKEN = re.compile(r"[^\W\d_]+-[ \t]*\n[ \t>]*[^\W\d_]+")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_HEAD = re.compile(r"[^\W\d_]+$")
_TAIL = re.compile(r"[^\W\d_]+")


@functools.lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    """The whole lower-case words of the index tokenizer's vocabulary (~22,000 common English words)."""
    data = json.loads(files("batchsum.index").joinpath("data", "minilm-tokenizer.json").read_text("utf-8"))
    return frozenset(w for w in data["model"]["vocab"] if w.isalpha() and w.islower())


@functools.lru_cache(maxsize=8)
def document_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(words, hyphenated compounds) written in ``text`` outside its line-end hyphen breaks, lower-cased.
    Cached: a search shows several snippets of one source."""
    words: set[str] = set()
    compounds: set[str] = set()
    for m in _WORD.finditer(_BROKEN.sub(" ", text).lower()):
        word = m.group(0)
        if "-" in word:
            compounds.add(word)
            words.update(word.split("-"))
        else:
            words.add(word)
    return frozenset(words), frozenset(compounds)


def _keeps_hyphen(head: str, tail: str, words: frozenset[str], compounds: frozenset[str]) -> bool:
    """Whether ``head``-``tail``, wrapped at its hyphen, is a compound (the hyphen stays)."""
    low_head, low_tail = head.lower(), tail.lower()
    joined = low_head + low_tail
    if joined in words:
        return False
    if f"{low_head}-{low_tail}" in compounds or tail[:1].isupper():
        return True
    vocabulary = _vocabulary()
    if joined in vocabulary:
        return False
    return all(w in words or w in vocabulary for w in (low_head, low_tail))


def dehyphenate(text: str, document: str | None = None) -> str:
    """``text`` with each word hard-wrapped at a hyphen made one word again: joined ("summarization") or,
    for a compound, with its hyphen ("high-backed"), judged by the words of ``document`` (the text the
    passage is from; ``text`` itself when None)."""
    if "\n" not in text or "-" not in text or WRAPPED_HYPHEN.search(text) is None:
        return text
    words, compounds = document_words(text if document is None else document)

    def join(m: re.Match[str]) -> str:
        head = _HEAD.search(m.string, max(0, m.start() - 80), m.start())
        tail = _TAIL.match(m.string, m.end())
        if head is None or tail is None:
            return "-"
        return "-" if _keeps_hyphen(head.group(0), tail.group(0), words, compounds) else ""

    return WRAPPED_HYPHEN.sub(join, text)
