"""What an extractive summary must never pick: structural lines and sentences that cannot stand alone.

Pure, regex-based checks used by the extractive backend before scoring:

* **lines** that are layout, not prose: separators (``* * * *``, ``-----``), headings, tables of
  contents, back-of-book index entries, page headers and footers (short lines that repeat),
  licence and transcription boilerplate;
* **sentences** that open by pointing back at text the reader of a summary has not seen
  ("Partly, ...", "But ...", "This was ...") or that are cut-off fragments;
* **Markdown** that is not read as text: comments, fenced code, link targets and definitions.

Headings are kept apart from the prose (they are never candidates), and their words name the
section that follows, so scoring can tell an introduction or a conclusion from a methods section.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections import Counter
from collections.abc import Sequence

from batchsum.backends.adverts import is_advert
from batchsum.backends.apparatus import without_display_math
from batchsum.backends.back_matter import is_back_matter
from batchsum.backends.leaning import needs_context
from batchsum.day_words import heading_day
from batchsum.disfluency import is_dangling
from batchsum.readers.bracket_turns import LINK_DEFINITION
from batchsum.readers.note_syntax import note_syntax_as_text, without_html_comments
from batchsum.text import runs_on

__all__ = [
    "BOILERPLATE",
    "contents_lines",
    "entry_date",
    "heading_year",
    "is_back_matter",
    "is_boilerplate",
    "is_caption",
    "is_footnote",
    "is_fragment",
    "is_heading",
    "is_index_block",
    "line_kind",
    "markdown_as_text",
    "needs_context",
    "repeated_lines",
    "section_role",
]

BOILERPLATE = (
    "gutenberg",
    "produced by",
    "transcriber",
    "e-text",
    "etext",
    "illustrated by",
    "copyright",
    "all rights reserved",
    "http://",
    "https://",
    "www.",
    "isbn",
    "table of contents",
    "this ebook",
    "this e-book",
    "license",
    "licence",
    "distributed proofreading",
    "this email and any attachments",  # an e-mail's disclaimer
    "this e-mail and any attachments",
    "intended recipient",
    # Keep a Changelog's preamble: the template's sentences, the same in every changelog that follows it
    "notable changes to this project will be documented",
    "based on keep a changelog",
    "adheres to semantic versioning",
)

_SEPARATOR = re.compile(r"^[\W_]*$")  # no letter or digit at all: "* * * *", "-----", "~~~"
# The look-behinds start a match only at the head of a run of dots or blanks (quadratic otherwise: 41 s for a
# line of 30,000 ". "). Same matches.
_TOC_LEADER = re.compile(r"(?<!\.)(?<!\.\s)(?:\.\s?){3,}\s*\d+\s*$|(?<!\s)\s{3,}\d{1,4}\s*$")  # "Chapter I ..... 5"
# A page reference in an index entry is an item of a list ("Abbotsford, 12, 45-47, 301"; "Acland, Sir
# Thomas, ii. 163, 168."): between commas or semicolons (or the line's end), not an amount, a decimal
# or a share ("$1,234.5", "£60,000", "3.5", "26%"), which a sentence of figures has many of ("For 2020,
# revenues totaled $344 million, up 26% over 2019.").
_PAGE_REF = re.compile(
    r"[,;]\s+(?:\b[ivx]{1,4}\.\s*|\bp{1,2}\.\s*)?\d{1,4}(?:[-–]\d{1,4})?\b(?![.,]\d|%)(?=\s*(?:[,;.]|$))"
)
# A chapter line: the part's name, capitalised, then its number or a capitalised word ("Chapter IV",
# "BOOK 2", "Letter Seven"); not a wrapped line of prose that starts with one ("Chapter 2, we must add a
# type ...", "volume of *Vivian Grey*; clever, ...", "Part of the reason was ...").
_CHAPTER = re.compile(
    r"^(?=(?-i:[A-Z]))(?:chapter|book|part|section|volume|vol\.|canto|act|scene|letter|appendix)\s+"
    r"(?:[ivxlcdm]+\b|\d+\b|(?-i:[A-Z])\w*)(?!,\s+[a-z])[^.!?]{0,60}$",
    re.IGNORECASE,
)
# A Roman numeral alone on its line ("XIV.", "iv"): a well-formed one, not "did", "civil" or "mild" (the
# last word of a paragraph, wrapped onto a line of its own).
_ROMAN = re.compile(r"^(?=[mdclxvi])m{0,4}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})\.?$", re.IGNORECASE)
_SENT_END = re.compile(r"[.!?…。！？][\"'”’)\]」』）]*$")
# A Markdown heading ("## Results", "#### person work" for a line of tags); not a wrapped line that opens
# with "#42" or "#1," ("... see issue\n#42 for the details").
_MD_HEADING = re.compile(r"#{1,6}(?:\s|$)")
_DIGITS = re.compile(r"\d")

_ROLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("skip", ("references", "bibliography", "acknowledg", "index", "contents", "footnotes", "notes", "funding")),
    ("skip", ("competing interests", "authors' contributions", "author contributions", "abbreviations")),
    ("skip", ("literature cited", "works cited", "cited literature")),
    ("lead", ("abstract", "summary", "introduction", "background", "overview", "preface")),
    ("close", ("conclusion", "conclusions", "discussion", "concluding", "findings", "outlook", "implications")),
    ("detail", ("method", "materials", "experimental", "procedure", "protocol", "statistical", "supplementary")),
)


# A meeting note's roll call: who came, not what was said.
_ROLL_CALL = re.compile(r"\s*(?:attendees|participants|present|absent|apologies|regrets|in attendance|cc)\s*:")


def is_boilerplate(text: str, advert: bool | None = None) -> bool:
    """Licence, transcription and publishing notes (Project Gutenberg headers, URLs, ISBNs, a publisher's
    catalogue), a sponsor's read and a meeting note's roll call ("Present: ..."). ``advert`` says whether ``text``
    is a sponsor's read where the caller has read that already (:func:`~batchsum.backends.adverts.advert_segments`)."""
    low = text.lower()
    if any(k in low for k in BOILERPLATE) or is_back_matter(text):
        return True
    if ":" in low[:20] and _ROLL_CALL.match(low):
        return True  # "Present: Ana Diaz, Maria Alvarez, James Okafor" had been a client call's summary
    # One sentence; the sentences of an ad around it: adverts.advert_segments.
    return is_advert(text) if advert is None else advert


