"""Snippets: the sentences of a summary or a source passage that hold the query's words, as clean text.

A node file's body ends with the tree's navigation (``<!-- batchsum:links -->`` and its links) and may
start with YAML front matter; transcripts carry markup such as ``{vocalsound}`` or ``{disfmarker}``.
None of that is prose: :func:`clean_text` removes it before sentences are chosen. A query word is
found in a sentence when one of its stems (:mod:`batchsum.index.analysis`) is among the sentence's
terms, so "died" is found for "die" and "预算" inside "预算会议"; the surface words found are returned
for highlighting.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from batchsum.backends.apparatus import is_tex_math
from batchsum.backends.noise import in_a_sentence, line_kind, markdown_as_text, repeated_lines
from batchsum.caseless import capitalised
from batchsum.cleanup import ANY_QUOTE_MARK, balance_quotes, open_quotation, without_cues
from batchsum.datelines import is_dateline
from batchsum.hyphens import dehyphenate
from batchsum.index.analysis import CJK_CLASS, analyze, cjk_bigrams, day_term
from batchsum.index.snippet_sentences import LETTER, WORD, sentences_by_paragraph, speaker
from batchsum.index.unshown import mdbook_directives_blanked, unshown_note_marks
from batchsum.language import run_on
from batchsum.navigation import strip_links, summary_only
from batchsum.periods import DAY_LABEL_TEXT, MONTH_LABEL_TEXT, days_named, only_a_period
from batchsum.readers.note_syntax import fix_outside_code, note_syntax_as_text
from batchsum.readers.screenplay import is_screenplay, screenplay_turn
from batchsum.text import (
    QUOTE_MARKS,
    parse_speaker_line,
)

SNIPPET_CHARS = 240

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# Transcript annotations: {vocalsound}, {disfmarker}, {gap}, {pause}, [laughter], <noise>, a caption's [Music]
# or [Applause] (not a link's "[Home](...)", nor a wikilink's words); not TeX's groups ($\bar{x}$, \frac{1}{n}).
_MARKUP = re.compile(
    r"(?<![\\\w^_}])\{[a-z_]{3,30}\}|\[(?:[a-z_ ]{1,30})\]|(?<!\[)\[[A-Z][a-z]{2,20}(?: [a-z]{2,20})?\](?![(\[\]])"
    r"|<(?:[a-z_ ]{1,30})>"
)
# A line that is a label and markup only ("Project Manager: {vocalsound}"): a turn in which nothing was said.
_SILENT_TURN = re.compile(r"^([^\n:]{1,80}:)(?:[ \t]*(?:" + _MARKUP.pattern + r"))+[ \t]*(?:\n|\Z)", re.M)
_SPACES = re.compile(r"[ \t]+")


def _said_nothing(m: re.Match[str]) -> str:
    """A turn that said nothing a reader sees gone, line and all: its bare label had read as words of the turn
    before ("... draw a cat too, so. Project Manager: User Interface:"). Another label line stays as it is."""
    return "" if parse_speaker_line(m.group(1) + " x")[0] is not None else m.group(0)


_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


# What Markdown shows as formatting: bold marks (a digest's "**3 May.**", "**stand\\_up.**") and escapes.
_EMPHASIS = re.compile(r"\*\*")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])")
# A bold label that opens a sentence opens another entry: a year's digest runs a month's days on in one
# paragraph ("... (11 of 148). **9 January.** Sent it to Ines ..."), each day another file's words.
_ENTRY_LABEL = re.compile(r"(?:(?<=[.!?…\"'”’)\]]) +|(?<=[。！？」』]) *)(?=\*\*[^*\n]{1,60}\*\* )")
# A digest's day or month label where a label stands (a paragraph's start, after a sentence), before words:
# "**3 May.** ", "**3. Mai** ", "**15 juillet** ", "**10 de junio** ", "**6月30日** ", a year's "**Avril** ".
_LABEL_AFTER = r"(?:^|(?<=[.!?…\"'”’)\]] )|(?<=[。！？」』])|(?<=[。！？」』] ))"
_DAY_LABEL = re.compile(_LABEL_AFTER + r"\*\*(" + DAY_LABEL_TEXT + r")\*\*(?= [\w\"'“‘«¿¡(])", re.M)
# A month's alone only in a page of day labels (a year's digest): in a note, "**August** Strindberg wrote
# plays" is a name in bold (review).
_MONTH_LABEL = re.compile(_LABEL_AFTER + r"\*\*(" + MONTH_LABEL_TEXT + r")\*\*(?= [\w\"'“‘«¿¡(])", re.M)


def _stopped(label: re.Match[str]) -> str:
    """A date label ending with a full stop, as English writes its own ("**3 May.**"): shown as a sentence of
    its own, not run into the next one ("15 juillet J'ai présenté ...")."""
    text = label.group(1)
    if text.endswith((".", "。")):
        return label.group(0)
    return f"**{text}{'。' if text.endswith(('日', '月')) else '.'}**"


# Italics as Markdown (and Project Gutenberg's plain text) write them: "_Woodstock_", "*The Overstory*",
# "_hello_cargo_" (a word's own underscores are no mark: "assert_eq", "__init__"); not in inline code.
# An italic span may wrap onto the next line of its paragraph (a hard-wrapped book's title), never across a
# blank line.
_ITALIC = re.compile(
    r"(?<![\w\\])_([^\s_](?:(?:[^\n]|\n(?![ \t]*\n)){0,200}?[^\s_\\])?)_(?!\w)"
    r"|(?<![\w*\\])\*([^\s*](?:(?:[^\n*]|\n(?![ \t]*\n)){0,200}?[^\s*\\])?)\*(?!\*)"
)


# A span of TeX math, delimited as Pandoc reads it ("$" next to no space inside, no digit after the closing one,
# so "$5 and $10" is none); :func:`~batchsum.backends.apparatus.is_tex_math` says whether it is math at all.
_TEX_SPAN = re.compile(r"\$\$.{0,4000}?\$\$|(?<![\\$])\$(?!\s)[^$\n]{1,400}?(?<!\s)\$(?!\d)|\\\(.{0,400}?\\\)", re.S)


def _without_italics(text: str) -> str:
    """``text`` without its italics' marks, but inside TeX math: "$\\mathcal{L}_{bal} = \\sum_{i=1}^{E}$" holds
    subscripts, no italics (its "_{bal} = \\sum_" had been read as one italic span, its marks removed)."""
    if "$" not in text and "\\(" not in text:
        return _without_italics_here(text)
    out: list[str] = []
    pos = 0
    for m in _TEX_SPAN.finditer(text):
        if is_tex_math(m.group(0)):  # money between two "$" is prose
            out += [_without_italics_here(text[pos : m.start()]), m.group(0)]
            pos = m.end()
    return "".join([*out, _without_italics_here(text[pos:])])


def _without_italics_here(text: str) -> str:
    return _ITALIC.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)


def clean_text(text: str, *, headings: bool = False) -> str:
    """``text`` without front matter, HTML comments (the tree's link block and what follows it),
    transcript markup, bold and italic marks, Markdown escapes and (unless ``headings``) headings; runs of
    spaces collapsed, line breaks kept. A bold label opening a sentence (a digest's "**9 January.**") opens
    a paragraph; a day's or a month's ends with a full stop, as English's does ("9. Januar.", "9 janvier.")."""
    text = _FRONT_MATTER.sub("", text, count=1)
    text = strip_links(text)
    text = _COMMENT.sub(" ", text)
    if ":" in text:
        text = _SILENT_TURN.sub(_said_nothing, text)
    text = _MARKUP.sub(" ", without_cues(text))
    if "**" in text:
        text = _ENTRY_LABEL.sub("\n\n", _labels_stopped(text))
    text = _without_marks(text)
    if "[" in text:
        text = _FOOTNOTE.sub("", text)
    if "#" in text:
        # A page's title says what it is, not what it holds (a month's "# May 1826"); DialogSum's speaker
        # marks "#Person1#:" read as "Person1:".
        text = _SPEAKER_MARK.sub(r"\1:", text if headings else _HEADING.sub("", text))
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.split("\n"))


_SPEAKER_MARK = re.compile(r"#(\w{1,30})#:")


def _labels_stopped(text: str) -> str:
    """``text`` with its digest's day labels (and then its month labels) ending with a full stop (:func:`_stopped`)."""
    labelled = _DAY_LABEL.sub(_stopped, text)
    return _MONTH_LABEL.sub(_stopped, labelled) if labelled != text else text


def _without_marks(text: str) -> str:
    """``text`` without its italics' and bold marks and Markdown escapes."""
    if "_" in text or "*" in text:
        text = fix_outside_code(text, _without_italics)
    if "*" in text or "\\" in text:
        text = _ESCAPE.sub(r"\1", _EMPHASIS.sub("", text))
    return text


def emphasis_as_text(text: str) -> str:
    """``text`` as its page reads, without bold and italic marks or escapes, its paragraphs as they were: a digest's
    "**12 March.** ... **1. Mai** Heute" reads "12 March. ... 1. Mai. Heute" (a label a full stop, as in
    :func:`clean_text`)."""
    return _without_marks(_labels_stopped(text) if "**" in text else text)


_FENCE_LINE = re.compile(r"^[ \t]*```", re.M)
_LINE_BACK = 400  # characters a window may reach back to the start of the line it starts in
# Layout a rendered page shows as no sentence: a table row, a heading, an HTML tag.
_TABLE_ROW = re.compile(r"^[ \t]*\|.*$", re.M)
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+.*$", re.M)  # a heading is no sentence (run on, it glues to one)
_HEADING_MARK = re.compile(r"^[ \t]*#{1,6}[ \t]+|[ \t]+#+[ \t]*$")  # "## Notes ##" -> "Notes"
# A page's title (a first-level heading): what a note is about. A section's ("## Decisions") says less than
# any sentence.
_TITLE = re.compile(r"^[ \t]*#[ \t]+.*$", re.M)
# HTML's own elements only: "Vec<T>" and "Option<T>" are code, not tags.
_TAG = re.compile(
    r"</?(?:a|span|div|img|br|hr|p|em|strong|b|i|u|code|pre|sup|sub|small|table|thead|tbody|tr|td|th|ul|ol|li|"
    r"h[1-6]|details|summary|figure|figcaption|section|article|aside|nav|header|footer|blockquote|kbd|mark|"
    r"Listing)\b(?:\s[^<>\n]*)?/?>",
    re.I,
)
# "death.[442]", and a footnote's own mark before its text ("[542] Among the letters ..."): the reader of a
# snippet has no footnotes.
_FOOTNOTE = re.compile(r"(?<=\S)\[\d{1,4}\]|(?:(?<=\s)|^)\[\d{1,4}\][ \t]*", re.M)


# A text shorter than this has no pages to repeat a header on: the summarizer's bound (backends.units).
_PAGE_LINES = 30


@functools.lru_cache(maxsize=16)
def _page_layout(text: str) -> tuple[frozenset[str], bool]:
    """(the short lines ``text`` repeats page after page, whether it opens its sentences with capitals): what
    the summarizer reads its headings and running heads by (:func:`~batchsum.backends.noise.repeated_lines`,
    :func:`~batchsum.caseless.capitalised`). Kept for the last few texts: a search shows several
    passages of one source, whose text :mod:`batchsum.index.search` keeps (one string, hashed once)."""
    lines = text.split("\n")
    return (repeated_lines(lines) if len(lines) >= _PAGE_LINES else frozenset()), capitalised(text)


def _without_page_headings(window: str, layout: tuple[frozenset[str], bool]) -> str:
    """``window`` without the lines the summarizer reads as a plain-text page's headings or running heads
    (:func:`~batchsum.backends.noise.line_kind` ``heading`` standing alone, ``header``): a PDF's "LINDQVIST ET
    AL.  SLEEP RESTRICTION AND WORKING MEMORY" on every other page had been a snippet. A Markdown heading stays
    (:func:`clean_text` reads it), a turn too ("ANA: YES." said again and again), and a line wrapped in a
    sentence (:func:`~batchsum.backends.noise.in_a_sentence`); a header cutting a sentence at a page break
    goes, and the sentence is whole again."""
    heads, cased = layout
    lines = window.split("\n")
    kept: list[str] = []
    for i, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            # A code fence is the page's mark, read with its block (markdown_window), never a running head:
            # a book's third "```rust" had made its fences "repeated", dropped, and the code read as prose.
            kept.append(line)
            continue
        kind = line_kind(line, heads)
        if kind in ("heading", "header") and not line.lstrip().startswith("#") and parse_speaker_line(line)[0] is None:
            prev = lines[i - 1] if i and lines[i - 1].strip() else None
            nxt = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].strip() else None
            if kind == "header" or not in_a_sentence(line, prev, nxt, cased):
                continue
        kept.append(line)
    return "\n".join(kept) if len(kept) < len(lines) else window


