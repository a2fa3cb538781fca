"""A book's back matter by its shape, which an extractive summary never quotes: a publisher's catalogue, Project
Gutenberg's closing line and licence, transcriber's notes.

A **catalogue line** carries a price in any currency's form ("$7.25", "£1 1s.", "1d.", "9d.", "6s.", "2/-", "2/3")
and, within a few words of it, a catalogue's mark: a set or format ("6 vols.", "12mo."), a count of pages ("16 pp."),
a rate ("per doz.", "per 100"), postage ("post free"), a binding ("Paper cover", "Bound in Buckram") or a numbered
title ("=62.--Parish Councils.="). Either alone is prose ("18mo of runway", "It cost 6s. at the fair.", "He read 16
pp. that night."), but for a numbered title in bold, a catalogue's entry even where its price is in its next sentence.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["is_back_matter"]

# A price: a currency's sign before its figures, or Britain's old money after them: pence and shillings ("1d.",
# "4½d.", "6s.", "1s. 3d."), shillings and pence with a stroke ("2/-", "1/6", "2/3": a fraction too, so never
# enough alone).
_PRICE = re.compile(r"[$£€¥]\s?\d|(?<![\w/.])\d{1,3}(?:[½¼¾]|/-|/\d{1,2}\b|[sd]\.)")
_NEAR = 32  # characters between the starts of a catalogue's price and its mark, at most
# A catalogue's mark; price and mark are two searches: one "(?=.*\$).*vols" pattern is quadratic.
_CATALOGUE_MARK = re.compile(
    r"\b\d+\s+vols?\.|\b(?:4|8|12|16|18|24|32)mo\b|\b\d+\s+pp\.|\bper\s+(?:doz\.|\d+\b)"
    r"|\bdoz\.|\bpost(?:age)?[\s-]+free\b|\b(?:paper|cloth|buckram|leather|limp)\s+(?:covers?|binding|boards)\b"
    r"|\bbound\s+in\s+(?:cloth|buckram|leather|boards|calf|morocco)\b|(?:^|[=*_])\s?\d{1,3}\.\s?--\s?\S",
    re.IGNORECASE | re.MULTILINE,
)
# Series in capitals ("LUCK AND PLUCK SERIES—Second Series."), never one such word alone ("the NBA SERIES final");
# a catalogue's numbered title in bold, its price further on ("=17.--Reform of the Poor Law.= By SIDNEY WEBB.");
# Gutenberg's closing line and licence; transcriber's notes.
_BACK_MATTER = re.compile(
    r"^\W*(?:[A-Z][A-Z'’.-]+\s+|&\s+)+SERIES\s*(?:[—–:.,;-]|$)|^\s*=\d{1,3}\.\s?--[^=\n]{1,200}=|(?i:^\W*(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?"
    r"project\s+gutenberg|project\s+gutenberg(?:-tm|™)|gutenberg\.org|^\W*transcriber['’]?s?\s+notes?\b)"
)


def is_back_matter(text: str) -> bool:
    """Whether a paragraph is a book's back matter but for its index: a Project Gutenberg closing line or licence,
    a publisher's catalogue, transcriber's notes. A licence or a URL a note names is none."""
    if _BACK_MATTER.search(text):
        return True
    prices = [m.start() for m in _PRICE.finditer(text)]
    if not prices:
        return False
    # A catalogue's price is next to its mark; a letter's "the whole 24 vols. ... amounts to about £25" is not.
    # The prices come in order: the first at or after a mark's start less _NEAR is the nearest one that can be
    # near it (a catalogue of thousands of each is no product of them).
    for m in _CATALOGUE_MARK.finditer(text):
        i = bisect.bisect_left(prices, m.start() - _NEAR)
        if i < len(prices) and prices[i] <= m.start() + _NEAR:
            return True
    return False