def _norm_line(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()).lower())


def repeated_lines(lines: Sequence[str], min_count: int = 3, max_words: int = 12) -> frozenset[str]:
    """Short lines seen ``min_count`` times or more (digits ignored): running page headers and footers."""
    counts = Counter(_norm_line(ln) for ln in lines if ln.strip() and len(ln.split()) <= max_words)
    return frozenset(k for k, c in counts.items() if c >= min_count)


def line_kind(line: str, repeated: frozenset[str] = frozenset()) -> str | None:
    """What a whole line is when it is not prose, else None.

    ``separator``, ``heading``, ``short`` (a short unpunctuated line: see :func:`is_heading`),
    ``toc`` (a contents entry with a page number), ``index`` (a back-of-book index entry: a term
    followed by page numbers), ``header`` (a running page header: in ``repeated``) or ``table``.
    A line that ends like a sentence is prose unless it is a separator, header or index entry.
    """
    s = line.strip()
    if not s:
        return None
    if _SEPARATOR.match(s):
        return "separator"
    if _MD_HEADING.match(s):
        return "heading"
    if (s.startswith("|") and s.endswith("|")) or sum(map(s.count, "│┃║")) >= 2:  # Markdown's or drawn
        return "table"
    words = s.split()
    if len(words) <= 12 and _norm_line(s) in repeated:
        return "header"
    # The cheap tests first (a contents entry ends on its page number): these searches were the largest
    # share of a run's regex time.
    if len(words) <= 16 and s[-1].isdigit() and _TOC_LEADER.search(s):
        return "toc"
    if "," in s:
        refs = _PAGE_REF.findall(s)
        if len(refs) >= 2 and len(refs) >= 0.3 * len(words):
            return "index"  # "Abbotsford, 12, 45-47, 301"
    ends = bool(_SENT_END.search(s))
    if _CHAPTER.match(s) or _ROMAN.match(s):
        return "heading"
    if s.isupper() and len(words) <= 16 and _mostly_capitals(s):
        return "heading"
    if not ends and len(words) <= 12 and len(s) <= 90 and s[-1] not in ",;:-–—(\"“'‘":
        return "short"  # a heading when it stands alone; the caller knows the neighbours
    return None