_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")  # kept by split(): the window's paragraphs go back as they were
_ENDS_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*\Z")  # a text whose last paragraph is whole
_CUE_SAMPLE = 20_000  # characters: the opening type detection reads (walk.detect_type)


def _cues_as_turns(window: str) -> str:
    """``window`` of a screenplay with its cues read as the summarizer reads them
    (:func:`batchsum.readers.screenplay.screenplay_turn`): "ROSA" over "(pouring)" over her line is "ROSA: There
    is no road ...", the speaker named and the direction left out."""
    parts = _PARAGRAPH_BREAK.split(window)
    cues = [screenplay_turn(p) if i % 2 == 0 else None for i, p in enumerate(parts)]
    return "".join(p if cue is None else f"{cue[0]}: {cue[1]}" for p, cue in zip(parts, cues, strict=True))


def markdown_window(text: str, start: int, end: int, *, tables: bool = False) -> str:
    """``text[start:end]`` of a Markdown source as a reader of the rendered page sees it (the summarizer's
    :func:`~batchsum.backends.noise.markdown_as_text`): a code block the window cuts into is closed
    first, so its code goes too; table rows, tags and a plain text's headings and running heads go
    (:func:`_without_page_headings`); a word hard-wrapped at a hyphen is made whole
    (:func:`~batchsum.hyphens.dehyphenate`). Other line breaks stay, and so do Markdown headings: no sentence
    (:func:`clean_text` drops them), but what :func:`make_snippet` shows when only a heading holds the words.
    A screenplay's cue and its dialogue read as a turn's line (:func:`_cues_as_turns`).
    ``tables``: the table rows stay, for :func:`table_row_snippet`."""
    layout = _page_layout(text)
    if text.find("%%", 0, end) >= 0:
        # A comment that opens before the window and ends in it is still one: read from the text's start,
        # its tail had been a snippet's sentences.
        text = unshown_note_marks(text[:end])
    line_start = text.rfind("\n", 0, start) + 1
    if start - line_start <= _LINE_BACK:
        start = line_start  # a line cut in two is no longer a table row or a heading by its first character
    window = mdbook_directives_blanked(text[start:end])  # also one outside a code block: the page shows none
    if is_screenplay(text):
        window = _cues_as_turns(window)  # first: a cue's name alone on its line is what a page's heading looks like
    window = _without_page_headings(window, layout)
    if "```" in text:
        if len(_FENCE_LINE.findall(text, 0, start)) % 2:
            window = "```\n" + window  # it starts inside a fenced block
        if len(_FENCE_LINE.findall(window)) % 2:
            window += "\n```"  # it ends inside one
    if "[^" in window:
        # A footnote's text is the writer's words, which the index finds ("Utrecht" in "[^1]: The 8:15 to
        # Utrecht."): shown as a paragraph of its own, where the summarizer's reader leaves the footnote out.
        window = _FOOTNOTE_TEXT.sub("\n", window)
    window = QUOTE_MARKS.sub("", markdown_as_text(window))  # an e-mail's quoted reply, a blockquote: "> >"
    window = _FENCE_LINE.sub("", window)
    # A word wrapped at a hyphen reads as the summarizer reads it, judged by the whole source: "summarization",
    # never "sum- marization" once the line break is a space.
    window = dehyphenate(window, text)
    return _TAG.sub(" ", window if tables else _TABLE_ROW.sub("", window))


