"""A sponsor's read in a podcast, a stream or a newsletter: the ad, not the show.

An ad is a segment, not a sentence with a keyword. It opens with a sentence that names a sponsor
("Today's episode is supported by Brightwave.", "Thanks to Squarespace for sponsoring this episode.")
and runs on over the sentences that go on about that sponsor: ones that name it, give a web address or
an offer ("twenty percent off", "use code HARBOR"), or open with a pronoun that points back at it ("They last
forty hours on a single charge ...") where that sentence or the next names it or an offer. The first sentence
that does none of these, a change of speaker or a cue between lines ("[Music]") ends it. "Sponsored by X" opens
an ad only beside a show, an offer or an address: a bill "sponsored by Senator Warren" is news. Only the opener
and the offer carry a trigger of their own; the sentences between them read as the show's unless the segment
is known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["advert_segments", "is_advert", "sponsor"]

# A sponsor's name: capitalised words ("Brightwave", "Athletic Greens", "NordVPN") or a bare web address.
_NAME = r"(?P<name>[a-z0-9-]+\.(?:com|net|org|io|co|fm|app)\b|(?-i:[A-Z0-9][\w&'-]*)(?:\s+(?-i:[A-Z][\w&'-]*)){0,3})"
# "our friends at", "the folks at", "our fantastic friends at": the phrase a host says before a sponsor's name.
_FRIENDS = r"(?:our|the)\s+(?:[a-z]+\s+)?(?:friends|folks|people|partners)\s+at\s+"
_OUR_FRIENDS = f"(?:{_FRIENDS})?"
# A show, not a claim or a grant, is what a sponsor supports: "The claim is supported by Smith's data" and
# "This work was supported by the NSF" are not ads; nor is a bill "sponsored by Senator Warren".
_SHOW = re.compile(
    r"\b(?:episode|show|podcast|video|stream|newsletter|channel|programme|program|broadcast|series|segment)\b",
    re.IGNORECASE,
)
# Where a sponsor is thanked or said to sponsor, the venue may also be the issue of a letter.
_VENUE = re.compile(_SHOW.pattern + r"|\b(?:issue|edition)\b", re.IGNORECASE)
# How far from the sponsor's phrase its show, offer or address may stand: one clause, not the whole of an
# unpunctuated caption (a lazy scan from every show word of a 150 KB line had been quadratic).
_BESIDE = 100
# Openers that name a sponsor only beside a show (``_SHOW``), or a venue, an offer or an address (``_VENUE``).
_BESIDE_OPENERS = (
    (re.compile(r"\bsupported\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE), False),
    (re.compile(r"\b(?:sponsored|underwritten)\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE), True),
    (re.compile(r"\bbrought\s+to\s+you\s+by\s+" + _OUR_FRIENDS + _NAME, re.IGNORECASE), True),
    (
        re.compile(
            r"\b(?:thanks|thank\s+you)\s+(?:again\s+)?to\s+"
            + _NAME
            + r"\s+for\s+(?:sponsoring|supporting\s+(?:this|the|our)\b)",
            re.IGNORECASE,
        ),
        True,
    ),
)
# Openers that say "sponsor" of a show's own: "X is today's sponsor", "our second sponsor tonight is X".
_OPENERS = (
    re.compile(_NAME + r"\s+(?:is|are)\s+(?:today's|this\s+week's|this\s+episode's|our)\s+sponsors?\b", re.IGNORECASE),
    # "Yes, our second sponsor for the evening is Backblaze!" (a stream's read of several sponsors)
    re.compile(
        r"\b(?:our|today's|tonight's|this\s+week's|this\s+episode's)\s+(?:\w+\s+)?sponsors?\s+"
        r"(?:(?:for|of)\s+(?:the\s+|this\s+|today's\s+|tonight's\s+)?\w+\s+|(?:tonight|today|this\s+week)\s+)?"
        r"(?:is|are)\s+" + _OUR_FRIENDS + _NAME,
        re.IGNORECASE,
    ),
    # The same in apposition, with no verb: "Our second sponsor tonight, our fantastic friends at Dwarven Forge."
    # The name after the comma is the sponsor's where the friends' phrase leads to it or it ends the clause
    # ("Our first sponsor, Backblaze."); not "Our sponsor tonight, I think, ..." (a pronoun).
    re.compile(
        r"\b(?:our|today's|tonight's|this\s+week's|this\s+episode's)\s+(?:\w+\s+)?sponsors?\s*"
        r"(?:(?:for|of)\s+(?:the\s+|this\s+|today's\s+|tonight's\s+)?\w+\s*|(?:tonight|today|this\s+week)\s*)?"
        r"[,:]\s+(?P<friends>" + _FRIENDS + r")?(?!I\b)" + _NAME + r"(?(friends)|(?=\s*(?:[.!;,]|$)))",
        re.IGNORECASE,
    ),
)
# A sponsor's read without a name to follow ("after a word from our sponsor", "use code 826LA").
_ADVERT = re.compile(
    r"\b(?:promo|discount|coupon|offer) code\b|\bus(?:e|ing) (?:the )?code:? \W?(?-i:[A-Z0-9]{2,})\b"
    r"|\bour sponsors?\b|\bfree trial\b",
    re.IGNORECASE,
)
# A sponsor's phrase with no name after it: an ad only beside a show, an offer or an address.
_BY = re.compile(r"\b(?:sponsored|underwritten)\s+by\b|\bbrought\s+to\s+you\s+by\b", re.IGNORECASE)
_ADDRESS = re.compile(r"\b[a-z0-9-]+\.(?:com|net|org|io|co|fm|app|shop|store)(?:/\S*)?", re.IGNORECASE)
# An offer beside a sponsor's name makes it an ad ("code" alone does not: "the code was sponsored by ...").
_DEAL = re.compile(
    r"(?:\d\s?%|\bpercent|\$\d+)\s+off\b|\bfree\s+(?:trial|shipping|month|week)s?\b"
    r"|\b(?:promo|discount|coupon|offer)\s+code\b|\bus(?:e|ing)\s+(?:the\s+)?code\b",
    re.IGNORECASE,
)
# Within a read already under way, any code is its offer.
_OFFER = re.compile(_DEAL.pattern + r"|\bcode\b", re.IGNORECASE)
_PERCENT_OFF = re.compile(r"(?:\d\s?%|\bpercent)\s+off\b", re.IGNORECASE)
# The pronouns a sentence opens with when it goes on about what the one before it named.
# Not "It's" nor "This": "It's been a while since ..." and "This is their first show" are the show's again.
_BACK = re.compile(r"^(?:they|it|its|their|they're|they've)\b(?!['’]s)", re.IGNORECASE)
_WORDS = re.compile(r"[a-z0-9]+")
_OPENER_WORDS = ("sponsor", "brought to you", "supported by", "underwritten by")
_NOT_A_NAME = frozenset("the a an our this that today today's".split())


def sponsor(sentence: str) -> str | None:
    """The sponsor a sentence names as one, else None: "X is our sponsor", "our sponsor is X", and beside a show
    ("this episode is supported by X"), or beside a show, an offer or an address ("sponsored by X", "brought to
    you by X", "thanks to X for sponsoring"). Asked once a sentence: the units' builder passes the answers on to
    :func:`advert_segments`."""
    low = sentence.lower()
    if not any(k in low for k in _OPENER_WORDS):
        return None  # this runs on every sentence of a run: the regexes only where one could match
    for pattern, venue in _BESIDE_OPENERS:
        for m in pattern.finditer(sentence):
            if m.group("name").lower() in _NOT_A_NAME:
                continue
            before = sentence[max(0, m.start() - _BESIDE) : m.start()]
            if _beside_venue(sentence, m.start(), m.end()) if venue else _SHOW.search(before) is not None:
                return m.group("name").rstrip(".'")
    for pattern in _OPENERS:
        found = pattern.search(sentence)
        if found and found.group("name").lower() not in _NOT_A_NAME:
            return found.group("name").rstrip(".'")
    return None


def _beside_venue(sentence: str, start: int, end: int) -> bool:
    """Whether a show or a letter's issue, an offer or a web address stands beside ``sentence[start:end]``."""
    around = sentence[max(0, start - _BESIDE) : end + _BESIDE]
    return _VENUE.search(around) is not None or _DEAL.search(around) is not None or _ADDRESS.search(around) is not None


def is_advert(sentence: str) -> bool:
    """A sentence that is a sponsor's read on its own: one that names a sponsor, a promo code or free trial,
    or a discount with the web address to get it ("Head over to brightwave.com/harbor to get twenty percent
    off ...")."""
    return sponsor(sentence) is not None or _unnamed_advert(sentence)


def _unnamed_advert(sentence: str) -> bool:
    """:func:`is_advert` but for a sponsor named as one: a promo code, a free trial, a sponsor's phrase beside an
    offer or an address, a discount with its address."""
    low = sentence.lower()
    # The regexes only where one of their words occurs: this runs on every sentence of a run (a profile).
    keyed = "code" in low or "sponsor" in low or "brought to you" in low or "free trial" in low
    if keyed and _ADVERT.search(sentence):
        return True
    if "by" in low and any(_beside_venue(sentence, m.start(), m.end()) for m in _BY.finditer(sentence)):
        return True  # "Today's episode is brought to you by a backup service with 40% off ..."
    return " off" in low and _PERCENT_OFF.search(low) is not None and _ADDRESS.search(low) is not None


def _names(sentence: str, name: str) -> bool:
    """Whether a sentence names the sponsor ``name``, gives a web address or an offer."""
    low = sentence.lower()
    if _ADDRESS.search(low) or _OFFER.search(low):
        return True
    # The name as a whole ("D&D Beyond's", not "beyond the harbor"), or run together as in its address.
    words = [w for w in _WORDS.findall(name.lower()) if w not in _NOT_A_NAME]
    if not words:
        return False
    joined = "".join(words)
    return f" {' '.join(words)} " in f" {' '.join(_WORDS.findall(low))} " or (
        len(joined) >= 6 and joined in "".join(_WORDS.findall(low))
    )


def _points_back(sentence: str) -> bool:
    """Whether a sentence opens with a pronoun that may point back at what the one before it named."""
    return _BACK.match(sentence.lstrip("\"'“ ")) is not None


def advert_segments(
    sentences: Sequence[str], goes_on: Sequence[bool], sponsors: Sequence[str | None] | None = None
) -> frozenset[int]:
    """The indices of the sentences that are a sponsor's read: each sentence :func:`is_advert` finds, and
    after a sentence that names a sponsor, the ones that go on about it (see the module's doc).
    ``sponsors[i]`` is :func:`sponsor` of sentence ``i`` where the caller read it already (the units' builder),
    else it is read here.
    ``goes_on[i]`` says whether sentence ``i`` follows on from sentence ``i - 1`` in the same voice (the same
    speaker's turn or next line, the same paragraph or the next): an ad never runs across a change of speaker
    or a cue between lines."""
    if sponsors is None:
        sponsors = [sponsor(sentence) for sentence in sentences]
    ads: set[int] = set()
    name: str | None = None  # the sponsor of the ad under way
    carried = -1  # the ad goes on up to this sentence: a run that points back, then one that names it
    for i, sentence in enumerate(sentences):
        opened = sponsors[i]
        if opened is not None:
            name = opened
        elif name is not None and goes_on[i] and (i <= carried or _names(sentence, name)):
            pass
        elif (
            name is not None
            and goes_on[i]
            and _points_back(sentence)
            and (end := _run_named(sentences, goes_on, i, name)) >= i
        ):
            carried = end
        else:
            name = None
            if not _unnamed_advert(sentence):  # no sponsor named here (``opened``): the rest of is_advert
                continue
        ads.add(i)
    return frozenset(ads)


def _run_named(sentences: Sequence[str], goes_on: Sequence[bool], i: int, name: str) -> int:
    """How far the ad goes on over the run of sentences from ``i`` that point back ("They last forty hours
    ..."), in the same voice: to the last of the run or the sentence after it that names the sponsor ``name``
    or an offer; -1 where none does."""
    j = i
    while j + 1 < len(sentences) and goes_on[j + 1] and _points_back(sentences[j + 1]):
        j += 1
    last = min(j + 1, len(sentences) - 1) if j + 1 < len(sentences) and goes_on[j + 1] else j
    return next((k for k in range(last, i - 1, -1) if _names(sentences[k], name)), -1)
