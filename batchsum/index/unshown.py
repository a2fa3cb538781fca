"""What a note app's page never shows of its Markdown, blanked character for character for the index.

A vault's note holds text its page never shows, some of it private by intent: Obsidian's comments
(``%%...%%`` inline, or a block between ``%%`` lines, blank lines and all), and the code of what a page
shows only as results: Logseq's query blocks (``#+BEGIN_QUERY``) and macros (``{{query ...}}``,
``{{embed ...}}``), Dataview's, Obsidian search's and Tasks' blocks (```` ```dataview ````) and Dataview's
inline queries (`` `= this.file.name` ``), Logseq's block ids (``id:: <uuid>``, ``collapsed:: true``),
block references (``((<uuid>))``) and Org's and Logseq's drawers (``:PROPERTIES:`` ... ``:END:``), and mdBook's
directives (``{{#include ../listings/src/main.rs}}``, ``{{#rustdoc_include ...}}``, ``{{#playground ...}}``,
``{{#title ...}}``), which the rendered page replaces by the file they name or leaves out. The
summarizer leaves them out (:mod:`batchsum.readers.note_syntax`); indexed, a note had matched at 1.000 on the words
of a comment its page never shows. What a page does show stays: text, code, a property's value, a wikilink,
an embed's name.
"""

from __future__ import annotations

import bisect
import re

from batchsum.readers.note_syntax import DRAWER, MDBOOK_DIRECTIVE, draft_marks_blanked

# A comment opens with "%%" after no word and closes with the next "%%" before no word (Jupyter's
# "%%timeit", printf's "'%d%%'" are none, nor "%%" in inline code). Like the summarizer
# (:mod:`batchsum.readers.note_syntax`) one that opens inside a line ends within its paragraph; one that opens on a
# line of its own may span paragraphs (Obsidian's own example of a comment block).
_COMMENT_OPEN = re.compile(r"(?<![\w%`])%%(?!%)")
_COMMENT_CLOSE = re.compile(r"(?<!%)%%(?![\w%`])")
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")
_LINE_END = re.compile(r"[ \t]*(?:\r?\n|\Z)")
_INLINE_MAX = 4000  # characters an inline comment spans at most (as the summarizer's)
_INLINE_CODE = re.compile(r"(`+)[^`\n]+?\1")
_QUERY_OPEN = re.compile(r"^[ \t]*(?:[-*][ \t]+)?#\+BEGIN_QUERY\b[^\n]*", re.M | re.I)
_QUERY_CLOSE = re.compile(r"^[ \t]*#\+END_QUERY\b[^\n]*", re.M | re.I)
_MACRO = re.compile(
    r"\{\{(?:embed|query|renderer|video|youtube|tweet|twitter|pdf|cloze|namespace|function|zotero|contents|"
    r"tutorial|bilibili|vimeo|tiktok)\b[^{}\n]*\}\}"
)
_RESULTS_FENCE = re.compile(r"^[ \t]*```[ \t]*(?:dataview|dataviewjs|query|tasks)[ \t]*$", re.M | re.I)
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.M)
_INLINE_QUERY = re.compile(r"`\$?=[^`\n]+`")
_HIDDEN_PROPERTY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:id|collapsed)::[^\n]*", re.M)
_BLOCK_REF = re.compile(r"\(\(\s*[0-9a-fA-F-]{8,}\s*\)\)")


def _blank(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _paired_blocks(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> str:
    """``text`` with each block from a line ``opener`` matches to the next ``closer`` match after it blanked;
    an unclosed block stays (it is no block the page hides). One pass: each search starts where the last ended."""
    out: list[str] = []
    pos = 0
    while (begin := opener.search(text, pos)) and (end := closer.search(text, begin.end())):
        out += [text[pos : begin.start()], re.sub(r"[^\n]", " ", text[begin.start() : end.end()])]
        pos = end.end()
    return "".join([*out, text[pos:]]) if out else text


def _own_line(text: str, opening: re.Match[str]) -> bool:
    """Whether the "%%" ``opening`` matched is a line of its own (a comment block's opener)."""
    i = opening.start()
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return (i == 0 or text[i - 1] == "\n") and _LINE_END.match(text, opening.end()) is not None


def _comments(text: str) -> str:
    """``text`` with its comments blanked. One pass: each opener pairs with the next closer after it."""
    code = [m.span() for m in _INLINE_CODE.finditer(text)] if "`" in text else []
    spans: list[tuple[int, int]] = []
    pos = 0
    close: re.Match[str] | None = None
    while opening := _COMMENT_OPEN.search(text, pos):
        pos = opening.end()
        k = bisect.bisect_right(code, (opening.start(), len(text))) - 1
        if k >= 0 and code[k][0] <= opening.start() < code[k][1]:
            continue
        if close is None or close.start() < opening.end():
            close = _COMMENT_CLOSE.search(text, opening.end())
            if close is None:
                break  # unclosed: shown as it is
        if not _own_line(text, opening) and (
            close.start() - opening.end() > _INLINE_MAX or _PARAGRAPH_END.search(text, opening.end(), close.start())
        ):
            continue
        spans.append((opening.start(), close.end()))
        pos = close.end()
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        out += [text[last:start], re.sub(r"[^\n]", " ", text[start:end])]
        last = end
    return "".join([*out, text[last:]])


def mdbook_directives_blanked(text: str) -> str:
    """``text`` with mdBook's directives (``{{#include ...}}``) blanked, line breaks and offsets unchanged."""
    # Indexed, "listing 10-14" had found a chapter by an include path's words alone.
    return MDBOOK_DIRECTIVE.sub(_blank, text) if "{{#" in text else text


def unshown_note_marks(text: str) -> str:
    """``text`` with what a note app's page never shows blanked out (module docstring), line breaks and
    offsets unchanged; text without any of the marks comes back as it is."""
    if "%%" in text:
        text = _comments(text)
    if "#+" in text:
        text = _paired_blocks(text, _QUERY_OPEN, _QUERY_CLOSE)
    if "{{" in text:
        text = mdbook_directives_blanked(_MACRO.sub(_blank, text))
    if "```" in text:
        text = _paired_blocks(text, _RESULTS_FENCE, _FENCE_CLOSE)
    if "`" in text:
        text = _INLINE_QUERY.sub(_blank, text)
    if "::" in text:
        text = _HIDDEN_PROPERTY.sub(_blank, text)
    if "((" in text:
        text = _BLOCK_REF.sub(_blank, text)
    if ":END:" in text:  # an Org or Logseq drawer (":PROPERTIES:" ... ":END:"), folded away on the page
        text = DRAWER.sub(_blank, text)
    return draft_marks_blanked(text)  # a draft's deletions, comments and boneyard: no more shown than these