_FOOTNOTE_TEXT = re.compile(r"^[ \t]*\[\^[^\[\]\s]+\]:[ \t]*(?=\S)", re.M)  # "[^1]: " before a footnote's text
_RULE_CELL = re.compile(r"[\s:-]*")  # a cell of the row under a table's header: "---", ":--:"


def table_row_snippet(
    window: str,
    groups: Sequence[Sequence[str]],
    limit: int = SNIPPET_CHARS,
    *,
    language: str | None = None,
    weights: Sequence[float] | None = None,
    query_words: QueryWords | None = None,
) -> tuple[str, list[str]]:
    """The table row of ``window`` (:func:`markdown_window` with its ``tables``) holding the most of the query's
    weight, its cells as a rendered table shows them, between bars ("`/*...*/` | Block comment"), and the words
    found; ("", []) when no row holds one. For a passage whose query words stand in a table only: its row
    shows why it matched ("blocked" had found a book's "Block comment" row and shown none of its words).
    ``query_words``: the query's, as for :func:`make_snippet`."""
    found = _matcher(groups, language, query_words)
    weigh = _weigher(groups, weights, language) if weights is not None and len(weights) == len(groups) else None
    best, best_words, most = "", list[str](), 0.0
    for line in _TABLE_ROW.findall(window):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(_RULE_CELL.fullmatch(c) for c in cells):
            continue
        row = " | ".join(" ".join(clean_text(c).split()) for c in cells if c)
        words = found(row)
        held = weigh(words) if weigh is not None else float(len({w.lower() for w in words}))
        if held > most:
            best, best_words, most = row, words, held
    if len(best) > limit:
        best = _cut(best, limit, found)
    return best, sorted({w.lower(): w for w in found(best)}.values(), key=str.lower) if best_words else []


