"""The Markdown of note-taking apps (Obsidian, Logseq) and a page's YAML front matter, as its reader sees it.

A vault's notes are Markdown with more marks than CommonMark: wikilinks (``[[Page|alias]]`` reads
"alias"), embeds (``![[diagram.png]]``, shown as the thing embedded), hidden comments (``%%...%%``,
never shown: people keep private asides there; HTML's ``<!-- -->`` neither), struck words (``~~old~~``, gone),
highlights (``==text==``), footnotes (``[^1]``, inline
``^[...]``), block ids (`` ^abc123``), callouts (``> [!note] Title``), tags (``#idea``,
``#[[tag with spaces]]``; in a speaker's turn "#general" is as typed), and in Logseq block properties
(``type:: decision``), block references (``((uuid))``), macros (``{{embed ...}}``, ``{{query ...}}``),
query blocks (``#+BEGIN_QUERY``), scheduling lines and drawers (``:LOGBOOK:``, ``:PROPERTIES:``). A
task's box (``- [ ]``, ``- [x]``, Logseq's ``TODO``/``DONE``) is shown as the box it renders as: ☐ or ☑; a
task with no words is left out.

Without this, their marks were summary and snippet text ("Kick-off for [[Project Alpha]] with
[[Ana Ribeiro|Ana]]"), and a hidden comment about a colleague became a day's summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from batchsum.readers.screenplay import is_screenplay
from batchsum.speaker_labels import is_turn, parse_speaker_line

__all__ = [
    "MDBOOK_DIRECTIVE",
    "TASK_BOXES",
    "code_blocks",
    "draft_marks_blanked",
    "fenced_block",
    "fix_outside",
    "fix_outside_code",
    "front_matter",
    "front_matter_problem",
    "note_syntax_as_text",
    "outside_code",
    "without_data_uris",
    "without_html_comments",
]

OPEN_BOX, DONE_BOX = "☐", "☑"
TASK_BOXES = (OPEN_BOX, DONE_BOX)

# Front matter: "---" on the first line, then only YAML (lower-case "key: value" lines, list items,
# indented continuations; a script's "Ana: Hello" is no key), then "---" (or "...") however many lines below: a
# year digest's list of finals runs to hundreds (a bound of 60 had left its tail as the digest's text). Each
# line is tried once for the closing fence: linear in the block's length.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n((?:[^\n]*\n)*?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_YAML_LINE = re.compile(r"[a-z_][\w-]*:(?:\s.*)?|[ \t]+\S.*|-\s.*|\s*|#.*")
# Front matter never closed ("---", "date: 2025-06-01", "tags: [daily]", a blank line, the note): the YAML
# lines under the opening fence, up to the first line that is none (a blank line, the text). At least one
# is a key; a comment or a heading ("# Title") ends it.
_UNCLOSED_FRONT_MATTER = re.compile(
    r"\A---[ \t]*\n((?=[a-z_][\w-]*:)(?:(?:[a-z_][\w-]*:(?:[ \t][^\n]*)?|[ \t]+\S[^\n]*|-[ \t][^\n]*)(?:\n|\Z))+)"
)
# An Obsidian comment: "%%" after no word, closed within its paragraph by a "%%" before no word
# (Jupyter's "%%timeit" and "%%bash", printf's "'%d%%'", a batch file's "%%f" are none). Its body never
# holds "%%", so each opener stops at the next one.
_COMMENT_BLOCK = re.compile(r"^[ \t]*%%[ \t]*\n(?:.*\n)*?[ \t]*%%[ \t]*$", re.M)
_HIDDEN_COMMENT = re.compile(r"(?<![\w%])%%(?:[^%\n]|%(?!%)|\n(?![ \t]*\n)){1,4000}?%%(?![\w%])")
# Bodies exclude the opener's own brackets: an unclosed "[[" then stops at the next one (an 80 KB line
# of "[" had taken minutes).
_EMBED = re.compile(r"!\[\[[^\[\]\n]*\]\]")
_TAG_LINK = re.compile(r"(?<!\S)#\[\[([^\[\]\n]*)\]\]")
# "[[Page]]", "[[Page|alias]]", "[[Page#Heading]]", "[[#Heading]]"; not a shell test "[[ -f x ]]".
_WIKILINK = re.compile(r"\[\[(?=[^\s\[\]])([^\[\]|#\n]*)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?(?<=\S)\]\]")
# Not DialogSum's "#Person1#:" (a closing mark), a heading ("# Title"), "C#", "page#part", "#42", a
# colour ("#ffcc00") or a C preprocessor line ("#include").
_HASHTAG = re.compile(
    r"(?<![\w#&/])#(?![0-9a-fA-F]{3,8}\b|(?:include|define|ifdef|ifndef|endif|pragma|import)\b)"
    r"(?=[^\W\d_])([\w/-]+)(?![\w/#-])"
)
_HIGHLIGHT = re.compile(r"(?<![\w=])==(?=[^\s=])([^=\n]{1,300}?)(?<=[^\s=])==(?![\w=])")  # not "a==b"
# Strikethrough (GFM's "~~Piranesi~~"): words the writer struck out, read as gone as CriticMarkup's deletion is
# (the blanks before it too, tried from a run's first only: 30,000 spaces took seconds); not a fence's "~~~", nor
# "~~" with a space inside its marks.
_STRUCK = re.compile(r"(?<![ \t])[ \t]*(?<!~)~~(?=[^\s~])(?:[^~\n]|~(?!~)){0,300}?(?<=[^\s~])~~(?!~)")
_AFTER_COMMENT = re.compile(r"[ \t]*\n?")
_CLOSING, _OPENING = frozenset(".,;:!?)]}»”’…%"), frozenset("([{«“‘")
_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^[^\[\]\s]+\]:[^\n]*$", re.M)
_FOOTNOTE_REF = re.compile(r"\[\^[^\[\]\s]+\]")
# An inline footnote, "Ana^[She runs the pipeline.]": its body is a footnote's, left out as "[^1]: ..." is (one
# level of brackets inside it, a link's). Not "2^10" nor "x^2".
_INLINE_FOOTNOTE = re.compile(r"\^\[(?:[^\[\]\n]|\[[^\[\]\n]*\]){0,2000}\]")
# Obsidian's block id, " ^abc123" at a line's end (or alone on its line): a link target, never shown.
_BLOCK_ID = re.compile(r"(?:(?<![ \t])[ \t]+|^[ \t]*)\^[A-Za-z0-9-]+[ \t]*$", re.M)  # a run of blanks tried once
# A callout: its first line (its type, then its title, a heading of what the callout holds), then its
# body, the blockquote lines under it. The body reads as text: its "> " marks are the box it is drawn in.
_CALLOUT = re.compile(r"^[ \t]*>[ \t]*\[![\w-]+\][+-]?[ \t]*([^\n]*)$((?:\n[ \t]*>[^\n]*)*)", re.M)
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.M)  # one level of a blockquote's marks
# A line of tags alone ("#person #work") files the note: a heading of its words, found by a search but
# never a summary's sentence ("... co-writing the Lisbon talk. person work She is ..."); inline tags are words.
_TAGS_LINE = re.compile(r"^[ \t]*(?:#[^\W\d_][\w/-]*[ \t,]*)+$", re.M)
# Tags after a line's last sentence ("... running k3s. #homelab #kubernetes") file that line, not what
# follows: left out (as words they had joined the sentence, "running k3s. homelab kubernetes"; as a heading
# they labelled the next block, "homelab: Node one has ..."). The index still finds them in the source.
_TRAILING_TAGS = re.compile(r"(?<=[.!?])[ \t]+((?:#[^\W\d_][\w/-]*[ \t]*)+)$", re.M)
# Logseq's "type:: decision" (its keys are lower case; Rust's "String::from" or "std::io" is no property).
_PROPERTY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?[a-z][\w-]*::(?:[ \t][^\n]*)?$", re.M)
_BLOCK_REF = re.compile(r"\(\(\s*[0-9a-fA-F-]{8,}\s*\)\)")
# Logseq's macros ("{{embed [[page]]}}", "{{query (todo later)}}"), not a template's "{{ page.title }}".
_MACRO = re.compile(
    r"\{\{(?:embed|query|renderer|video|youtube|tweet|twitter|pdf|cloze|namespace|function|zotero|contents|"
    r"tutorial|bilibili|vimeo|tiktok)\b[^{}\n]*\}\}"
)
# Logseq's (Org's) blocks: a query's or code's is left out, a quote's or a note's keeps its text.
_BLOCK_MARK = re.compile(r"^[ \t]*(?:[-*][ \t]+)?#\+(BEGIN|END)_(\w+)\b[^\n]*$", re.M | re.I)
_LEFT_OUT_BLOCKS = frozenset({"QUERY", "SRC"})
# Org's (Logseq's) drawers, ":PROPERTIES:", ":LOGBOOK:" or any name in capitals, up to ":END:": a task's
# metadata, folded away on its page (a contact's address under a task had been read as its words).
DRAWER = re.compile(r"^[ \t]*:[A-Z][A-Z_-]*:[ \t]*\n(?:(?![ \t]*:END:)[^\n]*\n){0,200}[ \t]*:END:[ \t]*$", re.M)
# Logseq's "SCHEDULED: <2024-03-15 Fri>" on the line under its task: the task's date, on its line, as the
# Tasks plugin marks it: a DEADLINE is its due date (📅), a SCHEDULED date when to work on it (⏳), never a due one.
_PLANNED = {"SCHEDULED": "⏳", "DEADLINE": "📅"}
_SCHEDULED = re.compile(
    r"(?:\n[ \t]*|(?<![ \t])[ \t]+)(SCHEDULED|DEADLINE):[ \t]*<(\d{4}-\d{2}-\d{2})[^>\n]*>[ \t]*(?=\n|$)"
)
_EMPTY_BULLET = re.compile(r"^[ \t]*[-*+][ \t]*$", re.M)  # an item whose embed or macro is gone
# A data: URI (RFC 2397) carries a file's bytes in the text (an image pasted into a note is a megabyte of
# base64): no reader of the note reads it. Its media type and parameters, then its data, up to what ends a URL.
_DATA_URI = r"(?<![\w.+-])data:(?:[\w.+-]+/[\w.+-]+)?(?:;[\w.+-]+(?:=[^;,\s()<>\"']*)?)*,[^\s()<>\"']*+"
# A Markdown image or link to one, its title too; an <img> of one; a reference definition naming one; and any
# other base64 one (in an HTML attribute, pasted bare).
_DATA_LINK = re.compile(
    rf"(!?)\[([^\[\]\n]*)\]\([ \t]*(?:<{_DATA_URI}>|{_DATA_URI})(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)",
    re.I,
)
_DATA_IMG = re.compile(r"<img\b[^<>]*?[\s\"'=]data:[^<>]*>", re.I)
_DATA_DEF = re.compile(rf"^[ \t]{{0,3}}\[[^\[\]\n]+\]:[ \t]*<?{_DATA_URI}>?[^\n]*$", re.M | re.I)
# Its media type and parameters hold no ":": a scan from one "data:" stops at the next (a line of 8,000 "data:"
# had been scanned to its end from each, back and forth for ";base64,", for seconds).
_BASE64_URI = re.compile(r"(?<![\w.+-])data:[^\s,;:()<>\"']*(?:;[^\s,;:()<>\"']*)*;base64,[\w+/=%-]*+", re.I)
_DATA_MARK = re.compile("data:", re.I)
# Logseq's "- ## Overview"; not "- # of users".
_BULLET_HEADING = re.compile(r"^([ \t]*)[-*][ \t]+(?=#{2,6}[ \t]|#[ \t]+[A-Z])", re.M)
# Logseq's task markers but "NOW" (:data:`_NOW`).
_TASK_MARKERS = r"TODO|LATER|DOING|WAITING|DONE|CANCELED|CANCELLED"
# A task with no words (a daily template's "- [ ]", "- TODO"): nothing to do, left out as an empty bullet is
# (its box had been a digest's text, "... with a banner. [ ].", and an action item "☐").
_EMPTY_TASK = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\]|[☐☑])"
    rf"|[-*+][ \t]+(?:{_TASK_MARKERS}))[ \t]*$",
    re.M,
)
_EMPTY_NOW = re.compile(r"^[ \t]*[-*+][ \t]+NOW[ \t]*$", re.M)
_BOX = re.compile(r"^([ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+)\[([ xX])\][ \t]+", re.M)
# Logseq's task markers. "NOW" (its now/later workflow's "DOING") is an English word: a marker only in a
# Logseq page (another marker, or a "key:: value" property, :data:`_LOGSEQ`) and before a word that is not lower
# case: "- NOW Call the plumber" is a task, "- NOW is the time to act" and a note's "- NOW I see why" prose.
_NOW = r"NOW(?=[ \t]+(?![a-z]))"
_MARKER = re.compile(rf"^([ \t]*[-*+][ \t]+)(?:{_TASK_MARKERS})(?=[ \t])[ \t]*", re.M)
_NOW_MARKER = re.compile(rf"^([ \t]*[-*+][ \t]+){_NOW}[ \t]*", re.M)
_LOGSEQ = re.compile(
    rf"^[ \t]*[-*+][ \t]+(?:{_TASK_MARKERS})(?=[ \t]|$)|^[ \t]*(?:[-*][ \t]+)?[a-z][\w-]*::[ \t]", re.M
)
_ANY_MARKER = re.compile(r"\b(?:TODO|LATER|NOW|DOING|WAITING|DONE|CANCEL)")
_INLINE_CODE = re.compile(r"(`+)[^`\n]+?\1")
# Dataview's inline fields in running text, "[mood:: rested]" and "(mood:: rested)": read as their value
# ("woke up feeling rested"); a line "mood:: rested" of its own is a property (_PROPERTY). Its key is one word
# right before "::" and a space follows: C++'s "(std::string)" and Rust's "(see Foo::bar)" are no field.
_INLINE_FIELD = re.compile(
    r"\[[ \t]*\w[\w-]{0,40}::[ \t]+([^\[\]\n]*?)[ \t]*\]|\([ \t]*\w[\w-]{0,40}::[ \t]+([^()\n]*?)[ \t]*\)"
)
# CriticMarkup (https://fullystacked.github.io/CriticMarkup/), read as accepted: an insertion is text, a
# deletion and a comment are gone, a substitution is its new text, a highlight its text. Within a paragraph.
_CRITIC = re.compile(
    r"\{(?:\+\+(?P<ins>(?:[^\n]|\n(?![ \t]*\n)){0,4000}?)\+\+"
    r"|--(?:[^\n]|\n(?![ \t]*\n)){0,4000}?--"
    r"|>>(?:[^\n]|\n(?![ \t]*\n)){0,4000}?<<"
    r"|==(?P<mark>(?:[^\n]|\n(?![ \t]*\n)){0,4000}?)=="
    r"|~~(?:[^\n]|\n(?![ \t]*\n)){0,4000}?~>(?P<new>(?:[^\n]|\n(?![ \t]*\n)){0,4000}?)~~)\}"
)
# A writer's placeholder: "[TK: describe her face]", a line that is only "TK" ("TK TK", "TK."), or a line
# opening with the doubled "TK TK" ("TK TK — add the letter"), which is no one's name. A single "TK" before
# words is a speaker or a name ("TK: I finished the migration.", "TK Maxx"), and one inside a sentence a word.
_TK = re.compile(
    r"[ \t]*\[TK\b[^\[\]\n]*\]|^[ \t]*TK(?:[ \t]+TK)*[ \t]*[^\w\s]*[ \t]*$|^[ \t]*TK[ \t]+TK\b[^\n]*$", re.M
)
# In a screenplay (batchsum.readers.screenplay.is_screenplay), a "[[...]]" holding a sentence is a Fountain note
# ("[[Is this too cliché? Cut it.]]"), never shown: it ends with "?" or "!", or has 4+ words and a stop after
# a lower-case word (not "[[St. Ives]]", "[[Prof. Smith notes]]"). Anywhere else, and any other "[[...]]", it
# is a wikilink.
_DOUBLE_BRACKETS = re.compile(r"\[\[([^\[\]]{1,4000}?)\]\]")
_ASKS = re.compile(r"[?!][\"”’)]*\s*\Z")
_STOPPED_WORD = re.compile(r"(?<!\S)[\"“‘(]*([^\W\d_]+)\.[\"”’)]*(?!\S)")
_NOTE_WORDS = 4
# Fountain's boneyard: "/* ... */", text the writer keeps out of the script; its "/*" after no word or path
# ("/mnt/*" is a glob).
_BONEYARD = re.compile(r"(?<!\S)/\*.*?\*/", re.S)
# A Notion export's properties: under its "# Title", a block of "Key: value" lines (short capitalised keys,
# short values that end no sentence and open with no lower-case word: "Yesterday: fixed the bug" is a
# standup's), then a blank line. Notion shows them as the page's properties, like
# front matter; as text they had run into the first sentence ("Status: In progress Budget: 400 The shed ...").
_FIELD_LINE = r"[A-Z][\w'’-]*(?:[ \t][\w'’-]+){0,2}:[ \t]+[^\s.?!a-z](?:[^\n]*[^\s.?!])?[ \t]*"
_TITLE_FIELDS = re.compile(
    rf"\A(?:[ \t]*\n)*#[ \t]+[^\n]+\n(?:[ \t]*\n)?((?:{_FIELD_LINE}\n){{1,20}}{_FIELD_LINE}(?:\n|\Z))"
    rf"(?![ \t]*\n[ \t\n]*{_FIELD_LINE}(?:\n|\Z))"
)
_FIELD_WORDS = 8  # a property's value at most; a longer one is a sentence ("Ana: I think we should ...")
# Notion's own property names (its defaults and the common ones); at least half of a block's keys are (a
# standup's "Ana: Finished the API migration" turns under "# Standup" are no properties).
_NOTION_KEYS = frozenset(
    "status|created|created by|created time|last edited|last edited by|last edited time|tags|type|owner|assignee|"
    "assigned to|date|due|due date|priority|budget|category|url|property|area|project|progress|stage|parent item|"
    "sub-item".split("|")
)
# A fan-fiction chapter's apparatus: the author's notes ("A/N: Reviews make me update faster!!!"), wherever
# they stand, and a chapter's opening or closing "Disclaimer:", "Warnings:", or "Notes:" over their text (AO3):
# what the author says about the chapter, not the story. Only in a fan-fiction chapter (:data:`_FAN_FICTION`):
# a note's closing "Notes:" list or a "Warning: it deletes snapshots" paragraph is its text.
_NOTE_LABEL = re.compile(
    r"[ \t]*(?:\*\*|__)?(?:(?P<author>A/N|AN|[Aa]uthor['’]?s?[ \t]+[Nn]otes?)|(?P<edge>Disclaimer|Warnings?)"
    r"|(?P<notes>(?:Chapter[ \t]+|End[ \t]+)?Notes))[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?"
)
# A chapter's evidence: a paragraph opening with "A/N:" or "Author's Note:" ("AN:" is too short a word to
# tell), or AO3's layout ("Chapter Text" on its line, "See the end of the chapter for more notes").
_FAN_FICTION = re.compile(
    r"^[ \t]*(?:\*\*|__)?(?:A/N|[Aa]uthor['’]?s?[ \t]+[Nn]otes?)[ \t]*(?:\*\*|__)?[ \t]*:"
    r"|^[ \t]*(?:#+[ \t]*)?Chapter Text[ \t]*$|See the end of the (?:chapter|work) for (?:more )?notes",
    re.M,
)
_PARAGRAPH = re.compile(r"[^\n]+(?:\n(?![ \t]*(?:\n|\Z))[^\n]*)*")


# mdBook's preprocessor directives: the rendered page shows the included file's code (which batchsum has not
# read) or nothing, never the directive.
MDBOOK_DIRECTIVE = re.compile(r"\{\{#(?:include|rustdoc_include|playground|title)\b[^{}\n]*\}\}")


def _blank(m: re.Match[str]) -> str:
    return "\n" * m.group(0).count("\n")


def _critic(m: re.Match[str]) -> str:
    """A CriticMarkup mark as accepted: what is left of it (:data:`_CRITIC`)."""
    return m.group("ins") or m.group("mark") or m.group("new") or ""


def _inline_field(m: re.Match[str]) -> str:
    return m.group(1) if m.group(1) is not None else m.group(2)


def _fountain_note(body: str) -> bool:
    """Whether ``body``, inside a screenplay's "[[...]]", is a note (:data:`_DOUBLE_BRACKETS`): a sentence."""
    if _ASKS.search(body):
        return True
    stopped = (m.group(1) for m in _STOPPED_WORD.finditer(body))
    return len(body.split()) >= _NOTE_WORDS and any(word.islower() for word in stopped)


