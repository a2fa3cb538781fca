"""A sentence that leans on what a summary may leave out: one that opens on what came before it ("Partly, ...",
"But then ...", "This made my mum sad."), closes on it ("My knees hurt badly afterwards.") or points at a listing
or a figure ("... as shown in Listing 8-1."). Read alone, in a summary without the sentence or the listing it
leans on, it says little or misleads. One that only points at what its speaker shows ("You can have a look at
it.") says nothing at all (:func:`points_away`)."""

from __future__ import annotations

import re

from batchsum.speaker_labels import parse_speaker_line

__all__ = ["needs_context", "points_away"]

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
# A conjunctive adjunct at a sentence's end ties it to the sentence before as one at its start does (Halliday and
# Hasan 1976, "Cohesion in English", ch. 5): temporal "afterwards", "after that", "then"; additive "too", "as well",
# "either"; adversative "instead", "anyway", "though". "My knees hurt badly afterwards." says after what only
# beside the marathon. Only as the last words: a degree "too" before its adjective ("It was too cold.") ties to
# nothing, and "(every) now and then" is a frequency, not a time before. Not "again", which presupposes an
# earlier time without naming a sentence ("The cat was sick again." reads alone). A sentence of two clauses ties
# to its own first one ("X outperformed Y and it gave more information as well."): only one without a clause
# link before the adjunct leans on the sentence before it.
_CONTEXT_CLOSER = re.compile(
    r"(?:^|[\s,—–-])(?<!now and )(?:afterwards?|after that|then|too|as well|either|instead|anyway|though)$"
)
_CLAUSE_LINK = re.compile(r";|\b(?:and|but|or|nor|while|whereas|because|when|than|if)\b")
# A sentence's closing stop, quotation marks and brackets, after which its last words stand.
_ENDING = re.compile(r"[\s.!?…\"'”’)\]]+$")
# A pointer at a listing or a figure, which no summary shows: "... as shown in Listing 8-1.", "(see Figure 2)".
_SHOWN_IN = re.compile(r"\b(?:listing|figure|fig\.)\s+\d+(?:[-.]\d+)*\b", re.IGNORECASE)


def needs_context(sentence: str) -> bool:
    """True when the sentence leans on what the summary may leave out: it opens on what came before
    ("Partly, ...", "But then ...", "This made ..."), closes on it ("... afterwards.", "... too."), or points at a
    listing or a figure."""
    low = sentence.lstrip("\"'“‘([—–- ").lower()
    m = re.match(r"[a-z]+", low)
    if not m:
        return False
    if m.group(0) in _CONTEXT_OPENERS:
        return True
    if low.startswith(_CONTEXT_PHRASES) or _DEICTIC_SUBJECT.match(low) is not None or _shown_in(sentence):
        return True
    closer = _CONTEXT_CLOSER.search(_ENDING.sub("", low))
    return closer is not None and _CLAUSE_LINK.search(low, 0, closer.start()) is None


def _shown_in(sentence: str) -> bool:
    """Whether a sentence points at a listing or a figure by its number."""
    low = sentence.lower()
    return ("listing" in low or "fig" in low) and _SHOWN_IN.search(sentence) is not None


# A turn that only points at what its speaker shows: a look, a check or a glance at "it" or "this" and nothing
# more ("You can have a look at it.", "Check this out.", "Let's take a look at this."). Its object is on a slide
# or a screen no summary holds: quoted, the line says nothing. The whole sentence is the pointer, so "Look at
# this chart of the costs." (the object named) are not, nor is what a speaker does ("I will check it.", "I see
# that."): a pointer is said to its listeners, as an imperative or to "you" or "we".
_POINTER = re.compile(
    r"(?:(?:so|ok|okay|now|well|and|um|uh)[\s,]+)*(?:(?:you|we)(?:\s+(?:can|could|should|might|may|will|just)|\s*'ll)\s+"
    r"|let'?s\s+|let\s+us\s+|please\s+|just\s+)?(?:just\s+)?(?:have|take|get)?\s*(?:a\s+(?:quick\s+)?)?"
    r"(?:look|glance|see|check|view)\s+(?:at\s+|over\s+)?(?:it|this|that|these|those|them)(?:\s+out)?"
    r"(?:[\s,]+(?:here|there|now|please))?"
)
_POINTER_VERBS = ("look", "glance", "see", "check", "view")


def points_away(sentence: str) -> bool:
    """True for a sentence that only points at what its speaker shows ("You can have a look at it."): its
    object a bare pronoun, nothing said about it. A speaker's label before it is left aside."""
    low = _ENDING.sub("", parse_speaker_line(sentence)[1].lower()).replace("’", "'")
    if not any(verb in low for verb in _POINTER_VERBS):
        return False
    low = re.sub(r"\s+,", ",", low)  # a transcript's spaced commas ("it , and")
    return _POINTER.fullmatch(low.strip(" ,")) is not None