def node_body(text: str, *, headings: bool = True) -> str:
    """A node file's summary text for display: no front matter, links or extracted sections (cut off first:
    headings mark them). Its own headings stay (unless not ``headings``), for :func:`make_snippet` to fall
    back on."""
    # A note kept whole is its final: read as its page shows ("[[talk|Lisbon talk]]" reads "Lisbon talk").
    # Its comments go first, a block of them over several paragraphs too (what the index leaves out).
    shown = unshown_note_marks(summary_only(strip_links(text)))
    return clean_text(note_syntax_as_text(shown), headings=headings).strip("\n")


def best_sentences(text: str, groups: Sequence[Sequence[str]], limit: int, *, language: str | None = None) -> str:
    """The sentences of clean ``text``, all of them when they fit in ``limit`` chars, else those holding the
    most distinct query terms, then their neighbours, as many as fit (without a query word in any, the opening
    ones): in their order, a line for each paragraph or list item, "…" where sentences were left out."""
    numbered = sentences_by_paragraph(text, language)
    parts = [s for _, s in numbered]
    found = _matcher(groups, language)
    held = [len({w.lower() for w in found(s)}) for s in parts] if len(" ".join(parts)) > limit else []
    matched = [i for i, n in enumerate(held) if n]

    def near(i: int) -> int:  # a sentence next to one that holds the words reads on from it
        return min((abs(i - j) for j in matched), default=0)

    kept, room = set(range(len(parts))) if not held else set(), limit
    for i in sorted(range(len(held)), key=lambda i: (-held[i], near(i), i)):
        if len(parts[i]) + 2 <= room:
            kept.add(i)
            room -= len(parts[i]) + 2  # its space and its share of a "…"
    if parts and not kept:  # the best sentence alone is too long: its part around the words
        return _cut(parts[max(range(len(parts)), key=lambda i: (held[i], -i))], limit, found)
    lines: list[str] = []
    last, gap = -1, False
    for i, (paragraph, sentence) in enumerate(numbered):
        if i not in kept:
            gap = True
            continue
        piece = f"… {sentence}" if gap else sentence
        if lines and paragraph == last:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
        last, gap = paragraph, False
    return "\n".join(lines) + (" …" if gap and lines else "")


