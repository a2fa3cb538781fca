"""A printed page's layout read away as a file is read, so the summarizer, the index and type detection all
see the words only: a court reporter's line-number gutter (:func:`without_line_numbers`), a deposition's
``Q.``/``A.`` labels (:func:`qa_as_labels`), a printed play's ``NAME.`` labels (:func:`play_as_labels`) and
the page furniture between the halves of a sentence a form feed cuts (:func:`across_form_feeds`).
:func:`strip_control` is :func:`batchsum.readers.decoding.strip_control` after all four and two-column pages read a
column at a time (:mod:`batchsum.readers.pdf_columns`): read_document calls it on every text it reads.

Each leaves a text without such a layout exactly as it was (the same object).
"""

from __future__ import annotations

import functools
import re

from batchsum.readers.decoding import strip_control as _strip_control
from batchsum.readers.pdf_columns import in_reading_order
from batchsum.speaker_labels import parse_speaker_line
from batchsum.text import runs_on

__all__ = ["across_form_feeds", "play_as_labels", "qa_as_labels", "strip_control", "without_line_numbers"]

# A gutter line: a line number, then spacing (two blanks or a tab: "1. Buy milk", "2) ..." and "3 apples" are
# a list's) and the line's text, or the number alone (a blank line of the page). A form feed may open it.
_GUTTER = re.compile(r"[ \t\f]*(\d{1,2})(?:(?: {2,}|[ \t]*\t)[ \t]*(\S.*?)|[ \t]*)[ \t]*")
_SAMPLE = 50_000  # characters: a transcript shows its layout on its first pages
_MIN_RUN = 5  # consecutive numbered lines: fewer are a list, or a table's first rows
_MAX_LINE = 30  # a page holds 25 lines (28 in some courts); a count past 30 numbers a listing, not a page
_MIN_SHARE = 0.6  # of the non-blank lines in runs: a transcript is numbered throughout, a note here and there
_MAX_TABULAR = 0.2  # gutter lines whose text opens with a figure or holds columns: a table's or a log's rows
_COLUMNS = re.compile(r"\S {2,}\S.* {2,}\S")  # three columns or more
# A page's number standing alone: "Page 14", "Page 3 of 40", "- 14 -", "14".
_PAGE_MARK = re.compile(
    r"[ \t\f]*(?:page[ \t]+\d{1,4}(?:[ \t]+of[ \t]+\d{1,4})?|[-–—][ \t]*\d{1,4}[ \t]*[-–—]|\d{1,4})[ \t]*", re.I
)


def _gutter_runs(lines: list[str]) -> list[tuple[int, str]] | None:
    """The line indexes and texts of ``lines`` in runs of numbered lines counting up by one (blank lines
    between them are double spacing), or None when a count goes past a page's lines."""
    runs: list[list[tuple[int, str]]] = []
    run: list[tuple[int, str]] = []
    last = 0
    for i, line in enumerate(lines):
        if not line.strip(" \t\f"):
            continue
        m = _GUTTER.fullmatch(line)
        n = int(m.group(1)) if m else 0
        if m and n > _MAX_LINE and run and n == last + 1:
            return None  # 29, 30, 31, ...: a numbered listing, a log's counter
        if m and run and n == last + 1:
            run.append((i, m.group(2) or ""))
        else:
            runs.append(run)
            run = [(i, m.group(2) or "")] if m and 0 < n <= _MAX_LINE else []
        last = n
    runs.append(run)
    return [entry for r in runs if len(r) >= _MIN_RUN for entry in r]


def _gutter(text_or_lines: str | list[str]) -> list[tuple[int, str]] | None:
    """The numbered lines of a gutter (:func:`_gutter_runs`) when they hold most of the non-blank lines and
    their texts are not a table's or a log's rows; else None."""
    lines = text_or_lines.split("\n") if isinstance(text_or_lines, str) else text_or_lines
    numbered = _gutter_runs(lines)
    filled = sum(1 for line in lines if line.strip(" \t\f"))
    if not numbered or len(numbered) < _MIN_SHARE * filled:
        return None
    said = [t for _, t in numbered if t]
    if sum(1 for t in said if t[0].isdigit() or _COLUMNS.search(t)) > _MAX_TABULAR * len(said):
        return None
    return numbered