def _mostly_capitals(s: str) -> bool:
    """Letters mostly capitals: "CHAPTER ONE", not a Chinese or Japanese line whose one Latin letter
    is a capital ("Ｅ君に青山の…": ``str.isupper`` ignores the letters that have no case)."""
    letters = [c for c in s if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) >= 0.5 * len(letters)


def is_heading(
    line: str, prev: str | None, nxt: str | None, cased: bool = True, rest: Sequence[str] | None = None
) -> bool:
    """A ``short`` line is a heading when it opens a paragraph and does not read as wrapped prose.

    ``prev``/``nxt`` are the neighbouring lines (None at the text's edges; blank lines count as
    edges). Hard-wrapped prose also has short unpunctuated lines, but inside a paragraph, or
    as wide as the line after it, or holding part of a sentence (:func:`in_a_sentence`: "We went
    home early. A long" above "day of meetings ..."). ``rest``, given for the text's first line only: the
    lines of its paragraph after it, over which it may stand as the text's title (:func:`_title_over`).
    """
    if prev is not None and prev.strip():
        return False
    if rest and cased and _wrapped_title([line, *rest]):
        return True
    if in_a_sentence(line, None, nxt, cased):
        return False
    if nxt is None or not nxt.strip():
        return True
    s = line.strip()
    return s.istitle() or len(s) < 0.6 * len(nxt.strip()) or (cased and bool(rest) and _title_over(line, rest or ()))


# A sentence's end inside a line, with more of the line after it: "We went home early. A long". The stop
# follows a lower-case word (not "Part One. The Storm", "Chapter 1. Introduction", "Dr. Who").
_END_INSIDE = re.compile(r"(?<![^\W\d_])[a-z][a-z'’]+[.!?…][\"'”’)\]]*\s+[\"'“‘(]?[^\W\d_]")
# Opening marks before a line's first word: quotes, brackets, emphasis.
_LINE_OPENERS = "\"'“‘«([*_ \t"


def in_a_sentence(line: str, prev: str | None, nxt: str | None, cased: bool = True) -> bool:
    """Whether ``line``, shaped like a heading (short and unpunctuated, a chapter's or a Roman numeral), is
    a piece of a sentence hard-wrapped over several lines, which no heading is: the prose line before it in
    its paragraph (``prev``) runs on into it (:func:`batchsum.text.runs_on`), it holds the end of a sentence and more
    ("We went home early. A long"), it ends on a word that needs one after it ("an", "the", "and", "my"), or
    the line after it in its paragraph (``nxt``) goes on in lower case ("... the general" above "meeting of
    the Oil Gas Company ...") in a text that opens its sentences with capitals (``cased``:
    :func:`capitalised`). A Markdown heading ("## Results") is one whatever its neighbours."""
    s = line.strip()
    if not s or _MD_HEADING.match(s):
        return False
    if prev is not None and runs_on(prev):
        return True
    # An editor's dateline or note set in italics alone on its line ("_If I live. February 23. Nicholskoe._")
    # is a heading whatever stops it holds.
    alone = not (nxt or "").strip() and not (prev or "").strip()
    if _END_INSIDE.search(s) and not (alone and len(s) > 2 and s[0] in "_*" and s[-1] == s[0]):
        return True
    last = _LAST_WORD.search(s)
    if last is not None and last.group(1) in _DANGLING:
        return True
    after = (nxt or "").lstrip(_LINE_OPENERS)
    return cased and after[:1].islower() and not s.isupper()