@functools.lru_cache(maxsize=1 << 16)
def _word_terms(word: str, language: str | None) -> tuple[str, ...]:
    """:func:`~batchsum.index.analysis.analyze` of one word, kept: a search builds the snippet of every candidate
    (to tell repeats apart), each a new matcher, and stemming their words again was a third of its time."""
    return tuple(analyze(word, language))


class QueryWords:
    """Which words stem to one of a query's terms, by language, as its snippets read them: made once per query
    (:attr:`~batchsum.index.search.LexicalResult.words`) and given to each of its snippets, because a text repeats
    its words and a search's candidates repeat each other's."""

    def __init__(self, groups: Sequence[Sequence[str]]) -> None:
        self.groups = tuple(tuple(g) for g in groups)
        self.wanted = frozenset(t for g in groups for t in g)
        self._known: dict[str | None, dict[str, bool]] = {}
        self._each: dict[str | None, list[Callable[[str], list[str]]]] = {}

    def known(self, language: str | None) -> dict[str, bool]:
        """Word -> whether it stems to one of the terms in ``language``, for the words read so far (filled by
        the matchers)."""
        return self._known.setdefault(language, {})

    def each_group(self, language: str | None) -> list[Callable[[str], list[str]]]:
        """A matcher for each of the query's groups alone, kept for its hits as :meth:`known` is (a phrase's
        words are told apart group by group)."""
        if language not in self._each:
            self._each[language] = [_matcher([g], language) for g in self.groups]
        return self._each[language]


