"""What chat apps write around a message's words: emoji (``🚀``, ``:rocket:``) and the ``@mentions`` it
opens with. Neither is a word of the sentence, yet each stands where a sentence starts or ends: a message
"@Ana I'll update the notes by Thursday 🚀" is the sentence "Ana, I'll update the notes by Thursday.",
addressed to Ana and ended by its emoji. Shared by the chat export readers and the offline facets.
"""

from __future__ import annotations

import re

from batchsum.text import end_message

__all__ = ["EMOJI_CODE", "addressed", "without_codes", "without_emoji"]

# Emoji as Slack, Discord and others write them (":rotating_light:", ":wave::skin-tone-2:"): no words, and
# as text they become entities ("rotating_light"). A clock ("10:30:00") has no letter, so it is no emoji
# (but ":+1:" is).
EMOJI_CODE = r":(?:[a-z0-9_+'-]*[a-z][a-z0-9_+'-]*|[+-]1):"
# A run of emoji codes, spaces between: what stands in its place depends on the words around it. Glued to
# the word before it ("Thursday:rocket:", as Discord's picker leaves it) it is one too, but not after a
# colon or a slash ("a:b:c", a URL's "host:port:").
_EMOJI_RUN = re.compile(rf"[ \t]*(?<![:/]){EMOJI_CODE}(?:[ \t]*{EMOJI_CODE})*(?![\w:])")
# A pictograph emoji (with its variation selector and joiner) or an emoji code.
_ONE_EMOJI = rf"(?:[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]|{EMOJI_CODE})"
_LEADING_EMOJI = re.compile(rf"^(?:{_ONE_EMOJI}\s*)+")
_TRAILING_EMOJI = re.compile(rf"(?:\s*{_ONE_EMOJI})+$")
# The mentions a message opens with ("@Ana I'll ...", "@ana.s, @ben: can you ..."): whom it addresses.
_LEADING_MENTIONS = re.compile(r"^((?:@\w[\w.'-]*[ \t]*[,:]?[ \t]+)+)(?=\S)")


def addressed(text: str) -> str:
    """``text`` whose opening ``@mentions`` address those people as a sentence does: "@Ana I'll update ..."
    reads "Ana, I'll update ...". Read as it was, the mention stood where the clause's subject is, and the
    rules that find a promise at a sentence's start found none."""
    m = _LEADING_MENTIONS.match(text)
    if m is None:
        return text
    who = [w.rstrip(".'-") for w in re.findall(r"@(\w[\w.'-]*)", m.group(1))]
    return f"{', '.join(who)}, {text[m.end() :]}"


def without_emoji(sentence: str) -> tuple[str, bool]:
    """``sentence`` without the emoji it opens or ends with, and whether it ended in emoji: then it is
    ended as a chat message's last sentence is (:func:`batchsum.text.end_message`: "by Thursday 🚀" reads
    "by Thursday."), for an emoji after words says the writer is done, where a bare word at a transcript
    turn's end may be a sentence broken off."""
    core = _LEADING_EMOJI.sub("", sentence.strip())
    end = _TRAILING_EMOJI.search(core)
    if end is None or not core[: end.start()].strip():
        return core, False
    return end_message(core[: end.start()].rstrip()), True


def without_codes(text: str) -> str:
    """``text`` without its emoji codes: a sentence's end in place of a run between two clauses when what
    follows starts a sentence ("Sounds good :tada: I'll write ..." → "Sounds good. I'll write ..."), and
    in place of one that ends a line after words ("by Thursday:rocket:" → "by Thursday."), else a space.
    Left out with nothing in their place, they had run the two into one sentence that no rule read as a
    promise, or left a sentence its writer ended looking broken off."""
    return _EMOJI_RUN.sub(_in_place_of_codes, text)


def _in_place_of_codes(m: re.Match[str]) -> str:
    before, after = m.string[: m.start()].rstrip(), m.string[m.end() :].lstrip(" \t")
    if before and after[:1] in ("", "\n", "\r"):
        # The writer's last mark: the sentence it closes gets the stop it would have had (as a pictograph's).
        line = before.rsplit("\n", 1)[-1]
        ended = end_message(line)
        return ended[len(line) :] if line and ended.startswith(line) else ""
    after = after.lstrip()
    if before and after[:1].isupper() and before[-1] not in ".!?…,;:([{\"'“‘-–—":
        return ". "
    return " "
