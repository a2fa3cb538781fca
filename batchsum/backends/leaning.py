"""A sentence that leans on what a summary may leave out: one that opens on what came before it ("Partly, ...",
"But then ...", "This made my mum sad.") or points at a listing or a figure ("... as shown in Listing 8-1."). Read
alone, in a summary without the sentence or the listing it leans on, it says little or misleads."""

from __future__ import annotations

import re

__all__ = ["needs_context"]

# Openers that point back at an earlier sentence: such a sentence is unreadable on its own.
_CONTEXT_OPENERS = frozenset(
    """
    partly also but and or nor so then thus hence therefore moreover furthermore besides still yet however
    nevertheless nonetheless meanwhile instead likewise similarly otherwise anyway anyhow accordingly
    consequently conversely additionally alternatively indeed namely afterwards later again too
    """.split()
)
_CONTEXT_PHRASES = (
    "in addition",
    "on the other hand",
    "for example",
    "for instance",
    "in fact",
    "as a result",
    "in contrast",
    "by contrast",
    "at the same time",
    "in this case",
    "in that case",
    "as such",
    "as well",
    "this is",
    "this was",
    "that is",
    "that was",
    "these are",
    "these were",
    "those are",
    "those were",
    "it is also",
    "it was also",
    "other than that",
    "after that",
    "because of this",
    "because of that",
)

# A demonstrative as the subject points back at a clause, not a thing (discourse deixis, Webber 1988): "This
# made my mum sad.", "This must not be in future.", "That was why". Only where a verb or a modal follows it
# directly: "This morning", "That evening" and "These results show" name what they mean.
_DEICTIC_SUBJECT = re.compile(
    r"(?:this|that)\s+(?:also\s+|alone\s+|in\s+turn\s+)?(?:must|will|would|can|could|should|may|might|shall|has|had|"
    r"does|did|made|makes|meant|means|led|leads|caused|causes|gave|gives|took|takes|left|leaves|brought|brings|"
    r"happened|happens|seemed|seems|became|becomes|helped|helps|allowed|allows|explains|explained|suggests|"
    r"suggested|shows|showed|resulted|results\s+in|worked|works|got|gets|changed|changes|sounds|sounded)\b"
    r"|(?:these|those)\s+(?:also\s+)?(?:must|will|would|can|could|should|may|might|shall|have|had|do|did|made|"
    r"make|meant|mean|led|lead|caused|cause|gave|give|took|take|seemed|seem|became|become)\b"
)
# A pointer at a listing or a figure, which no summary shows: "... as shown in Listing 8-1.", "(see Figure 2)".
_SHOWN_IN = re.compile(r"\b(?:listing|figure|fig\.)\s+\d+(?:[-.]\d+)*\b", re.IGNORECASE)


def needs_context(sentence: str) -> bool:
    """True when the sentence leans on what the summary may leave out: it opens on what came before
    ("Partly, ...", "But then ...", "This made ..."), or points at a listing or a figure."""
    low = sentence.lstrip("\"'“‘([—–- ").lower()
    m = re.match(r"[a-z]+", low)
    if not m:
        return False
    if m.group(0) in _CONTEXT_OPENERS:
        return True
    return low.startswith(_CONTEXT_PHRASES) or _DEICTIC_SUBJECT.match(low) is not None or _shown_in(sentence)


def _shown_in(sentence: str) -> bool:
    """Whether a sentence points at a listing or a figure by its number."""
    low = sentence.lower()
    return ("listing" in low or "fig" in low) and _SHOWN_IN.search(sentence) is not None