def query_matcher(
    groups: Sequence[Sequence[str]], language: str | None, query_words: QueryWords | None = None
) -> Callable[[str], list[str]]:
    """The function giving the words of a text that match the query's terms, as the snippets find them."""
    return _matcher(groups, language, query_words)


def _matcher(
    groups: Sequence[Sequence[str]], language: str | None, query_words: QueryWords | None = None
) -> Callable[[str], list[str]]:
    """A function giving the surface words of a text that match a query term. A single CJK character matches
    where a run holds it, as the index finds it in every bigram holding it (index.postings.holding_bigrams).
    ``query_words``: the query's (of these ``groups``), when it reads other texts too."""
    wanted = {t for g in groups for t in g}
    chars = {t for t in wanted if len(t) == 1 and _CJK_RUN.fullmatch(t)}
    matches = (query_words or QueryWords(groups)).known(language)

    def found(text: str) -> list[str]:
        out: list[str] = []
        for m in WORD.finditer(text):
            word = m.group(0)
            hit = matches.get(word)  # a CJK run is never kept there: it is looked up first as the commoner word
            if hit is None:
                if _CJK_RUN.fullmatch(word):
                    pairs = cjk_bigrams(word)
                    hits = {(i, p) for i, p in enumerate(pairs) if p in wanted}
                    hits.update((i, ch) for i, ch in enumerate(word) if ch in chars)  # the character, not its bigram
                    out.extend(p for _, p in sorted(hits))
                    continue
                hit = matches[word] = any(t in wanted for t in _word_terms(word, language))
            if hit:
                out.append(word)
        return out

    return found


def _weigher(
    groups: Sequence[Sequence[str]], weights: Sequence[float], language: str | None
) -> Callable[[list[str]], float]:
    """A function giving the query weight the found words of a sentence hold (each group counted once)."""
    group_of: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        for term in g:
            group_of.setdefault(term, []).append(i)

    def weigh(words: list[str]) -> float:
        held: set[int] = set()
        for word in words:
            terms = (word,) if _CJK_RUN.fullmatch(word) else _word_terms(word, language)
            held.update(i for t in terms for i in group_of.get(t, ()))
        return sum(weights[i] for i in held)

    return weigh


_DAY_OPENING = 30  # characters: a line opened by its day names it first ("Mittwoch, 12. März 2024: ...")


def day_passage(text: str, days: Sequence[str]) -> str:
    """What ``text`` writes under the days ``days`` (day terms, ``--03-12``: :func:`~batchsum.index.analysis.day_term`)
    name: the lines under a heading naming one (to the next heading), and the paragraphs a line opens by naming one
    (a final's "2024-03-12: ...", a digest's "**12 March.** ...", "June 2, 2024.--..."), to a blank line or a line
    opened by another day; ``text`` itself when it writes none. A file of many days is shown for a named day by
    that day's text: "12 March 2024" had shown the month file's first entry, "Bought a new bike." of 1 March."""
    wanted = set(days)
    if not wanted or not any(ch.isdigit() for ch in text):
        return text
    body = _FRONT_MATTER.sub("", strip_links(text), count=1)  # a front matter's doc_date opens no entry
    kept: list[str] = []
    mode = ""  # "heading": under the day's heading; "line": in a paragraph its line opened
    for line in (_ENTRY_LABEL.sub("\n", body) if "**" in body else body).split("\n"):
        opening = _HEADING_MARK.sub("", line).lstrip("*_>-+ \t")[:_DAY_OPENING]
        named = {day_term(d) for d in days_named(opening)} if any(ch.isdigit() for ch in opening) else set()
        if _HEADING.match(line):
            mode = "heading" if named & wanted else ""
            continue
        if mode == "line" and (not line.strip() or (named and not named & wanted)):
            mode = ""
        if not mode and named & wanted:
            mode = "line"
        if mode:
            kept.append(line)
    return "\n".join(kept) if any(line.strip() for line in kept) else text


def writes_day(sentence: str, days: Sequence[str]) -> bool:
    """Whether ``sentence`` writes one of ``days`` (day terms) in any form the index reads a day in."""
    return (
        bool(days)
        and any(ch.isdigit() for ch in sentence)
        and not set(days).isdisjoint(day_term(d) for d in days_named(sentence))
    )