# A contents entry's label: a bullet, a part's name, a number ("3.", "12", "2.1"), a Roman numeral or a
# letter with its stop ("XII.", "iv)", "B."); a Roman numeral or a letter needs its stop ("I went ..." is prose).
_ENTRY_LABEL = re.compile(
    r"(?:[-*+•][ \t]+)?(?:(?:chapter|book|part|section|volume|canto|act|scene|letter|appendix)[ \t]+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*[.):]?|[ivxlcdm]{1,7}[.):]|[a-z][.)])(?:[ \t]+|$)",
    re.IGNORECASE,
)
_WORD_LETTERS = re.compile(r"[^\W\d_]+")
_TITLE_WORDS = 10  # a title this long at most; a longer line is a sentence
# The words a title leaves in lower case (articles, conjunctions, short prepositions; a few of French,
# German, Spanish and Dutch names): every other word of a title is capitalised.
_MINOR_WORDS = frozenset(
    """a an the and but or nor for so yet as at by in of off on per to up via vs with from into onto over upon
    unto than near de la le les des du et von van der den di da del y e en und""".split()
)


def _title_line(line: str) -> bool:
    """Whether ``line`` reads as an entry of a list of titles: short, without a sentence's punctuation at its
    end, and numbered ("3.  How Dorothy Saved the Scarecrow", "XII. Le retour") with no lower-case letter
    opening the title, or in title case ("The Council with the Munchkins": every word capitalised but
    articles, conjunctions and short prepositions). A line in a script without capitals needs its number."""
    s = line.strip()
    if not s or len(s) > 90 or s[-1] in '.,;:!?…。！？，；："”’':
        return False
    label = _ENTRY_LABEL.match(s)
    rest = s[label.end() :] if label is not None else s
    words = [m.group(0) for m in (_WORD_LETTERS.search(w) for w in rest.split()) if m is not None]
    if len(rest.split()) > _TITLE_WORDS:
        return False
    if label is not None:
        return not words or not words[0][0].islower()  # "3.  The Cyclone", "XII. 雨"; not "1. open the lid"
    if not words or not any(w[0].isupper() for w in words):
        return False  # a line in lower case, or in a script without capitals
    return not words[0][0].islower() and all(not w[0].islower() or w.lower() in _MINOR_WORDS for w in words)


def contents_lines(lines: Sequence[str]) -> frozenset[int]:
    """The lines of ``lines`` that are entries of a list of titles, such as a book's contents ("1.  The
    Cyclone", "2.  The Council with the Munchkins", ...): in a paragraph of three lines or more, two thirds
    of them (three at least) read as titles (:func:`_title_line`) and none goes on in lower case from the
    line before it (hard-wrapped prose in title case, "... George Washington" / "Cable (1844- ), Thomas
    Nelson Page ..." does). Its lines that end no sentence are entries; a sentence among them stays."""
    out: set[int] = set()
    start = 0
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            continue
        if i - start >= 3:
            para = range(start, i)
            titles = sum(1 for k in para if _title_line(lines[k]))
            if titles >= 3 and titles >= 2 * (i - start) / 3 and not any(_goes_on_lower(lines[k]) for k in para):
                out.update(k for k in para if _title_line(lines[k]) or not _SENT_END.search(lines[k].rstrip()))
        start = i + 1
    return frozenset(out)


def _goes_on_lower(line: str) -> bool:
    """Whether ``line`` opens with a lower-case word (past a contents entry's label): a wrapped line's rest."""
    s = line.strip()
    label = _ENTRY_LABEL.match(s)
    rest = s[label.end() :] if label is not None else s
    first = next((c for c in rest if c.isalpha()), "")
    return first.islower()


# "[228] W. Scott, Esq., ...", and Project Gutenberg's "[Footnote 6: In a letter to ...]"; a paper's "†This work
# was supported by ...", "¹ Department of ..." (a mark then a word: "§ 1983" is a section of a statute; a book's
# pilcrow, "¶ Mr. WELLS has also written ...", marks a paragraph).
_FOOTNOTE = re.compile(
    r"^\s*(?:\[(?:(?:\d{1,4}|[a-z*†])\]\s|Footnote [\w*†]{1,4}:)|(?:[†‡§]|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)\s?[^\W\d_])"
)