def _fountain_notes(text: str, blank: Callable[[re.Match[str]], str]) -> str:
    """``text`` with its Fountain notes as ``blank`` has them; any other "[[...]]" left for :data:`_WIKILINK`."""
    return _DOUBLE_BRACKETS.sub(lambda m: blank(m) if _fountain_note(m.group(1)) else m.group(0), text)


def _blanked_but(m: re.Match[str], kept: str | None = None) -> str:
    """``m``'s text blanked character for character, but for its group ``kept`` (what is shown of it)."""
    start, end = m.span(kept) if kept and m.group(kept) is not None else (m.end(), m.end())
    text, at = m.string, m.start()
    blank = re.sub(r"[^\n]", " ", text[at:start]), text[start:end], re.sub(r"[^\n]", " ", text[end : m.end()])
    return "".join(blank)


def draft_marks_blanked(text: str) -> str:
    """``text`` with what a draft's reader never sees blanked, line breaks and offsets unchanged, for the
    index: CriticMarkup's deletions, comments and replaced words (:data:`_CRITIC`), "[TK ...]"
    placeholders, struck words ("~~Piranesi~~"), and a screenplay's notes ("[[...]]" sentences) and boneyard
    ("/* ... */")."""
    if "{" in text:
        text = _CRITIC.sub(lambda m: _blanked_but(m, m.lastgroup), text)
    if "~~" in text:
        text = outside_code(text, lambda part: _STRUCK.sub(_blanked_but, part))
    if "TK" in text:
        text = _TK.sub(_blanked_but, text)
    if _fountain_marked(text):
        text = _BONEYARD.sub(_blanked_but, _fountain_notes(text, _blanked_but))
    return text


