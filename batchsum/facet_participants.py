"""Who took part in a conversation, each once, as its facets list them (:mod:`batchsum.facets`).

A speaker label with a riding or a role in brackets ("Hon. Andrew Scheer (Leader of the Opposition)") is the
person its bare label ("Hon. Andrew Scheer") is; a transcriber's placeholder ("Unknown Speaker", "Speaker 2")
names no one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["named_participants"]

# A transcriber's stand-in for a voice it could not name ("Unknown Speaker", "Speaker 2", "spk_1") names no one.
_PLACEHOLDER = re.compile(r"unknown(?: speaker)?|(?:speaker|participant|guest|attendee|caller) ?\d+|spk_?\d+", re.I)


def _bare_label(label: str) -> str:
    """``label`` without a trailing parenthetical, nested ones too: "The Chair" of "The Chair (Hon. Anthony
    Rota (Nipissing, Lib.))"."""
    depth = 0
    for i in range(len(label) - 1, -1, -1) if label.endswith(")") else ():
        depth += {")": 1, "(": -1}.get(label[i], 0)
        if depth == 0:
            return label[:i].strip() or label
    return label


def named_participants(speakers: Sequence[str]) -> list[str]:
    """The people among ``speakers`` (labels), each once: a label with its riding or role in brackets is the
    person its bare label is, shown in its fullest form where it first speaks; placeholders name no one."""
    fullest: dict[str, str] = {}
    for label in speakers:
        if _PLACEHOLDER.fullmatch(label.strip()):
            continue
        key = _bare_label(label).casefold()
        if len(label) > len(fullest.get(key, "")):
            fullest[key] = label
    return list(fullest.values())