def make_snippet(
    text: str,
    groups: Sequence[Sequence[str]],
    limit: int = SNIPPET_CHARS,
    *,
    language: str | None = None,
    cut_start: bool = False,
    cut_end: bool = False,
    weights: Sequence[float] | None = None,
    languages: Sequence[str] = (),
    days: Sequence[str] = (),
    query_words: QueryWords | None = None,
) -> tuple[str, list[str]]:
    """The sentences of ``text`` (about ``limit`` chars) with the most distinct query terms, and the words found.

    ``weights``: each group's weight in the query (its idf): the sentence holding the most weight wins, so
    "lighthouse" counts for more than "going" or a speaker's "Project Manager".

    ``languages``: those a digest's files are written in (its front matter's ``languages``): each paragraph
    is read in the one it is written in (its sentences, its French spacing).

    ``cut_start``, ``cut_end``: ``text`` is a window cut out of a longer text there, so its first (last)
    piece is likely part of a sentence and is used only when nothing else is there. A window that
    reaches the end of its text keeps its last sentence: a journal's newest lines are often the answer, and so
    does one whose text ends with a blank line (its cut fell in a code block or a table the page reads as none).

    A heading is no sentence; but when no sentence holds a query word and the page's title does (a note
    titled "Sourdough notes" found for "sourdough"), the title is the snippet: the reader sees why it matched.

    ``days``: the day terms of the days the query names; the sentences are chosen from what the text writes under
    them (:func:`day_passage`), a sentence writing one first among those holding as much of the other words.

    ``query_words``: the query's :class:`QueryWords` (of these ``groups``), when its other snippets share it."""
    text = day_passage(text, days)
    # A digest's page title names its period ("# May 1826"), a day file's its day ("# 2024年6月30日（星期日）"):
    # the hit shows both already.
    titles = (
        [t for h in _TITLE.findall(text) if not (only_a_period(t := _HEADING_MARK.sub("", h)) or is_dateline(t))]
        if "#" in text
        else []
    )
    every = sentences_by_paragraph(clean_text(text), language, languages)
    skip = 1 if cut_start and len(every) > 1 else 0
    cut_end = cut_end and not _ENDS_PARAGRAPH.search(text)
    numbered = every[skip : len(every) - 1 if cut_end and len(every) > skip + 1 else len(every)]
    if not numbered:
        return "", []
    paragraph, parts = [p for p, _ in numbered], [s for _, s in numbered]
    found = _matcher(groups, language, query_words)
    if weights is not None and len(weights) == len(groups):
        weigh = _weigher(groups, weights, language)

        def held(sentence: str) -> float:
            return weigh(found(sentence))
    else:

        def held(sentence: str) -> float:
            return len({w.lower() for w in found(sentence)})

    hits = [held(s) for s in parts]
    # The named day is what a day query asks for: of the sentences holding as much of its other words, one
    # that writes the day ("by November 20" for "2026-11-20") shows why the text was found.
    dated = [writes_day(s, days) for s in parts]
    best = max(range(len(parts)), key=lambda i: (hits[i], dated[i], -i))
    if hits[best] <= 0 and not dated[best] and titles:
        heads = [" ".join(clean_text(t).split()) for t in titles]
        top = max(range(len(heads)), key=lambda i: (held(heads[i]), -i))
        if held(heads[top]) > 0:
            title = heads[top] if len(heads[top]) <= limit else _cut(heads[top], limit, found)
            return title, sorted({w.lower(): w for w in found(title)}.values(), key=str.lower)
    chosen = parts[best]
    j = best + 1
    # More of the same paragraph only: a digest's next paragraph is another file's ("... out. 30IQTZ.").
    while len(chosen) < limit // 2 and j < len(parts) and paragraph[j] == paragraph[best]:
        chosen = run_on((chosen, parts[j]))
        j += 1
    # A sentence cut from inside a quotation shows it as quoted: "„Wir sollten ... sprechen.“", not a stray
    # closing mark; what the sentences before it in its paragraph (the first too) left open tells.
    chosen = _quotation_whole(chosen, " ".join(s for p, s in every[: best + skip] if p == paragraph[best]))
    turns = _reads_as_turns(text)
    if turns and j < len(parts) and paragraph[j] != paragraph[best] and chosen.endswith(("?", "？")):
        chosen = run_on((chosen, _answer(parts, paragraph, j, limit)))
    if len(chosen) > limit:
        chosen = _cut(chosen, limit, found)
    if turns:  # the turn's first sentence (a cut window's first too) names its speaker
        chosen = _with_speaker(chosen, next(s for p, s in every if p == paragraph[best]))
    words = sorted({w.lower(): w for w in found(chosen)}.values(), key=str.lower)
    return chosen, words