def is_footnote(line: str) -> bool:
    """A footnote or endnote body: a line that opens with its marker, bracketed ("[12] ...") or a paper's
    dagger, section sign or superscript figure ("†This work was supported by ...")."""
    return _FOOTNOTE.match(line) is not None


# An illustration's caption in a printed book: "[Illustration: PETER FLEW IN]", or the text of a picture
# with its file, "{How dare I, Mrs. Reed? ...: p30.jpg}" (Project Gutenberg's Jane Eyre).
_CAPTION = re.compile(r"^\s*(?:\[Illustrations?\b[^\]]*\]|\{[^{}]*\.(?:jpe?g|png|gif)\s*\})\s*$", re.IGNORECASE)


def is_caption(lines: Sequence[str]) -> bool:
    """The block is an illustration's caption: a picture's words, not the text's."""
    return _CAPTION.match(" ".join(lines)) is not None


def is_index_block(lines: Sequence[str]) -> bool:
    """Most lines of the block carry page references ("Acland, Sir Thomas, ii. 163, 168."): an index."""
    body = [ln for ln in lines if ln.strip()]
    if len(body) < 3:
        return False
    hits = sum(1 for ln in body if _PAGE_REF.search(ln))  # a reference follows a comma or a semicolon
    return hits >= 0.6 * len(body)


_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_MONTH = r"_?\*{0,2}(" + "|".join(m.capitalize() for m in _MONTHS) + r")\*{0,2}_?"
# "_August_ 25.", "August 25th, 1903", "Monday, 25 August 1903": an English journal's day in words.
_WORDS_DATE = re.compile(
    rf"^(?:[A-Z][a-z]+day,?\s+)?(?:{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH})"
    r"(?:,?\s+(\d{4}))?[.,:]?(?:--)?$"
)
_YEAR = re.compile(r"^[_*]*(1[5-9]\d\d|20\d\d)[_*.]*$")


def heading_year(heading: str) -> int | None:
    """The year a heading of its own names ("1903" over a year's entries), else None."""
    m = _YEAR.match(heading.strip())
    return int(m.group(1)) if m else None


def entry_date(heading: str, year: int | None = None) -> str | None:
    """The ISO date a journal entry's heading names ("## 2025-03-02 (Sunday)", or in words, "_August_
    25." under a heading "1903", which is ``year``), else None."""
    m = _ISO_DATE.search(heading)
    if m is None:
        words = _WORDS_DATE.match(heading.strip())
        if words is None:
            return heading_day(heading, year)  # "2024/05/03", "3 мая", "2024年5月3日", "3. Mai 2024"
        month = _MONTHS.index((words.group(1) or words.group(4)).lower()) + 1
        day = int(words.group(2) or words.group(3))
        year = int(words.group(5)) if words.group(5) else year
        if not year:
            return None
        try:
            return dt.date(year, month, day).isoformat()  # not "February 30"
        except ValueError:
            return None
    if len(heading.split()) > 8:
        return None
    year_, month, day = (int(g) for g in m.groups())
    if year_ < 1000:
        return None
    try:
        return dt.date(year_, month, day).isoformat()  # not "2024-02-30": the reader warns of it and dates nothing
    except ValueError:
        return None


def section_role(heading: str) -> str | None:
    """``lead``, ``close``, ``detail`` or ``skip`` for a heading's words; None when it names no known part."""
    low = " ".join(re.findall(r"[a-z']+", heading.lower().replace("’", "'")))  # "authors’ contributions"
    if not low:
        return None
    for role, keys in _ROLES:
        if any(low.startswith(k) or f" {k}" in f" {low}" for k in keys):
            # Back matter is named by its heading alone ("References", "Notes and references", "Table of
            # Contents"): a title that only starts with such a word is a part of the text, as the Rust book's
            # "References and Borrowing" or a journal's "Notes from the harbour meeting".
            if role == "skip" and not all(w in _CONNECTIVES or any(w.startswith(k) for k in _SKIP_WORDS)
                                          for w in low.replace("'", "").split()):  # fmt: skip
                continue
            return role
    return None


