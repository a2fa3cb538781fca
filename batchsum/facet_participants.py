"""Who took part in a conversation, each once, as its facets list them (:mod:`batchsum.facets`).

A speaker label with a riding or a role in brackets ("Hon. Andrew Scheer (Leader of the Opposition)") is the
person its bare label ("Hon. Andrew Scheer") is, when that bare label speaks too; a transcriber's
placeholder ("Unknown Speaker", "Speaker 2", "SPEAKER_00", "Speaker A") names no one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["named_participants"]

# A transcriber's stand-in for a voice it could not name ("Unknown Speaker", "Speaker 2", "spk_1") names no one.
# WhisperX writes "SPEAKER_00", AssemblyAI "Speaker A": a number or a single capital letter after the word.
_PLACEHOLDER = re.compile(
    r"(?i:unknown(?: speaker)?|spk_?\d+)|(?i:speaker|participant|guest|attendee|caller)[ _]?(?:\d+|[A-Z])"
)


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
    person its bare label is when that bare label speaks too, shown in its fullest form where it first
    speaks; placeholders name no one."""
    # Only a bare label that speaks itself ties its bracketed forms together: "The Acting Speaker (Mrs. Carol
    # Hughes)" and "The Acting Speaker (Mr. Anthony Rota)" are two people sharing a role.
    bare = {label.strip().casefold() for label in speakers if _bare_label(label.strip()) == label.strip()}
    fullest: dict[str, str] = {}
    for label in speakers:
        if _PLACEHOLDER.fullmatch(label.strip()):
            continue
        key = _bare_label(label.strip()).casefold()
        if key not in bare:
            key = label.strip().casefold()
        if len(label) > len(fullest.get(key, "")):
            fullest[key] = label
    return list(fullest.values())
