"""What a folder's name says its files are: `journal/`, `diaries/`, `Weekly/` hold journals, `team-meetings/`,
`calls/` conversations (a step of :func:`batchsum.walk.detect_type`)."""

from __future__ import annotations

import re

from batchsum.model import ContentType

__all__ = ["folder_kind"]

# Folder names that say what their files are. A name's words are matched whole (singular or plural), so
# "dialogsum", "blog" and "catalog" are not logs and "recall" is no call; a long word may also open or end
# a compound ("meetingnotes", "workjournal").
_JOURNAL_FOLDER_WORDS = frozenset({"journal", "diary", "diaries", "daily", "dailies", "weekly", "log", "logbook"})
_CONVERSATION_FOLDER_WORDS = frozenset({"meeting", "transcript", "chat", "conversation", "call", "interview"})
_COMPOUND_MIN = 7  # letters: "journal", "meeting" and longer open or end a compound word


def _folder_words(name: str) -> set[str]:
    """The keywords a folder name holds: its words, singular ("team-meetings": {"meeting"}), and the long
    keywords a compound word opens or ends with ("meetingNotes", "workjournals")."""
    out: set[str] = set()
    for word in re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower()):
        stem = word[:-1] if word.endswith("s") else word
        out.update(form for form in (word, stem) if form in _FOLDER_KEYWORDS)
        out.update(k for k in _FOLDER_KEYWORDS if len(k) >= _COMPOUND_MIN and (stem.startswith(k) or stem.endswith(k)))
    return out


_FOLDER_KEYWORDS = _JOURNAL_FOLDER_WORDS | _CONVERSATION_FOLDER_WORDS


def folder_kind(name: str) -> ContentType | None:
    """The content type the folder name ``name`` says its files have, or None."""
    words = _folder_words(name)
    if words & _CONVERSATION_FOLDER_WORDS:  # "weekly-meetings", "Daily Calls": the noun says what they are
        return "conversation"
    return "journal" if words & _JOURNAL_FOLDER_WORDS else None