_SKIP_WORDS = tuple(w.replace("'", "") for _, keys in _ROLES[:3] for k in keys for w in k.split())
_CONNECTIVES = frozenset("and of the table list".split())


# A sentence that ends on one of these, written in lower case, was broken off: "So we go with the.", "I
# think that if." (Prepositions are left out: "what we talked about." is a whole sentence; so are "her"
# and "his", which end many as pronouns: "I'll say that for her."; "Q&A." ends on no article. "as" ends none:
# "is provided as." is what a scraped paper's stripped reference leaves.)
_DANGLING = frozenset("a an the and or but nor because if than my your our their its to as".split())
# The look-behind starts a match only where a word starts: tried from every letter of a word, the
# search was quadratic in the word's length and a large share of a run's regex time. Same matches.
_LAST_WORD = re.compile(r"(?<![A-Za-z'])([A-Za-z']+)\W*$")


def is_fragment(sentence: str) -> bool:
    """True for a sentence broken off mid-clause (it ends on an article, a conjunction or a possessive,
    or on a comma, a semicolon or a dash: "Mr. Sharp commenced,—"), or one that announces what follows
    it and ends there ("... dit tout en riant :", "说道：——"), or trails off ("…") after a word that leaves its
    phrase open ("First we have a look at…", where a transcriber heard nothing). A "…" after a whole phrase is
    a pause, said ("Booked the venue in Porto…"); so is a transcript's own "...": read as broken off, CRD3's game
    sessions lost 0.1 on each metric."""
    end = sentence.rstrip()
    if end.endswith(("-", "–", "—", "―", ":", "：", ",", "，", ";")):
        return True
    if end.endswith("…"):
        last = re.findall(r"[\w'’]+", end)
        return bool(last) and is_dangling(last[-1])
    m = _LAST_WORD.search(end)
    return m is not None and m.group(1) in _DANGLING


# What a rendered Markdown page does not show, or shows as its text: a comment (``<!-- ignore -->``, one remover
# for it and the reader: :func:`batchsum.readers.note_syntax.without_html_comments`), a
# fenced code block (code is never a summary sentence), an empty anchor (``<a id="x"></a>``), an image
# (Markdown's or an ``<img>`` whose alt text spans lines),
# a link reference definition (``[devtools]: appendix-04.html``), a link's target (``[Appendix D][devtools]``
# and ``[Appendix D](appendix-04.html)`` read "Appendix D"). Emphasis stays: a summary is Markdown too.
# An HTML block: a line that is one tag or one element (mdBook's ``<Listing number="10-8" caption="A
# `Point<T, U>` ...">``, ``<span class="caption">Listing 4-1: ...</span>``), never a sentence.
# A bare ``<dig>`` on a line is a scraped paper's placeholder inside a sentence, not a tag: it stays.
# In a blockquote too ("> <Listing file-name=...>").
_MD_HTML_LINE = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:<[A-Za-z][\w-]*[ \t][^\n]*>|</[A-Za-z][\w-]*>)[ \t]*$", re.M)
# Backticks only: a line of tildes is as often a scene break in a story.
_FENCE_OPEN = re.compile(r"^[ \t]*```[^\n]*$", re.M)
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.M)
# A fence inside a blockquote ("> ```console"): its "> " marks, then the fence.
_QUOTED_FENCE = re.compile(r"^[ \t]*((?:>[ \t]?)+)[ \t]*```", re.M)
_QUOTE_PREFIX = re.compile(r"[ \t]*((?:>[ \t]?)*)[ \t]*")
_MD_ANCHOR = re.compile(r"<a\s[^<>]*>\s*</a>")
_MD_IMAGE = re.compile(r"!\[[^\[\]\n]*\]\((?:[^()\n]|\([^()\n]*\))*\)")
_HTML_IMAGE = re.compile(r"<(?:img|IMG)\b[^<>]*>")  # its alt text may span lines
_MD_LINK_DEF = LINK_DEFINITION  # one URL or path: "[SPEAKER_00]: Welcome back." is a turn
# A link's text may wrap onto the next line of its paragraph, never across a blank line.
# Its text holds no "[" and its target no "(" but a pair ("wiki/Mercury_(planet)"): an unclosed one
# stops at the next (a line of 80,000 "[" or 20,000 "[a](" had taken minutes).
_MD_LINK = re.compile(
    r"\[((?:[^\[\]\n]|\n(?!\s*\n))+)\](?:\[[^\[\]\n]*\]|\((?:[^()\s]|\([^()\s]*\))+(?:[ \t]+\"[^\"\n]*\")?\))"
)