def without_line_numbers(text: str) -> str:
    """``text`` without a court reporter's line-number gutter (" 1   Q.   What happened ...", " 2   A. ...",
    restarting at 1 on each page), each line's text without its indentation, and without the page marks
    ("Page 14") between the pages; any other text as it is.

    A gutter is runs of at least five lines whose numbers (at most 30) count up by one, followed by spacing,
    holding most of the text's non-blank lines, whose texts are not a table's rows or a log's (a figure
    first, or three columns): the numbers had been read as words ("the April 3 deadline", a date made up
    from a line number) and hidden the speakers that make a hearing a conversation.
    """
    if not re.search(r"^[ \t\f]*\d{1,2}(?: {2,}|[ \t]*\t|[ \t]*$)", text[:_SAMPLE], re.M):
        return text  # the cheap test first: most texts have no numbered line at all
    # Decided on the text's opening first: a book of 200 MB is split into lines only when it is a transcript.
    if len(text) > _SAMPLE and not _gutter(text[: text.rfind("\n", 0, _SAMPLE) + 1]):
        return text
    lines = text.split("\n")
    numbered = _gutter(lines)
    if numbered is None:
        return text
    out: list[str | None] = list(lines)
    for i, line in enumerate(lines):
        if line.strip(" \t\f") and _PAGE_MARK.fullmatch(line):
            out[i] = "\f" if "\f" in line else None  # the page break stays, its number goes
    for i, said_here in numbered:
        out[i] = ("\f" if "\f" in lines[i] else "") + said_here  # a numbered blank line stays a blank line
    return "\n".join(line for line in out if line is not None)


# A deposition's labels: "Q.   What happened?" / "A.   Mr. Patel told us ...", the form court reporters use.
_QA_LINE = re.compile(r"^[ \t]*([QA])\.[ \t]+(?=\S)", re.M)
_LETTERED = re.compile(r"^[ \t]*[A-Z]\.[ \t]+\S", re.M)  # an outline's "A. Introduction", "B. ...", "I. ..."


def qa_as_labels(text: str) -> str:
    """``text`` with a deposition's ``Q.`` and ``A.`` line labels written ``Q:`` and ``A:``, the labels every
    reader of turns knows (:func:`batchsum.speaker_labels.parse_speaker_line`); any other text as it is.

    Whether a line's "A." is a label is decided for the whole text ("A. Smith said ..." alone is a name's
    initial): it is one when two lines or more open with "Q." and two or more with "A.", and lines lettered
    otherwise (an outline's "B.", "C.", "I.") are few beside them. "BY MR. SMITH:" (the examiner changes)
    stays as it is: no one says it.
    """
    if "Q." not in text or "A." not in text:
        return text
    sample = text[:_SAMPLE]  # decided on the opening pages: a book of 200 MB is scanned once, not twice
    labels = [m.group(1) for m in _QA_LINE.finditer(sample)]
    asked, answered = labels.count("Q"), labels.count("A")
    others = len(_LETTERED.findall(sample)) - len(labels)
    if asked < 2 or answered < 2 or others * 4 >= len(labels):
        return text
    return _QA_LINE.sub(lambda m: f"{m.group(1)}: ", text)


