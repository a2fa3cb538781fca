"""A sponsor's read in a podcast, a stream or a newsletter: the ad, not the show.

An ad is a segment, not a sentence with a keyword. It opens with a sentence that names a sponsor
("Today's episode is supported by Brightwave.", "Thanks to Squarespace for sponsoring this episode.")
and runs on over the sentences that go on about that sponsor: ones that name it, give a web address or
an offer ("twenty percent off", "use code HARBOR"), or open with a pronoun that can only point back at it
("They last forty hours on a single charge ..."). The first sentence that does none of these, a change
of speaker or a cue between lines ("[Music]") ends it. Only the opener and the offer carry a trigger of
their own; the sentences between them read as the show's unless the segment is known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["advert_segments", "is_advert", "sponsor"]

# A sponsor's name: capitalised words ("Brightwave", "Athletic Greens", "NordVPN") or a bare web address.
_NAME = r"(?P<name>[a-z0-9-]+\.(?:com|net|org|io|co|fm|app)\b|(?-i:[A-Z0-9][\w&'-]*)(?:\s+(?-i:[A-Z][\w&'-]*)){0,3})"
_OUR_FRIENDS = r"(?:(?:our|the)\s+(?:good\s+)?(?:friends|folks|people|partners)\s+at\s+)?"
# A show, not a claim or a grant, is what a sponsor supports: "The claim is supported by Smith's data" and
# "This work was supported by the NSF" are not ads.
_SHOW = r"\b(?:episode|show|podcast|video|stream|newsletter|channel|programme|program|broadcast|series|segment)\b"
_OPENERS = (
    re.compile(r"\b(?:sponsored|underwritten)\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE),
    re.compile(r"\bbrought\s+to\s+you\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE),
    re.compile(_SHOW + r"[^.!?]*?\bsupported\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE),
    re.compile(
        r"\b(?:thanks|thank\s+you)\s+(?:again\s+)?to\s+"
        + _NAME
        + r"\s+for\s+(?:sponsoring|supporting\s+(?:this|the|our)\b)",
        re.IGNORECASE,
    ),
    re.compile(_NAME + r"\s+(?:is|are)\s+(?:today's|this\s+week's|this\s+episode's|our)\s+sponsors?\b", re.IGNORECASE),
    # "Yes, our second sponsor for the evening is Backblaze!" (a stream's read of several sponsors)
    re.compile(
        r"\b(?:our|today's|tonight's|this\s+week's|this\s+episode's)\s+(?:\w+\s+)?sponsors?\s+"
        r"(?:(?:for|of)\s+(?:the\s+|this\s+|today's\s+|tonight's\s+)?\w+\s+|(?:tonight|today|this\s+week)\s+)?"
        r"(?:is|are)\s+" + _OUR_FRIENDS + _NAME,
        re.IGNORECASE,
    ),
)
# A sponsor's read without a name to follow ("after a word from our sponsor", "use code 826LA").
_ADVERT = re.compile(
    r"\b(?:promo|discount|coupon|offer) code\b|\bus(?:e|ing) (?:the )?code:? \W?(?-i:[A-Z0-9]{2,})\b|\bsponsored by\b"
    r"|\bbrought to you by\b|\bour sponsors?\b|\bfree trial\b",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"\b[a-z0-9-]+\.(?:com|net|org|io|co|fm|app|shop|store)(?:/\S*)?", re.IGNORECASE)
_OFFER = re.compile(
    r"(?:\d\s?%|\bpercent|\$\d+)\s+off\b|\bfree\s+(?:trial|shipping|month|week)s?\b|\bcode\b", re.IGNORECASE
)
_PERCENT_OFF = re.compile(r"(?:\d\s?%|\bpercent)\s+off\b", re.IGNORECASE)
# The pronouns a sentence opens with when it goes on about what the one before it named.
# Not "It's" nor "This": "It's been a while since ..." and "This is their first show" are the show's again.
_BACK = re.compile(r"^(?:they|it|its|their|they're|they've)\b(?!['’]s)", re.IGNORECASE)
_WORDS = re.compile(r"[a-z0-9]+")
_OPENER_WORDS = ("sponsor", "brought to you", "supported by", "underwritten by")
_NOT_A_NAME = frozenset("the a an our this that today today's".split())


def sponsor(sentence: str) -> str | None:
    """The sponsor a sentence names as one ("supported by X", "sponsored by X", "brought to you by X",
    "thanks to X for sponsoring", "X is our sponsor"), else None."""
    low = sentence.lower()
    if not any(k in low for k in _OPENER_WORDS):
        return None  # this runs on every sentence of a run: the regexes only where one could match
    for pattern in _OPENERS:
        m = pattern.search(sentence)
        if m and m.group("name").lower() not in _NOT_A_NAME:
            return m.group("name").rstrip(".'")
    return None


def is_advert(sentence: str) -> bool:
    """A sentence that is a sponsor's read on its own: one that names a sponsor, a promo code or free trial,
    or a discount with the web address to get it ("Head over to brightwave.com/harbor to get twenty percent
    off ...")."""
    low = sentence.lower()
    # The regexes only where one of their words occurs: this runs on every sentence of a run (a profile).
    keyed = "code" in low or "sponsor" in low or "brought to you" in low or "free trial" in low
    if keyed and _ADVERT.search(sentence):
        return True
    if sponsor(sentence) is not None:
        return True
    return " off" in low and _PERCENT_OFF.search(low) is not None and _ADDRESS.search(low) is not None


def _about(sentence: str, name: str) -> bool:
    """Whether a sentence within an ad still goes on about the sponsor ``name``."""
    low = sentence.lower()
    if _ADDRESS.search(low) or _OFFER.search(low) or _BACK.match(sentence.lstrip("\"'“ ")):
        return True
    # The name as a whole ("D&D Beyond's", not "beyond the harbor"), or run together as in its address.
    words = [w for w in _WORDS.findall(name.lower()) if w not in _NOT_A_NAME]
    if not words:
        return False
    joined = "".join(words)
    return f" {' '.join(words)} " in f" {' '.join(_WORDS.findall(low))} " or (
        len(joined) >= 6 and joined in "".join(_WORDS.findall(low))
    )


def advert_segments(sentences: Sequence[str], goes_on: Sequence[bool]) -> frozenset[int]:
    """The indices of the sentences that are a sponsor's read: each sentence :func:`is_advert` finds, and
    after a sentence that names a sponsor, the ones that go on about it (see the module's doc).
    ``goes_on[i]`` says whether sentence ``i`` follows on from sentence ``i - 1`` in the same voice (the same
    speaker's turn or next line, the same paragraph or the next): an ad never runs across a change of speaker
    or a cue between lines."""
    ads: set[int] = set()
    name: str | None = None  # the sponsor of the ad under way
    for i, sentence in enumerate(sentences):
        opened = sponsor(sentence)
        if opened is not None:
            name = opened
        elif name is not None and goes_on[i] and _about(sentence, name):
            pass
        else:
            name = None
            if not is_advert(sentence):
                continue
        ads.add(i)
    return frozenset(ads)