def day_item(
    text: str,
    groups: Sequence[Sequence[str]],
    days: Sequence[str],
    *,
    language: str | None = None,
    query_words: QueryWords | None = None,
) -> tuple[str, list[str]]:
    """The line of ``text`` (a final's Facets: one action item a line) writing one of ``days`` with the most of the
    query's words, whole, as the page prints it (an item is no run of sentences: "... by Friday. (owner: Jonas
    Weber, due: Friday 2026-11-20)" is one), and those words; ("", []) when no line writes one. ``words``: the
    query's, as for :func:`make_snippet`."""
    found = _matcher(groups, language, query_words)
    lines = [" ".join(ln.lstrip("-*+ ").split()) for ln in text.splitlines() if writes_day(ln, days)]
    if not lines:
        return "", []
    best = max(lines, key=lambda ln: len({w.lower() for w in found(ln)}))
    if len(best) > SNIPPET_CHARS:
        best = _cut(best, SNIPPET_CHARS, found)
    return best, sorted({w.lower(): w for w in found(best)}.values(), key=str.lower)


def _quotation_whole(sentence: str, before: str) -> str:
    """``sentence`` with the marks of a quotation it is cut from made whole, as the summarizer shows one
    (:func:`batchsum.cleanup.balance_quotes`): the quotation ``before`` left open opens it, and one it leaves
    open is closed."""
    opened = open_quotation(before)
    if opened or ANY_QUOTE_MARK.search(sentence):  # its italics' marks are the page's (clean_text's) business
        sentence = balance_quotes(sentence, opened)
    return sentence


def _reads_as_turns(text: str) -> bool:
    """Whether ``text`` reads as a conversation's turns: lines of at least two speakers (a note's "Breakfast:
    eggs." is no turn)."""
    return len({speaker(line) for line in text.splitlines()} - {None}) >= 2


def _answer(parts: list[str], paragraph: list[int], j: int, limit: int) -> str:
    """The opening of the turn at ``parts[j]``, which answers the question the turn before ended with: an
    interview's question repeats the query's words ("INTERVIEWER: When did the cannery close?"), and the
    reader asked for the answer ("SMITH: In 1979. They moved everything to Alaska.")."""
    answer, k = parts[j], j + 1
    while len(answer) < limit // 3 and k < len(parts) and paragraph[k] == paragraph[j]:
        answer = run_on((answer, parts[k]))
        k += 1
    return answer


def _with_speaker(chosen: str, opening: str) -> str:
    """A sentence from inside a conversation's turn with the turn's speaker before it ("Tom Becker: I'll
    also write the release notes."): who said it is half of what a meeting's snippet answers."""
    who = speaker(opening)
    if who is None or parse_speaker_line(chosen)[0] is not None:
        return chosen
    return f"{who}: {chosen}"


def _cut(text: str, limit: int, found: Callable[[str], list[str]]) -> str:
    """About ``limit`` chars of ``text`` around its first query word, cut at spaces, marked with "…"."""
    words = found(text)
    start = 0
    if words:
        at = text.find(words[0])
        if at > limit // 3:
            start = max(0, text.rfind(" ", 0, at - limit // 4) + 1)
    cut = text[start : start + limit]
    if start + limit < len(text) and " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return ("… " if start else "") + cut + (" …" if start + len(cut) < len(text) else "")


def highlight(snippet: str, terms: Sequence[str], mark: Callable[[str], str]) -> str:
    """``snippet`` with every occurrence of the found words passed through ``mark``; occurrences that overlap
    or touch are marked as one (a CJK word's bigrams: "星巴" and "巴克" are "星巴克"). A word found is marked
    where no other letter of its script goes on from it: "API" in "的API太贵了", not "api" in "capital"."""
    if not terms:
        return snippet
    spans: list[list[int]] = []
    for term in {t.lower() for t in terms if t}:
        cjk = bool(_CJK_RUN.fullmatch(term))
        before, after = ("", "") if cjk else (f"(?<!{LETTER})", f"(?!{LETTER})")
        # A lookahead finds every occurrence, also those overlapping another ("巴克" in "星巴克").
        found = re.finditer(rf"{before}(?=({re.escape(term)}){after})", snippet, re.IGNORECASE)
        spans.extend([m.start(1), m.end(1)] for m in found)
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out += [snippet[pos:start], mark(snippet[start:end])]
        pos = end
    return "".join([*out, snippet[pos:]])
