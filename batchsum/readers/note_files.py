"""A text file's own shapes, read before it is classified: a note-taking app's files beside the notes
(:func:`app_file`), chat lines or bracketed speakers below a note's front matter (:func:`chat_below_front_matter`)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from batchsum.readers.bracket_turns import bracketed_turns
from batchsum.readers.chat_lines import ChatExport, render_chat_lines
from batchsum.readers.note_syntax import front_matter

__all__ = ["app_file", "chat_below_front_matter"]


# What a note-taking app keeps beside the notes: a template (a "{{date}}" placeholder in a templates
# folder, or Templater's "<% tp.date.now() %>" anywhere), a drawing (Obsidian's Excalidraw plugin),
# Logseq's backups of pages it has since saved again. A note that mentions "{{title}}" is still a note.
_PLACEHOLDER = re.compile(r"\{\{(?:date|time|title)\b[^{}\n]*\}\}")
_TEMPLATER = re.compile(r"<%[*_-]?\s*tp\.")
_EXCALIDRAW = re.compile(r"\A---[ \t]*\n(?:[^\n]*\n){0,20}?excalidraw-plugin:", re.M)
_TEMPLATE_FOLDERS = frozenset({"templates", "template", "_templates"})


def app_file(relpath: str, text: str) -> str | None:
    """Why a Markdown file is a note-taking app's own file, not a note; None for a note."""
    parts = Path(relpath).parts
    if any(a == "logseq" and b in ("bak", "version-files") for a, b in itertools.pairwise(parts)):
        return "a Logseq backup of a page"
    if text.startswith("---") and _EXCALIDRAW.match(text):
        return "an Excalidraw drawing"
    if "<%" in text and _TEMPLATER.search(text):
        return "a Templater template (<% tp. %>)"
    if "{{" in text and any(p.lower() in _TEMPLATE_FOLDERS for p in parts[:-1]):
        placeholder = _PLACEHOLDER.search(text)
        if placeholder is not None:
            return f"a note template ({placeholder.group(0)} in a templates folder)"
    return None


def _turns(text: str) -> ChatExport | None:
    """``text`` as turns: a chat or transcript export (:func:`render_chat_lines`), or speakers named in
    brackets (:func:`~batchsum.readers.bracket_turns.bracketed_turns`: "[SPEAKER_00]: ...", "[Maya] ...")."""
    export = render_chat_lines(text)
    if export is not None:
        return export
    turns = bracketed_turns(text)
    return None if turns is None else ChatExport(turns, "bracketed speaker names")


def chat_below_front_matter(text: str) -> ChatExport | None:
    """The turns (:func:`_turns`) of what a note's front matter (:func:`front_matter`) heads, the block kept
    above the turns as it was: rewritten with them, its lines had joined into one line of text
    ("--- title: Sync date: 2024-03-14 ---") that no reader took for front matter, so it was summarized
    and its date never read."""
    if text.startswith("---") and "\r" in text[:4096]:
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # the fence rule reads "\n" line ends
    front = front_matter(text) if text.startswith("---") else None
    if front is None:
        return _turns(text)
    export = _turns(text[front.end() :])
    if export is None:
        return None
    return ChatExport(f"{text[: front.end()].rstrip()}\n\n{export.text}", export.format, export.first_day)
