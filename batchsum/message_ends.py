"""How a turn or a chat message ends: a backchannel that says nothing ("Yeah.", "Mm-hmm."), a sentence's end,
a message's trailing emoji, and a chat told from a transcript by how its turns end."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["BACKCHANNELS", "SENTENCE_END", "end_message", "ends_sentence", "is_backchannel", "is_chat", "unended"]


BACKCHANNELS = frozenset(
    """
    yeah yes yep yup yea ya no nope nah okay ok kay alright right sure fine good great cool nice wow oh ah
    uh um hmm mm mhm huh hm exactly true indeed totally absolutely definitely really so well anyway
    thanks thank you i see got it agreed correct sorry pardon what hello hi bye bah mah whoa gosh
    maybe perhaps probably hey
    """.split()
)


def is_backchannel(text: str) -> bool:
    """True for turns that carry no content: "Yeah.", "Okay, right.", "Mm-hmm.", "Thank you."."""
    words = re.findall(r"[a-z]+", text.lower().replace("mm-hmm", "mm").replace("uh-huh", "uh"))
    if not words:
        return True
    return all(w in BACKCHANNELS for w in words)


def unended(text: str) -> bool:
    """Whether a sentence or list item in an alphabetic script ends with no stop ("... in additional file
    6"): run on into the next one, it reads as one with it. Chinese and Japanese (from U+2E80) need none."""
    last = text[-1:]
    return (last.isalnum() and last < "\u2e80") or last in (")", "]")


# A sentence that ends as a sentence: a stop, then closing quotes or brackets at most.
SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
# What a chat message may end with after its words: emoji (with their joiners and variation selectors) and
# emoticons (":)", ";-)", ":D").
_TRAILING_EMOJI = re.compile(
    r"(?:\s*(?:[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]|(?<!\S)[:;]-?[()DPp](?!\S)))+$"
)
_URL_END = re.compile(r"\bhttps?://\S+$")


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends as a sentence does: with a stop ("." "!" "?" "…"), then closing quotes or
    brackets at most ("... the June date.)"). A message that ends in a word, an emoji, a bracket with no
    stop before it ("... (the venue confirmed)") or a URL does not."""
    return SENTENCE_END.search(text.rstrip()) is not None


def is_chat(turn_ends: Iterable[str]) -> bool:
    """Whether a conversation whose turns end with ``turn_ends`` (each turn's last sentence, or the turn)
    is a chat: more than half of them end without a stop (:func:`ends_sentence`). In a chat a message ends
    where it ends (Slack: 0.86 of the turns without a stop); in a transcript most turns end with a stop and
    the rest were broken off (QMSum at most 0.38 a meeting, DialogSum 0.14)."""
    ends = [t for t in turn_ends if t.strip()]
    return sum(1 for t in ends if not ends_sentence(t)) > 0.5 * len(ends)


def end_message(text: str) -> str:
    """A chat message's last sentence as a sentence: its trailing emoji or emoticon dropped and, when it
    then ends in a word, a closing bracket or a URL, the full stop the summarizer gives a paragraph that
    has none ("I'll send the quote by Wednesday 🙂" reads "I'll send the quote by Wednesday."). Anything
    else (a dash, a colon: broken off or leading on) comes back as it was."""
    core = _TRAILING_EMOJI.sub("", text.rstrip())
    if ends_sentence(core):
        return core
    if unended(core) or _URL_END.search(core):
        return core + "."
    return text