def _blank(m: re.Match[str]) -> str:
    return "\n" * m.group(0).count("\n")


def _without_fences(text: str) -> str:
    """``text`` with each fenced code block (an opening fence line to the next bare ``` line) as blank
    lines; an unclosed fence stays. Paired by position: a lazy regex had scanned to the end of the text
    from every fence line without a closing one."""
    closes = [m.start() for m in _FENCE_CLOSE.finditer(text)]
    ends = {m.start(): m.end() for m in _FENCE_CLOSE.finditer(text)}
    out: list[str] = []
    pos = 0
    for opener in _FENCE_OPEN.finditer(text):
        if opener.start() < pos:
            continue  # inside a block already left out
        k = bisect.bisect_right(closes, opener.end())
        if k == len(closes):
            break
        close_end = ends[closes[k]]
        out += [text[pos : opener.start()], "\n" * text.count("\n", opener.start(), close_end)]
        pos = close_end
    out.append(text[pos:])
    return "".join(out)


def _without_quoted_fences(text: str) -> str:
    """``text`` with each fenced code block inside a blockquote as blank lines: from its opening fence
    ("> ```console") to the closing one at the same depth ("> ```"), or to the end of its blockquote,
    which closes it (CommonMark). The rustc output a book quotes is code as much as the code it shows."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _QUOTED_FENCE.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        depth = m.group(1).count(">")
        j = i + 1
        while j < len(lines):
            q = _QUOTE_PREFIX.match(lines[j])
            assert q is not None  # it matches the empty string
            marks = q.group(1).count(">")
            if marks < depth:
                break  # the blockquote ends, and its code block with it
            j += 1
            if marks == depth and lines[j - 1][q.end() :].rstrip() == "```":
                break  # the closing fence
        out += [""] * (j - i)
        i = j
    return "\n".join(out)


def markdown_as_text(text: str) -> str:
    """``text`` as a reader of its rendered Markdown sees it: without comments, fenced or indented code,
    display math, empty anchors, images and link reference definitions, and with each link as its text; without its
    front matter and with a note-taking app's marks as their reader sees them
    (:func:`batchsum.readers.note_syntax.note_syntax_as_text`). A removed block leaves its line breaks behind,
    so paragraphs stay where they were."""
    # Each pass only where its mark occurs: the line-anchored patterns cost a scan of every line of a
    # book (profile of the extractive bench: 1.9 s of 38.5 MB of Gutenberg books without these checks).
    if "<" in text:
        text = _MD_HTML_LINE.sub(_blank, without_html_comments(text))
        text = _HTML_IMAGE.sub("", _MD_ANCHOR.sub("", text))
    if "```" in text:
        if _QUOTED_FENCE.search(text):
            text = _without_quoted_fences(text)
        text = _without_fences(text)
    if "\n    " in text or "\n\t" in text:
        text = _INDENTED_RUN.sub(_indented_code, text)
    text = note_syntax_as_text(text)  # front matter, wikilinks, hidden comments, tasks: after the code is gone
    text = without_display_math(text)  # a "$$ ... $$" block is a formula, never a sentence
    if "[" in text:
        text = _MD_LINK.sub(r"\1", _MD_LINK_DEF.sub("", _MD_IMAGE.sub("", text)))
        text = _GLUED_CAPTION.sub(r"\1", text) if "llustration" in text else text
    return text


# A book's illustration mark with its line's text after it ("[Illustration: (pointing finger)] =The Set post free
# 2/3."): the picture is no text, the rest of its line is. One alone on its line is a caption (:func:`is_caption`).
_GLUED_CAPTION = re.compile(r"^([ \t]*)\[Illustrations?\b[^\]\n]*\][ \t]+(?=\S)", re.MULTILINE | re.IGNORECASE)


# A run of lines indented four spaces or a tab; Markdown's indented code when a blank line opens it.
_INDENTED_RUN = re.compile(r"^(?: {4}|\t)[ \t]*\S[^\n]*(?:\n(?: {4}|\t)[ \t]*\S[^\n]*)*", re.M)
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s*$")
# Braces, angle brackets, a path, a call "f(x)", an assignment or an arrow: what code has and verse has not
# (a scanned book's page mark "{165a}" is no brace).
_CODE_MARK = re.compile(r"[{}<>`\\]|[^\W_]\(|\w/\w|\s=\s|==|->|=>|::")
_PAGE_MARK = re.compile(r"\{\d+[a-z]?\}")


def _indented_code(m: re.Match[str]) -> str:
    """An indented run as blank lines when it is an indented code block: a blank line (or the start)
    before it, and it reads as code (braces, operators, a path, a call) with no line ending a sentence.
    A plain-text book indents its verse, letters and chapter titles the same way."""
    text, start = m.string, m.start()
    line_before = text[text.rfind("\n", 0, max(0, start - 1)) + 1 : max(0, start - 1)]
    block = m.group(0).split("\n")
    if (
        (start == 0 or not line_before.strip())
        and any(_CODE_MARK.search(_PAGE_MARK.sub("", line)) for line in block)
        and not any(_SENTENCE_END.search(line) for line in block)
    ):
        return "\n" * (len(block) - 1)
    return m.group(0)


def _title_over(line: str, rest: Sequence[str]) -> bool:
    """Whether ``line``, a text's first line, short and unpunctuated, is its title over the lines ``rest`` of
    its paragraph ("Oral history interview with Walter Kim, retired longshoreman" over "Recorded 2 February
    2026, Tacoma. ..."), not the first line of hard-wrapped prose or verse. The next line opens a sentence
    (a capital) at the margin (verse's and a quotation's lines are indented), after a line that ends on a
    lower-case word: not a name running on across the wrap ("... and the Online" over "Distributed
    Proofreading Team") nor a word that needs one after it ("at", "of"). Over more lines, they read as prose,
    not all opening with capitals as verse's do, and the next line's first word would have fit on ``line``
    (the paragraph's width is its longest line): a wrapped paragraph's lines are as wide as they can be."""
    last, nxt = line.split()[-1], rest[0]
    if not (_opens_sentence(nxt) and last.isalpha() and last.islower() and last not in _MINOR_WORDS):
        return False
    if nxt[:1].isspace():
        return False
    if len(rest) < 2:
        return True
    width = max(len(ln.rstrip()) for ln in rest)
    return not all(map(_opens_sentence, rest)) and len(line.strip()) + 1 + len(nxt.split()[0]) <= width


def _wrapped_title(lines: Sequence[str]) -> bool:
    """Whether a text's first paragraph, two or three lines, is its title wrapped ("Sleep Restriction Impairs Working
    Memory Consolidation" over "in Adolescents: A Randomized Crossover Trial"): every line in title case, every word
    capitalised but the minor ones (a wrapped line may open with one), none ending as a sentence does."""
    if not 2 <= len(lines) <= 3 or is_boilerplate(" ".join(lines)):
        return False  # "Produced by ... and the Online" over "Distributed Proofreading Team": a credit, no title
    for line in lines:
        s = line.strip()
        words = [m.group(0) for m in (_WORD_LETTERS.search(w) for w in s.split()) if m is not None]
        if not s or s[-1] in '.,;:!?…"”’' or len(s.split()) > _TITLE_WORDS + 2 or not words:
            return False
        if not all(w[0].isupper() or w.lower() in _MINOR_WORDS for w in words):
            return False
    return True


def _opens_sentence(line: str) -> bool:
    """Whether ``line`` opens with a capital, past opening quotes, brackets and emphasis."""
    return line.lstrip(_LINE_OPENERS)[:1].isupper()
