"""The Markdown of note-taking apps (Obsidian, Logseq) and a page's YAML front matter, as its reader sees it.

A vault's notes are Markdown with more marks than CommonMark: wikilinks (``[[Page|alias]]`` reads
"alias"), embeds (``![[diagram.png]]``, shown as the thing embedded), hidden comments (``%%...%%``,
never shown: people keep private asides there), highlights (``==text==``), footnotes (``[^1]``),
callouts (``> [!note] Title``), tags (``#idea``, ``#[[tag with spaces]]``), and in Logseq block
properties (``type:: decision``), block references (``((uuid))``), macros (``{{embed ...}}``,
``{{query ...}}``), query blocks (``#+BEGIN_QUERY``), scheduling lines and logbooks. A task's box
(``- [ ]``, ``- [x]``, Logseq's ``TODO``/``DONE``) is shown as the box it renders as: ☐ or ☑.

Without this, their marks were summary and snippet text ("Kick-off for [[Project Alpha]] with
[[Ana Ribeiro|Ana]]"), and a hidden comment about a colleague became a day's summary.
"""

from __future__ import annotations

import re

__all__ = ["TASK_BOXES", "note_syntax_as_text"]

OPEN_BOX, DONE_BOX = "☐", "☑"
TASK_BOXES = (OPEN_BOX, DONE_BOX)

# Front matter: "---" on the first line, "key: value" lines, "---" (or "...") within 60 lines.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n((?:[^\n]*\n){0,60}?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_YAML_KEY = re.compile(r"^[\w-]+:(?:\s|$)", re.M)
_HIDDEN_COMMENT = re.compile(r"%%.*?%%", re.S)
_EMBED = re.compile(r"!\[\[[^\]\n]*\]\]")
_TAG_LINK = re.compile(r"(?<!\S)#\[\[([^\]\n]*)\]\]")
_WIKILINK = re.compile(r"\[\[([^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]")
# Not DialogSum's "#Person1#:" (a closing mark), a heading ("# Title"), "C#", "page#part" or "#42".
_HASHTAG = re.compile(r"(?<![\w#&/])#(?=[^\W\d_])([\w/-]+)(?![\w/#-])")
_HIGHLIGHT = re.compile(r"==(?=\S)([^=\n]+?)(?<=\S)==")
_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^[^\]\s]+\]:[^\n]*$", re.M)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_CALLOUT = re.compile(r"^([ \t]*>[ \t]*)\[![\w-]+\][+-]?[ \t]*", re.M)
# Logseq's "type:: decision" (its keys are lower case; Rust's "String::from" or "std::io" is no property).
_PROPERTY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?[a-z][\w-]*::(?:[ \t][^\n]*)?$", re.M)
_BLOCK_REF = re.compile(r"\(\(\s*[0-9a-fA-F-]{8,}\s*\)\)")
_MACRO = re.compile(r"\{\{[^\n]*?\}\}")
_BLOCK = re.compile(r"^[ \t]*(?:[-*][ \t]+)?#\+BEGIN_(\w+)\b.*?^[ \t]*#\+END_\1[ \t]*$", re.S | re.M | re.I)
_LOGBOOK = re.compile(r"^[ \t]*:LOGBOOK:[ \t]*\n.*?^[ \t]*:END:[ \t]*$", re.S | re.M)
# Logseq's "SCHEDULED: <2024-03-15 Fri>" on the line under its task: the task's date, on its line.
_SCHEDULED = re.compile(r"(?:\n[ \t]*|[ \t]+)(?:SCHEDULED|DEADLINE):[ \t]*<(\d{4}-\d{2}-\d{2})[^>\n]*>[ \t]*(?=\n|$)")
_EMPTY_BULLET = re.compile(r"^[ \t]*[-*+][ \t]*$", re.M)  # an item whose embed or macro is gone
_BULLET_HEADING = re.compile(r"^([ \t]*)[-*][ \t]+(?=#{1,6}[ \t])", re.M)  # Logseq's "- ## Overview"
_BOX = re.compile(r"^([ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+)\[([ xX])\][ \t]+", re.M)
_MARKER = re.compile(
    r"^([ \t]*[-*+][ \t]+)(?:TODO|LATER|NOW|DOING|WAITING|DONE|CANCELED|CANCELLED)(?=[ \t])[ \t]*", re.M
)


_ANY_MARKER = re.compile(r"\b(?:TODO|LATER|NOW|DOING|WAITING|DONE|CANCEL)")


def _blank(m: re.Match[str]) -> str:
    return "\n" * m.group(0).count("\n")


def _box(m: re.Match[str]) -> str:
    return f"{m.group(1)}{OPEN_BOX if m.group(2) == ' ' else DONE_BOX} "


def _marker(m: re.Match[str]) -> str:
    done = m.group(0).strip(" \t-*+").startswith(("DONE", "CANCEL"))
    return f"{m.group(1)}{DONE_BOX if done else OPEN_BOX} "


def note_syntax_as_text(text: str) -> str:
    """``text`` without its front matter and with note-app marks as their reader sees them (module
    docstring). A removed block leaves its line breaks, so paragraphs stay where they were; text
    without any of the marks comes back as it is (each pass runs only where its mark occurs)."""
    if text.startswith("---"):
        front = _FRONT_MATTER.match(text)
        if front and _YAML_KEY.search(front.group(1)):
            text = _blank(front) + text[front.end() :]
    if "%%" in text:
        text = _HIDDEN_COMMENT.sub(_blank, text)
    if "#+" in text:
        text = _BLOCK.sub(_blank, text)
    if ":LOGBOOK:" in text:
        text = _LOGBOOK.sub(_blank, text)
    if "::" in text:
        text = _PROPERTY.sub("", text)
    emptied = "{{" in text or "((" in text or "![[" in text
    if "{{" in text:
        text = _MACRO.sub("", text)
    if "((" in text:
        text = _BLOCK_REF.sub("", text)
    if "[[" in text:
        text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), _TAG_LINK.sub(r"\1", _EMBED.sub("", text)))
    if emptied:
        text = _EMPTY_BULLET.sub("", text)
    if "#" in text:
        text = _HASHTAG.sub(r"\1", _BULLET_HEADING.sub(r"\1", text))
    if "==" in text:
        text = _HIGHLIGHT.sub(r"\1", text)
    if "[^" in text:
        text = _FOOTNOTE_REF.sub("", _FOOTNOTE_DEF.sub("", text))
    if "[!" in text:
        text = _CALLOUT.sub(r"\1", text)
    if "SCHEDULED:" in text or "DEADLINE:" in text:
        text = _SCHEDULED.sub(lambda m: f" 📅 {m.group(1)}", text)
    if "[" in text:
        text = _BOX.sub(_box, text)
    return _MARKER.sub(_marker, text) if _ANY_MARKER.search(text) else text