def _fountain_marked(text: str) -> bool:
    """Whether ``text`` is a screenplay (:func:`~batchsum.readers.screenplay.is_screenplay`) with a boneyard or a note
    to leave out; the screenplay test runs only for a text with either (a vault's wikilinks are no notes)."""
    boneyard = "/*" in text and _BONEYARD.search(text) is not None
    notes = "[[" in text and any(_fountain_note(m.group(1)) for m in _DOUBLE_BRACKETS.finditer(text))
    return (boneyard or notes) and is_screenplay(text)


def _property_block(text: str) -> re.Match[str] | None:
    """The block of a Notion export's properties under its title (:data:`_TITLE_FIELDS`), or None: short
    values, at least half the keys Notion's own (:data:`_NOTION_KEYS`), and no two speakers' turns among them
    (a standup's "Ana: ..." and "Ben: ..." under its title)."""
    m = _TITLE_FIELDS.match(text)
    if m is None:
        return None
    lines = [ln for ln in m.group(1).split("\n") if ln.strip()]
    fields = [(key.strip().lower(), value) for key, value in (ln.split(":", 1) for ln in lines)]
    if any(len(value.split()) > _FIELD_WORDS for _, value in fields):
        return None
    if 2 * sum(key in _NOTION_KEYS for key, _ in fields) < len(fields):
        return None
    labels = (parse_speaker_line(ln)[0] for ln in lines if is_turn(ln))
    speakers = {label for label in labels if label and label.lower() not in _NOTION_KEYS}
    return m if len(speakers) < 2 else None


