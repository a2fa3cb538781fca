"""Screenplays: a character's cue over its dialogue (the Fountain format's Character element), and whether a
text is one, by the one rule type detection (walk.detect_type), the reader of notes and the index share."""

from __future__ import annotations

import functools
import re

from batchsum.message_ends import BACKCHANNELS

__all__ = ["SCENE", "is_screenplay", "screenplay_cues", "screenplay_turn"]

# A screenplay's character cue (the Fountain format's Character element, https://fountain.io/syntax): a
# name in capitals on a line of its own, perhaps with an extension ("JOHN (O.S.)", "MARY (CONT'D)"), the
# dialogue on the lines right under it. Scene headings ("INT. KITCHEN - NIGHT") are not cues.
_CUE = re.compile(r"[ \t]*([A-Z][A-Z0-9 .'’&-]{0,40}?)[ \t]*(?:\([^()\n]{1,20}\))?[ \t]*")
SCENE = re.compile(r"(?:INT|EXT|EST|I/E)[./ ]")


def screenplay_turn(paragraph: str) -> tuple[str, str] | None:
    """``(speaker, dialogue)`` when ``paragraph`` is a screenplay cue with the dialogue under it, else None.

    The cue is at most four words; the dialogue has lower-case letters (not a second line of
    capitals), and its parenthetical directions ("(beat)") are left out."""
    lines = [ln for ln in paragraph.split("\n") if ln.strip()]
    if len(lines) < 2:
        return None
    m = _CUE.fullmatch(lines[0])
    name = m.group(1).strip() if m is not None else ""
    if not any(c.isalpha() for c in name) or SCENE.match(name) or len(name.split()) > 4:
        return None
    if name.lower() in BACKCHANNELS:  # "OK" or "YES" said on a line of its own is no one's name
        return None
    said = " ".join(ln.strip() for ln in lines[1:] if not (ln.strip().startswith("(") and ln.strip().endswith(")")))
    if not any(c.islower() for c in said):
        return None
    return name, said


_PARAGRAPHS = re.compile(r"\n\s*\n")
SAMPLE = 20_000  # characters of a text's opening the rule reads, as type detection reads them
_CUES, _SHARE = 4, 0.3  # at least 4 cues with their dialogue, 3 in 10 of the sample's paragraphs


def screenplay_cues(text: str) -> tuple[int, int] | None:
    """(cues, paragraphs) of ``text``'s opening when it reads as a screenplay: four cues or more
    (:func:`screenplay_turn`), three in ten of its paragraphs; else None."""
    paragraphs = [p for p in _PARAGRAPHS.split(text[:SAMPLE]) if p.strip()]
    cues = sum(1 for p in paragraphs if screenplay_turn(p) is not None)
    return (cues, len(paragraphs)) if cues >= _CUES and cues >= _SHARE * len(paragraphs) else None


@functools.lru_cache(maxsize=16)  # the index asks of each window of one text
def is_screenplay(text: str) -> bool:
    """Whether ``text`` reads as a screenplay (:func:`screenplay_cues`)."""
    return screenplay_cues(text) is not None