# A printed play's labels (Gutenberg's Shakespeare, Ibsen, Shaw, Plato): "SAMUEL. The glass is falling fast.",
# "MRS. ALVING. ...": one to three words in capitals (a title's period inside), a period, the line.
_PLAY_LINE = re.compile(r"^([ \t]*)((?:[A-Z][A-Z'’-]*\.?[ \t]){0,2}[A-Z][A-Z'’-]*)\.[ \t]+(?=\S)", re.M)
# "CHAPTER IV.", "II. Methods": a heading's number, not a name
_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_PARAGRAPH_START = re.compile(r"(?:\A|\n[ \t]*\n)[ \t]*(?=\S)")
# The colon form's thresholds (walk.detect_type: four turns or more, two in five of the places one can open;
# backends.units' cast: two names or more).
_MIN_TURNS = 4
_MIN_TURN_SHARE = 0.4
_MIN_NAMES = 2
# A page of minutes or notes leads its paragraphs with these in capitals ("AGREED. Budget up.", "ACTION. Ana
# writes."), as a play leads with its characters' names; they alternate as turns do, so only the word tells.
_AGENDA_WORDS = frozenset(
    "AGREED ACTION ACTIONS RESOLVED NOTED NOTE NOTES MOTION ITEM ITEMS DECISION DECISIONS SUMMARY AGENDA MINUTES "
    "PRESENT ABSENT APOLOGIES ATTENDEES CARRIED SECONDED PROPOSED APPROVED DEFERRED TABLED OUTCOME RESULT "
    "UPDATE STATUS QUESTION ANSWER WARNING TIP EXAMPLE TODO DONE NEXT".split()
)


def _alternate(names: list[str]) -> bool:
    """Whether the speakers ``names`` (in order) hand the word back: one speaks again after another has
    (A, B, A). A list's leads ("UTAH. ...", "NEVADA. ...", "IDAHO. ...") each come once; a dialogue's return."""
    seen: set[str] = set()
    last = None
    for name in names:
        if name != last and name in seen:
            return True
        seen.add(name)
        last = name
    return False


@functools.lru_cache(maxsize=256)
def _play_name(label: str) -> bool:
    """Whether ``label`` (what opens a line before ". ") names a speaker: its last word is a name of two
    letters or more, not a number ("CHAPTER I", "PART IV"), and the colon form would read it as one
    (:func:`batchsum.speaker_labels.parse_speaker_line`: "NOTE", "SUMMARY" are no speakers)."""
    last = label.split()[-1]
    if sum(map(str.isalpha, last)) < 2 or _ROMAN.fullmatch(last) or label.upper() in _AGENDA_WORDS:
        return False
    return parse_speaker_line(f"{label}: -")[0] == label


def play_as_labels(text: str) -> str:
    """``text`` with a printed play's ``NAME.`` labels ("SAMUEL. The glass is falling fast.") written
    ``NAME:``, the labels every reader of turns knows; any other text as it is.

    Whether such a line opens a turn is decided for the whole text, on its opening pages, as for
    :func:`qa_as_labels` ("NASA. The agency ..." alone is a sentence): it is one when four lines or more
    open with a name in capitals and a period, two names or more among them, and they open two in five of
    the text's paragraphs and turns at least (a speech of Plato's is a hard-wrapped paragraph), and a name
    speaks again after another has (A, B, A: a trip plan's "UTAH. ...", "NEVADA. ..." leads come once each). An
    outline's "I. Introduction", "A. Smith wrote", "NOTE. ...", "CHAPTER I." and minutes' "AGREED. ...",
    "ACTION. ..." are no names.
    """
    sample = text[:_SAMPLE]
    if _PLAY_LINE.search(sample) is None:
        return text  # the cheap test first: most texts have no such line
    turns = [m for m in _PLAY_LINE.finditer(sample) if _play_name(m.group(2))]
    names = {m.group(2) for m in turns}
    opening = {m.start() + len(m.group(1)) for m in turns}
    others = sum(1 for p in _PARAGRAPH_START.finditer(sample) if p.end() not in opening)
    if len(turns) < _MIN_TURNS or len(names) < _MIN_NAMES or len(turns) < _MIN_TURN_SHARE * (len(turns) + others):
        return text
    if not _alternate([m.group(2) for m in turns]):
        return text
    return _PLAY_LINE.sub(lambda m: f"{m.group(1)}{m.group(2)}: " if _play_name(m.group(2)) else m.group(0), text)