def _note_label(paragraph: str, edge: bool) -> str | None:
    """What ``paragraph`` holds after its author's-note label (:data:`_NOTE_LABEL`), or None when it has
    none: at a text's ``edge`` any label, elsewhere only an author's note's."""
    m = _NOTE_LABEL.match(paragraph)
    if m is None or not (edge or m.group("author")):
        return None
    rest = paragraph[m.end() :].strip(" \t*_")
    if m.group("notes") and rest.split("\n", 1)[0].strip():
        return None  # "Notes: we agreed on Friday" is text; AO3's "Notes:" stands over its note
    return rest


def _author_notes(text: str) -> str:
    """``text`` without a chapter's author's notes (:data:`_NOTE_LABEL`): any labelled "A/N", and the
    labelled paragraphs that open or close it (headings aside). A label alone on its paragraph takes the next
    one, its body. Only in a fan-fiction chapter (:data:`_FAN_FICTION`); nothing is left out of a text that
    would be left with nothing else."""
    paragraphs = [m for m in _PARAGRAPH.finditer(text) if m.group(0).strip()]
    body = [m for m in paragraphs if not m.group(0).lstrip().startswith("#")]
    if not _FAN_FICTION.search(text):
        return text  # a note's "Notes:" list or "Warning:" paragraph: its own text
    labels = [(_note_label(m.group(0), True), _note_label(m.group(0), False)) for m in body]
    dropped: set[int] = set()
    at = 0
    while at < len(body) and labels[at][0] is not None:  # the opening run
        dropped.update(range(at, min(at + 1 + (labels[at][0] == ""), len(body))))
        at += 1 + (labels[at][0] == "")
    at = len(body) - 1
    while at >= 0:  # the closing run: a labelled paragraph, or a body under a label alone
        if labels[at][0] is not None:
            dropped.add(at)
            at -= 1
        elif at > 0 and labels[at - 1][0] == "":
            dropped.update((at, at - 1))
            at -= 2
        else:
            break
    for at, (_, anywhere) in enumerate(labels):
        if anywhere is not None:
            dropped.update(range(at, min(at + 1 + (anywhere == ""), len(body))))
    if not dropped or len(dropped) >= len(body):
        return text
    out, pos = [], 0
    for m in (body[i] for i in sorted(dropped)):
        out += [text[pos : m.start()], "\n" * m.group(0).count("\n")]
        pos = m.end()
    return "".join([*out, text[pos:]])


def front_matter(text: str) -> re.Match[str] | None:
    """The YAML front matter at the start of ``text`` (its whole block, fences included), or None: a first
    line "---", then only YAML lines (lower-case keys: a script's "Ana: Hello" is no key), closed by a line
    "---" (or "...") however far below. Group 1 is the YAML between the fences. A block never closed is its
    YAML lines under the opening fence, up to the first other line (:func:`front_matter_problem` names it):
    its keys and values are no more the note's text than a closed block's."""
    if not text.startswith("---"):
        return None
    front = fenced_block(text)
    if front and front.group(1).strip() and all(_YAML_LINE.fullmatch(ln) for ln in front.group(1).split("\n")):
        return front
    return _UNCLOSED_FRONT_MATTER.match(text)


def fenced_block(text: str) -> re.Match[str] | None:
    """The block ``text`` opens with between a line "---" and the next "---" (or "..."),
    whatever its lines hold (:func:`front_matter` takes it only when they are YAML); group 1 is between them."""
    return _FRONT_MATTER.match(text)


def front_matter_problem(text: str) -> str | None:
    """What is wrong with the front matter ``text`` opens with, for a warning naming its file; None when it
    has none or it is sound. Front matter never closed, or whose YAML does not parse, is still left out of
    what is summarized (:func:`front_matter`), the rest of the note read as usual."""
    front = front_matter(text)
    if front is None:
        return None
    if front.end(1) == front.end():  # no closing fence
        lines = front.group(1).rstrip("\n").count("\n") + 1
        return (
            f"front matter not closed: no '---' line after its {lines} line(s) of YAML; "
            "they are left out and the rest is read as the note"
        )
    import yaml  # PyYAML, only for a file that opens with front matter

    try:
        data = yaml.load(front.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # the file's line: the fence is line 1
        problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
        return f"invalid YAML in its front matter ({problem}{where}); the block is left out and the rest is read"
    except Exception as exc:
        # PyYAML's constructors raise plain errors for values it parsed but cannot build ("date: 2024-02-30"
        # is a ValueError): still this file's front matter at fault, never the whole run's.
        problem = str(exc).split("\n", 1)[0] or type(exc).__name__
        return f"invalid value in its front matter ({problem}); the block is left out and the rest is read"
    if data is not None and not isinstance(data, dict):
        return "front matter is not a mapping of keys to values; the block is left out and the rest is read"
    return None


def fix_outside(text: str, spans: re.Pattern[str], fix: Callable[[str], str]) -> str:
    """``fix`` applied to ``text`` but not to the spans ``spans`` matches (inline code says what it says:
    `` `if [[ -f x ]]` ``, `` `a==b` ``, `` `&"hi"[0]` ``)."""
    out: list[str] = []
    pos = 0
    for m in spans.finditer(text):
        out += [fix(text[pos : m.start()]), m.group(0)]
        pos = m.end()
    out.append(fix(text[pos:]))
    return "".join(out)


def fix_outside_code(text: str, fix: Callable[[str], str]) -> str:
    """``fix`` applied to ``text`` but not to its inline code spans (:func:`fix_outside`)."""
    return fix_outside(text, _INLINE_CODE, fix) if "`" in text else fix(text)


def _blocks(text: str) -> str:
    """Logseq's query and code blocks as blank lines; other blocks (quote, note, tip) keep their text and
    lose their marker lines. An unclosed block is left as it is."""
    out: list[str] = []
    pos = 0
    marks = list(_BLOCK_MARK.finditer(text))
    i = 0
    while i < len(marks):
        begin = marks[i]
        if begin.group(1).upper() != "BEGIN":
            i += 1
            continue
        kind = begin.group(2).upper()
        end = next((m for m in marks[i + 1 :] if m.group(1).upper() == "END" and m.group(2).upper() == kind), None)
        if end is None:
            i += 1
            continue
        out.append(text[pos : begin.start()])
        if kind in _LEFT_OUT_BLOCKS:
            out.append("\n" * text.count("\n", begin.start(), end.end()))
        else:
            out.append(text[begin.end() : end.start()])
        pos = end.end()
        i = marks.index(end) + 1
    out.append(text[pos:])
    return "".join(out)


def _box(m: re.Match[str]) -> str:
    return f"{m.group(1)}{OPEN_BOX if m.group(2) == ' ' else DONE_BOX} "


def _marker(m: re.Match[str]) -> str:
    done = m.group(0).strip(" \t-*+").startswith(("DONE", "CANCEL"))
    return f"{m.group(1)}{DONE_BOX if done else OPEN_BOX} "


def note_syntax_as_text(text: str) -> str:
    """``text`` without its front matter and with note-app marks as their reader sees them (module
    docstring). Inline code keeps its marks (`` `a==b` ``), a removed block leaves its line breaks, so
    paragraphs stay where they were; text without any of the marks comes back as it is (each pass
    runs only where its mark occurs)."""
    front = front_matter(text)
    if front:
        text = _blank(front) + text[front.end() :]
    if ":" in text and (fields := _property_block(text)):
        text = text[: fields.start(1)] + "\n" * fields.group(1).count("\n") + text[fields.end(1) :]
    if "{{#" in text:  # before tags: "{{#playground ...}}" had read "{{playground ...}}" in a kept note
        text = MDBOOK_DIRECTIVE.sub("", text)
    if "#+" in text:
        text = _blocks(text)
    text = without_html_comments(text)  # a note's task's "<!-- private: due soon -->" is never shown
    if "%%" in text:  # a comment block between "%%" lines of their own may hold blank lines (Obsidian's example)
        text = _COMMENT_BLOCK.sub(_blank, text)
    if ":END:" in text:
        text = DRAWER.sub(_blank, text)
    logseq = _LOGSEQ.search(text) is not None  # before its properties go: NOW's evidence
    if "::" in text:
        text = _PROPERTY.sub("", fix_outside_code(text, lambda part: _INLINE_FIELD.sub(_inline_field, part)))
    if _fountain_marked(text):
        text = fix_outside_code(_BONEYARD.sub(_blank, text), lambda part: _fountain_notes(part, _blank))
    if "TK" in text:
        text = _TK.sub("", text)
    if "[!" in text:
        text = _callouts(text)
    if "SCHEDULED:" in text or "DEADLINE:" in text:
        text = _SCHEDULED.sub(lambda m: f" {_PLANNED[m.group(1)]} {m.group(2)}", text)
    text = fix_outside_code(without_data_uris(text), _inline_marks)
    if "~~" in text:  # after CriticMarkup (_inline_marks): its "{~~old~>new~~}" is a substitution
        text = outside_code(text, lambda part: _STRUCK.sub("", part))
    marked = _ANY_MARKER.search(text) is not None
    if marked or any(box in text for box in ("[ ]", "[x]", "[X]", *TASK_BOXES)):
        text = _EMPTY_TASK.sub("", _EMPTY_NOW.sub("", text) if logseq else text)
    if "[" in text:
        text = _BOX.sub(_box, text)
    if "#" in text:
        text = _BULLET_HEADING.sub(r"\1", text)
    if ":" in text:
        text = _author_notes(text)
    if marked and logseq:
        text = _NOW_MARKER.sub(_marker, text)
    return _MARKER.sub(_marker, text) if marked else text


def without_data_uris(text: str) -> str:
    """``text`` without the files it carries as data: URIs (:data:`_DATA_URI`), but in its code (inline, fenced
    or indented: :func:`code_blocks`), which says what it says: an image of one (Markdown's or an ``<img>``) goes
    whole, as an ``![[embed]]`` does (an image shows no alt text), a link to one shows its text, a reference
    definition of one goes, any other base64 one goes."""
    return text if _DATA_MARK.search(text) is None else outside_code(text, _data_uris_out)


def outside_code(text: str, fix: Callable[[str], str]) -> str:
    """``fix`` applied to ``text`` but not to its code: inline, fenced or indented (:func:`code_blocks`)."""
    out: list[str] = []
    pos = 0
    for start, end in code_blocks(text):
        out += [fix_outside_code(text[pos:start], fix), text[start:end]]
        pos = end
    out.append(fix_outside_code(text[pos:], fix))
    return "".join(out)


def without_html_comments(text: str) -> str:
    """``text`` without its HTML comments (never shown) but in its code: one opening in code (:func:`code_blocks`,
    inline) is code, one opening before code takes it along, an unclosed one stays. On its own line it leaves its
    line breaks, in a line a space (the line goes on: "[link]<!--\nignore --> section"). Found with ``str.find``: a
    lazy ``<!--.*?-->`` had scanned to the text's end from each unclosed opener (10,000 of them took 39 s)."""
    if "<!--" not in text:
        return text
    inline = [m.span() for m in _INLINE_CODE.finditer(text)] if "`" in text else []
    code = sorted([*code_blocks(text), *inline])
    out: list[str] = []
    pos = k = 0
    while (start := text.find("<!--", pos)) >= 0:
        while k < len(code) and code[k][1] <= start:
            k += 1
        if k < len(code) and code[k][0] <= start:  # it opens in code: the code goes on as it is
            out.append(text[pos : code[k][1]])
            pos = code[k][1]
            continue
        if (end := text.find("-->", start + 4)) < 0:
            break
        stop = _AFTER_COMMENT.match(text, end + 3).end()  # type: ignore[union-attr]  # it matches ""
        lead = len(text[pos:start].rstrip(" \t")) + pos  # the blanks before it go with it, but at a line's start
        if lead == 0 or text[lead - 1] == "\n":
            out += [text[pos:start], "\n" * text.count("\n", start, stop)]
        else:  # one that ends its line keeps its break (the next may be "> ..."); one inside it may leave a space
            out += [text[pos:lead], "\n" if text[stop - 1 : stop] == "\n" else _comment_gap(text, lead, start, stop)]
        pos = stop
    out.append(text[pos:])
    return "".join(out)


def _comment_gap(text: str, lead: int, start: int, stop: int) -> str:
    """What stands for the comment at ``text[start:stop]`` inside a line (its blanks before from ``lead``): a
    space where it parted words ("a<!--x-->b", "a <!--x--> b", a line break in it), none before a mark that
    ends a phrase ("rent<!--x-->.", "Done <!--x-->.") or after one that opens it, nor at the text's end."""
    if stop == len(text) or text[stop] in _CLOSING or text[lead - 1] in _OPENING:
        return ""
    parted = lead != start or text[stop - 1] in " \t" or "\n" in text[start:stop]
    return " " if parted or (text[lead - 1].isalnum() and text[stop].isalnum()) else ""


# A code fence (CommonMark's): up to three spaces, then three or more backticks (an info string without one) or
# tildes. The block it opens ends at a line of the same mark, as long or longer, and nothing else.
_FENCE = re.compile(r"^ {0,3}(?:(`{3,})(?=[^`\n]*$)|(~{3,}))([^\n]*)$", re.M)
_INDENTED = re.compile(r"(?: {4}| {0,3}\t)[ \t]*\S")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def code_blocks(text: str, indented: bool = True) -> list[tuple[int, int]]:
    """The spans (start, end) of ``text``'s fenced code blocks in order, each from its opening fence line to the end
    of its closing one (one never closed is no block, as :func:`batchsum.backends.noise.markdown_as_text` reads
    it), and with ``indented`` of its indented code: lines indented four spaces or a tab under a blank line (or
    the start), unless a list item or an indented line came before (a list item's next paragraph). Linear."""
    fences = [(m.start(), m.end(), m.group(1) or m.group(2), not m.group(3).strip()) for m in _FENCE.finditer(text)]
    # The longest closing fence of each mark at or after each fence: one that none closes is left at once.
    longest: list[dict[str, int]] = [{}] * (len(fences) + 1)
    for k in range(len(fences) - 1, -1, -1):
        _, _, mark, bare = fences[k]
        longest[k] = dict(longest[k + 1])
        if bare and len(mark) > longest[k].get(mark[0], 0):
            longest[k][mark[0]] = len(mark)
    spans: list[tuple[int, int]] = []
    k = 0
    while k < len(fences):
        start, _, mark, _ = fences[k]
        if longest[k + 1].get(mark[0], 0) < len(mark):
            k += 1
            continue
        k += 1
        while not (fences[k][3] and fences[k][2][0] == mark[0] and len(fences[k][2]) >= len(mark)):
            k += 1  # inside the block: its lines are code, fence-like or not
        spans.append((start, fences[k][1]))
        k += 1
    return _with_indented_code(text, spans) if indented and ("\n    " in text or "\t" in text) else spans


def _data_uris_out(text: str) -> str:
    """:func:`without_data_uris` of a text without inline code."""
    if _DATA_MARK.search(text) is None:
        return text
    text = _DATA_LINK.sub(lambda m: "" if m.group(1) else m.group(2), text)
    text = _DATA_DEF.sub("", _DATA_IMG.sub("", text))
    return _BASE64_URI.sub("", text)


def _inline_marks(text: str) -> str:
    """The marks inside a line: comments, edits, links, embeds, macros, tags (not in a speaker's turn:
    :func:`_tags_as_read`), highlights, footnotes, block ids."""
    if "%%" in text:
        text = _HIDDEN_COMMENT.sub(_blank, text)
    if "{" in text:  # before highlights: "{==text==}" is CriticMarkup's
        text = _CRITIC.sub(_critic, text)
    emptied = "{{" in text or "((" in text or "![[" in text
    if "{{" in text:
        text = _MACRO.sub("", text)
    if "((" in text:
        text = _BLOCK_REF.sub("", text)
    if "[[" in text:
        text = _TAG_LINK.sub(r"\1", _EMBED.sub("", text))
        text = _WIKILINK.sub(lambda m: m.group(3) or m.group(1) or m.group(2) or "", text)
    if emptied:
        text = _EMPTY_BULLET.sub("", text)
    if "#" in text:
        text = _TAGS_LINE.sub(lambda m: "#### " + m.group(0).strip(), text)
        text = "\n".join(_tags_as_read(line) if "#" in line else line for line in text.split("\n"))
    if "==" in text:
        text = _HIGHLIGHT.sub(r"\1", text)
    if "[^" in text:
        text = _FOOTNOTE_REF.sub("", _FOOTNOTE_DEF.sub("", text))
    if "^" in text:
        text = _BLOCK_ID.sub("", _INLINE_FOOTNOTE.sub("", text))
    return text


def _tags_as_read(line: str) -> str:
    """A line's tags as a note files them (a tag reads as its word, trailing tags go), but as written in a
    speaker's turn: its "#general" is what the speaker typed, a channel in a chat ("Raid in #general again",
    Slack's "<#C2|support>" read "#support"), no tag filing the note. One look at the line, not one per tag."""
    if is_turn(line):
        return line
    return _HASHTAG.sub(r"\1", _TRAILING_TAGS.sub("", line))


def _callout(m: re.Match[str]) -> str:
    """A callout as its reader sees it: its title a heading (none without one), its body text."""
    title = m.group(1).strip()
    return (f"#### {title}" if title else "") + _QUOTE_MARK.sub("", m.group(2))


def _callouts(text: str) -> str:
    """``text`` with each callout read as :func:`_callout` has it; a callout nested in one is read once its
    outer one has lost a level of marks."""
    for _ in range(4):
        if "[!" not in text:
            break
        done = _CALLOUT.sub(_callout, text)
        if done == text:
            break
        text = done
    return text


def _with_indented_code(text: str, fenced: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``fenced`` and the indented code blocks outside them (:func:`code_blocks`), in order."""
    spans: list[tuple[int, int]] = []
    fences = iter(fenced)
    fence = next(fences, None)
    pos, blank, before = 0, True, ""  # before: the last line with text, "code", "loose" (list, indented) or ""
    while pos <= len(text):
        if fence is not None and fence[0] == pos:
            spans.append(fence)
            pos, blank, before = fence[1] + 1, False, ""
            fence = next(fences, None)
            continue
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if not line.strip():
            blank = True
        elif _INDENTED.match(line) and (before == "code" or (blank and before == "")):
            spans[-1:] = [(spans[-1][0], end)] if before == "code" else [*spans[-1:], (pos, end)]
            blank, before = False, "code"
        else:
            loose = line[:1].isspace() or _LIST_ITEM.match(line) is not None
            blank, before = False, "loose" if loose else ""
        pos = end + 1
    return spans