_MAX_FURNITURE = 3  # lines a page break puts on each side: a footer, a page number, a running header
_INDENTED = re.compile(r"[ \t]{8,}\S")  # a centred or right-set line: a page's header or footer, not its text
_ENDS = re.compile(r"[.!?…:;][\"'”’)\]]*$")


def _furniture(line: str) -> bool:
    """Whether ``line`` is a page's header, footer or number: a page mark ("Page 7"), or a short line set off
    from the text (indented, or in capitals) that ends no sentence."""
    s = line.strip(" \t\f")
    if _PAGE_MARK.fullmatch(s):
        return True
    short = len(s.split()) <= 10 and _ENDS.search(s) is None
    letters = [c for c in s if c.isalpha()]
    capitals = bool(letters) and sum(c.isupper() for c in letters) >= 0.8 * len(letters)
    return short and (_INDENTED.match(line) is not None or capitals)


def _text_line(lines: list[str], order: range) -> int | None:
    """The first line of ``lines`` in ``order`` that is text, past blank lines and up to three of a page's
    furniture; None when there is none or more furniture."""
    skipped = 0
    for i in order:
        if not lines[i].strip(" \t\f"):
            continue
        if not _furniture(lines[i]):
            return i
        skipped += 1
        if skipped > _MAX_FURNITURE:
            return None
    return None


# A footnote's body at a page's foot: a mark, then its words ("†This work was supported by ...", "* Corresponding
# author: ...", "¹ Department of ..."), over a few lines at most.
_FOOTNOTE = re.compile(r"[ \t]*(?:[*†‡§]|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)[ \t]?[^\W\d_]")
_FOOTNOTE_LINES = 3


def _above_footnotes(lines: list[str], end: int | None) -> int | None:
    """The last line of a page's text above the footnotes at its foot, ``end`` being its last line that is no
    furniture; ``end`` when no footnote is there."""
    while end is not None:
        k = end  # up the footnote's wrapped lines to its mark
        while k > max(0, end - _FOOTNOTE_LINES + 1) and not _FOOTNOTE.match(lines[k]) and lines[k - 1].strip(" \t\f"):
            k -= 1
        if not _FOOTNOTE.match(lines[k]):
            return end
        end = _text_line(lines, range(k - 1, -1, -1))
    return end


def across_form_feeds(text: str) -> str:
    """``text`` with a sentence a form feed (a page break) cuts read whole: when the page stops mid-sentence
    ("... and Ms. Alvarez sent") and the next page's text opens in lower case ("it by certified mail ..."), the
    footer, page number and running header between them go, and the halves join; so do the footnotes at the
    foot of the page ("†This work was supported by ..."). Only the furniture between
    the halves of one sentence goes: a page's last sentence ends it, and a heading opens no sentence's rest.
    """
    if "\f" not in text:
        return text
    pages = [page.split("\n") for page in text.split("\f")]
    out = [pages[0]]  # the pages' lines; a page joined to the one above extends its lines in place
    for below in pages[1:]:
        above = out[-1]
        end = _above_footnotes(above, _text_line(above, range(len(above) - 1, -1, -1)))
        start = _text_line(below, range(len(below)))
        if end is not None and start is not None and runs_on(above[end]) and below[start].lstrip()[:1].islower():
            del above[end + 1 :]  # not a new list per page: a run of joined pages stays linear
            above.extend(below[start:])
        else:
            out.append(below)
    return "\f".join("\n".join(lines) for lines in out) if len(out) < len(pages) else text


def strip_control(text: str) -> tuple[str, int]:
    """:func:`batchsum.readers.decoding.strip_control` of ``text`` read without its page layout: line numbers, page
    marks and furniture between a sentence's halves, ``Q.``/``A.`` and a play's ``NAME.`` labels (before the
    form feeds become newlines: a page break is told by its form feed). Two-column pages are read a column at a
    time (:mod:`batchsum.readers.pdf_columns`) once the gutter's numbers are gone, and before a page's last line is
    looked for: it is the right column's."""
    return _strip_control(play_as_labels(qa_as_labels(across_form_feeds(in_reading_order(without_line_numbers(text))))))
