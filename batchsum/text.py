"""Text utilities: sentence splitting with offsets, transcript cleanup and speaker lines.

Everything here is pure, deterministic and offline (no model or NLTK data). English sentences are
split by the rules below; other languages by ``sentencex`` (Wikimedia's rule-based segmenter with
abbreviation lists for ~300 languages, CJK full-width punctuation and quotes). The extractive
backend builds on these; the chunker and the eval tool may reuse :func:`split_sentences` so every
stage agrees on what a sentence is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from batchsum.abbreviations import (
    ABBREVIATIONS,
    LEADS_ON,
    NUMBER_ABBREVIATIONS,
    ends_after_abbreviation,
    is_abbreviation,
)
from batchsum.message_ends import (
    BACKCHANNELS,
    SENTENCE_END,
    end_message,
    ends_sentence,
    is_backchannel,
    is_chat,
    unended,
)
from batchsum.ordinals import ordinal_before_noun
from batchsum.readers.note_syntax import note_syntax_as_text
from batchsum.readers.screenplay import SCENE, screenplay_turn
from batchsum.sentence_ends import (
    abbreviation_pair,
    after_initial,
    clause_follows,
    final_abbreviation_cuts,
    quote_goes_on,
    short_form,
)
from batchsum.speaker_labels import parse_speaker_line, speakers_of

__all__ = [
    "ABBREVIATIONS",
    "BACKCHANNELS",
    "BLANK_LINES",
    "BULLET",
    "BULLETS",
    "DATE_LABEL",
    "LIST_ITEM",
    "QUOTE_MARKS",
    "SentenceSpan",
    "conversation_lines",
    "cut_before_amount",
    "email_headers",
    "email_sender",
    "end_message",
    "ends_apart",
    "ends_sentence",
    "is_abbreviation_at",
    "is_backchannel",
    "is_chat",
    "paragraph_width",
    "parse_speaker_line",
    "runs_on",
    "screenplay_turn",
    "speakers_of",
    "split_sentences",
    "unended",
    "word_count",
    "wraps_onto",
]


@dataclass(frozen=True)
class SentenceSpan:
    """One sentence: ``text == source[start:end]`` (whitespace-trimmed)."""

    start: int
    end: int
    text: str


# The marks a list item opens with: Markdown's ("-", "*", "+") and the glyphs that PDF and slide exports set
# before their items ("•", "▪", "◦", "●", "■", "○", "►", "‣", "⁃", "–"): read as prose, a deck's items had run
# into one paragraph. One class for every reader of items (the splitter, the units, snippets, e-mail).
BULLETS = "-*+•▪◦●■○►‣⁃–"
BULLET = "[" + re.escape(BULLETS) + "]"
_CLOSERS = "\"'”’»)]"
_OPENERS = "\"'“‘«([-—–*•¿¡"
# A spaced ellipsis (". . .", common in printed books) is one mark, not three one-dot sentences. German's
# »...« closes with « ("Wir suchen.« Er schwieg."), French's « ... » with a space before » ("jardin. » Tout").
_END_PUNCT = re.compile(r"[.!?…]+(?:(?:[ \t]\.){2,})?[" + re.escape(_CLOSERS) + r"«]*(?:[ \u00a0\u202f]»)?(?=\s|$)")
# Full-width terminals end a sentence wherever they stand (CJK text has no space after them).
_CJK_CLOSERS = "」』”’）》〉】\"'"
_CJK_END = re.compile(r"[。！？]+[" + re.escape(_CJK_CLOSERS) + r"]*")
_CJK_LINE_END = re.compile(r"[。！？」』][" + re.escape(_CJK_CLOSERS) + r"]*[ \t]*\n")
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n\s*")
# Between two paragraphs, for splitting a text into them; unlike _BLANK_LINE (which the sentence
# splitter steps over) it leaves the next line's indentation, which says whose turn that line continues.
BLANK_LINES = re.compile(r"\n\s*\n")
_LINE_START_BREAK = re.compile(
    r"""^[ \t]*(?:
        """
    + BULLET
    + r"""\s                                 # bullet (:data:`BULLET`)
      | \d{1,3}[.)]\s                         # numbered item
      | \#{1,6}\s                             # markdown heading
      | \[?\d{1,2}:\d{2}(?::\d{2})?           # timestamp
      | \d{4}-\d{2}-\d{2}:\s                 # a summary's dated line ("1786-09-08: ..."), in any language
      | >                                     # quote block
      | \|                                    # table row
    )""",
    re.VERBOSE,
)


def word_count(text: str) -> int:
    """Whitespace word count (the unit the eval tool truncates by)."""
    return len(text.split())


# An e-mail's header fields (RFC 5322, and Outlook's "Sent:"), and the line a mail client puts above a
# quoted message.
_HEADER_FIELD = re.compile(r"(?i)[ \t]*(from|sent|date|to|cc|bcc|subject|reply-to|importance):[ \t]")
_ORIGINAL_MESSAGE = re.compile(r"(?i)[ \t]*-{2,}[ \t]*(?:original|forwarded) message[ \t]*-{2,}[ \t]*")


def email_headers(lines: Sequence[str]) -> dict[str, str] | None:
    """The fields (lower-cased names) when ``lines`` are an e-mail's header block ("From: Priya Raman
    <priya@...>", "To: ...", "Subject: ..."), else None: at least two header fields, one of them From."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line.strip() or _ORIGINAL_MESSAGE.fullmatch(line):
            continue
        m = _HEADER_FIELD.match(line)
        if m is None:
            return None
        fields[m.group(1).lower()] = line[m.end() :].strip()
    return fields if "from" in fields and len(fields) >= 2 else None


def email_sender(lines: Sequence[str]) -> str | None:
    """The sender's name when ``lines`` are an e-mail's header block (:func:`email_headers`), else None."""
    fields = email_headers(lines)
    if fields is None:
        return None
    sender = fields["from"]
    name = sender.split("<", 1)[0].strip().strip('"').strip()
    return name or sender.strip("<> ")


def conversation_lines(text: str) -> list[tuple[str | None, str]]:
    """A conversation's lines as (speaker, text), in order: one per line (``Speaker: text``, or None
    for an unlabelled line), or one per screenplay cue with its dialogue (scene headings left out). A
    hard-wrapped line goes on the line it wraps from, an indented one is its turn's speaker's, and in
    an e-mail thread an unlabelled line is the sender's of the header block above it (the header
    itself is left out)."""
    # Each line as (speaker, its pieces): a wrapped line adds a piece, joined once at the end (adding to
    # the line's string instead copied it at every piece: quadratic in a long wrapped paragraph).
    lines: list[tuple[str | None, list[str]]] = []
    current: str | None = None
    sender: str | None = None
    # Meeting notes kept in a vault: no front matter ("tags: [meeting]" is no speaker), no hidden comment.
    for paragraph in BLANK_LINES.split(note_syntax_as_text(text)):
        rows = paragraph.split("\n")
        writer = email_sender(rows)
        if writer is not None:
            sender = writer
            continue
        cue = screenplay_turn(paragraph)
        if cue is not None:
            current = cue[0]
            lines.append((cue[0], [cue[1]]))
            continue
        stripped = paragraph.strip()
        if SCENE.match(stripped) and stripped.isupper():
            continue  # a screenplay's scene heading ("INT. KITCHEN - NIGHT") is layout, like a heading
        width = paragraph_width(paragraph)
        prev = ""  # the previous line of this paragraph
        for raw in rows:
            if not raw.strip():
                continue
            # In an e-mail thread the sender speaks: "Good news: ..." or "So the plan: ..." in a message
            # is the sender's sentence, not another speaker's turn.
            speaker, body = parse_speaker_line(raw) if sender is None else (None, raw.strip())
            wrapped = speaker is None and wraps_onto(prev, raw, width)
            prev = raw
            if wrapped:
                # A hard-wrapped turn or stage direction (a script): one line, not a line per turn.
                lines[-1][1].append(body)
                continue
            if speaker is not None:
                current = speaker
            elif raw[:1].isspace():
                speaker = current  # an indented continuation of the previous turn
            else:
                speaker = sender
            lines.append((speaker, [body]))
    return [(speaker, " ".join(pieces)) for speaker, pieces in lines]


def speakers_at(text: str, positions: Sequence[int]) -> list[str | None]:
    """For each of the ascending ``positions``, the speaker whose turn ``text[pos:]`` starts inside: the
    label of the line holding ``pos`` when ``pos`` is not that line's start (a chunk cut inside a long
    turn), else None. One pass over the text, however long its lines."""
    out: list[str | None] = []
    line_start = previous = 0
    for pos in positions:
        newline = text.rfind("\n", previous, pos)  # only the stretch since the previous position
        if newline >= 0:
            line_start = newline + 1
        previous = pos
        # A label's colon is within 160 characters of the line's start or of its timestamp
        # (parse_speaker_line): 400 characters hold it, so a long turn is never copied whole.
        out.append(parse_speaker_line(text[line_start : min(pos, line_start + 400)])[0] if pos > line_start else None)
    return out


def is_abbreviation_at(block: str, dot_index: int) -> bool:
    """True when the period at ``dot_index`` belongs to an abbreviation or an initial: no sentence ends
    there, save a soft abbreviation's before a capital (``SOFT_ABBREVIATIONS``, :func:`split_sentences`).
    One that is a word too (``NUMBER_ABBREVIATIONS``: "no", "sun") is an abbreviation only before a number."""
    i = dot_index
    while i > 0 and not block[i - 1].isspace() and block[i - 1] not in _OPENERS:
        i -= 1
    token = block[i:dot_index]
    if token.lower() in NUMBER_ABBREVIATIONS:
        return _DIGIT_NEXT.match(block, dot_index + 1) is not None  # "No. 5", not "No. The vendor said"
    return bool(token) and is_abbreviation(token)  # "Dr. Smith", "J. Smith", "J.P. Morgan"


_DIGIT_NEXT = re.compile(r"\s*\d")


def _next_starts_sentence(block: str, pos: int) -> bool:
    """Whether the text after ``pos`` (past whitespace) looks like a new sentence."""
    j = pos
    n = len(block)
    while j < n and block[j].isspace():
        j += 1
    if j >= n:
        return True
    while j < n and block[j] in _OPENERS:
        j += 1
    if j >= n:
        return True
    c = block[j]
    return c.isupper() or c.isdigit() or not c.isalpha()


def _split_block(block: str, offset: int, out: list[SentenceSpan], language: str | None = None) -> None:
    """Split one line-group (no blank lines, no forced line breaks) into sentences."""
    spans: list[SentenceSpan] = []
    if language is not None and language != "en":
        _split_block_sentencex(block, offset, spans, language)
    elif "。" in block or "！" in block or "？" in block:
        # Language unknown but full-width terminals present: those end sentences on their own.
        start = 0
        for m in _CJK_END.finditer(block):
            _split_latin(block[start : m.end()], offset + start, spans)
            start = m.end()
        _split_latin(block[start:], offset + start, spans)
    else:
        _split_latin(block, offset, spans)
    kept = _lone_marks_joined(block, [s.start - offset for s in spans])
    for k, a in enumerate(kept):
        _emit(block, a, kept[k + 1] if k + 1 < len(kept) else len(block), offset, out)


def _lone_marks_joined(block: str, starts: list[int]) -> list[int]:
    """``block``'s sentence starts but those of punctuation alone, a "……" after 「…」と言う。 or a line of it
    opening a sentence: that ends the sentence before it, or at the block's start opens the next."""
    kept: list[int] = []
    for k, a in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(block)
        # A line at a time; find's -1 (no line break left) is the sentence's end.
        while kept and _marks_only(block[a : (eol := block.find("\n", a, end) % (end + 1))]):
            a = eol + 1
        if block[a:end].strip() and not (len(kept) == 1 and _marks_only(block[kept[0] : a])):
            kept.append(a)
    return kept


def _marks_only(text: str) -> bool:
    return bool(text.strip()) and all(c.isspace() or unicodedata.category(c)[0] == "P" for c in text)


def _split_block_sentencex(block: str, offset: int, out: list[SentenceSpan], language: str) -> None:
    """``sentencex``'s boundaries for ``language``; a line break inside the block is a space to it."""
    import sentencex  # loaded on first use: the English path never needs it

    # A line that ends on a full-width stop ends its sentence even inside a quotation: a Japanese or
    # Chinese quotation that runs over several paragraphs opens 「 on each and closes only on the last.
    piece_start = 0
    for m in [*_CJK_LINE_END.finditer(block), None]:
        piece_end = m.end() if m is not None else len(block)
        piece = block[piece_start:piece_end]
        flat = piece.replace("\n", " ")  # same length, so its offsets are the piece's
        start = 0
        for b in sentencex.get_sentence_boundaries(language, flat):
            at = _quote_opens_next(flat, b["start_index"])
            if at > start and (
                _continues(flat, at)
                or after_initial(flat, at)
                or abbreviation_pair(flat, at)
                or quote_goes_on(flat, at)
                or clause_follows(flat, at)
                or _ordinal_date(flat, at)
                or ordinal_before_noun(flat, at, language)
                or short_form(flat, at, language)
            ):
                continue  # "т. е. исчез", "M. Eyssette", "「ええ、まあ。」と云いながら", "18..., dont", "dem 19. April"
            _emit_cut(piece, flat, start, at, offset + piece_start, out, language)
            start = at
        _emit_cut(piece, flat, start, len(piece), offset + piece_start, out, language)
        piece_start = piece_end


def _emit_cut(piece: str, flat: str, start: int, end: int, offset: int, out: list[SentenceSpan], language: str) -> None:
    """Emit ``piece[start:end]`` (``flat`` is ``piece`` on one line), cut where it ends on an abbreviation that
    also ends a sentence ("и т. д. Вечером")."""
    for cut in final_abbreviation_cuts(flat, start, end, language):
        _emit(piece, start, cut, offset, out)
        start = cut
    _emit(piece, start, end, offset, out)


def _quote_opens_next(text: str, pos: int) -> int:
    """The boundary ``pos``, moved before a quotation mark that opens the next sentence but was left at the
    end of this one ('юности. "Где те светлые мысли', "brouillard. « Eh !": the mark belongs to the next)."""
    before = text[:pos].rstrip()
    if len(before) >= 3 and before[-1] in "\"'«„“‘‹" and before[-2].isspace() and before[-3] in ".!?…":
        return len(before) - 1
    return pos


# German writes an ordinal with a dot and capitalizes its months: "am Samstag, dem 19. April, auf dem
# Friedhof", "im 19. Jahrhundert". (Danish, Norwegian, Finnish and Czech write their months in lower case,
# which :func:`_continues` already keeps.)
_ORDINAL_END = re.compile(r"(?<![\d.])\d{1,2}\.$")
_ORDINAL_NOUN = re.compile(
    r"[*_]*(?:Januar|Jänner|Februar|Feber|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
    r"|Jahrhunderts?|Jahrtausends?)(?![^\W_])"
)


def _ordinal_date(text: str, pos: int) -> bool:
    """Whether the dot before ``pos`` ends an ordinal that a month or a century follows: "dem 19. April"."""
    # A few characters each side: the whole text's head and tail, copied at every boundary, made a long
    # German paragraph quadratic (review: 568 KB in 84 s).
    before, after = text[max(0, pos - 16) : pos].rstrip(), text[pos : pos + 64].lstrip()
    return _ORDINAL_END.search(before) is not None and _ORDINAL_NOUN.match(after) is not None


def _continues(text: str, pos: int) -> bool:
    """Whether the text at ``pos`` opens (past spaces and opening quotes) with a lower-case letter."""
    j = pos
    while j < len(text) and (text[j].isspace() or text[j] in _OPENERS):
        j += 1
    return j < len(text) and text[j].islower()


_FIRST_WORD = re.compile(r"[^\W\d_]+")


def _split_latin(block: str, offset: int, out: list[SentenceSpan]) -> None:
    """Split at ``.``/``!``/``?``/``…`` by the English rules (abbreviations, initials, capitals)."""
    start = 0
    for m in _END_PUNCT.finditer(block):
        end = m.end()
        punct = block[m.start() : end].rstrip(_CLOSERS + "« \u00a0\u202f")
        if punct == "." and is_abbreviation_at(block, m.start()):
            # "Dr. Smith" stays joined; "etc. The", "L.A. Traffic" and "the U.S. The" end a sentence
            # (abbreviations.ends_after_abbreviation).
            token_start = m.start()
            while token_start > 0 and not block[token_start - 1].isspace():
                token_start -= 1
            token = block[token_start : m.start()].lower().lstrip(_OPENERS)
            after = block[end:].lstrip()
            nxt = after.lstrip(_OPENERS)
            ends = ends_after_abbreviation(token, block[:token_start], nxt, block)
            # ... but not before a parenthesis: 'Harbor Foods, Inc. ("Harbor") agrees ...' goes on.
            if not ends or not nxt[:1].isupper() or after.startswith("("):
                continue
        if not _next_starts_sentence(block, end) or _inside_emphasis(block, start, m.start()):
            continue
        _emit(block, start, end, offset, out)
        start = end
    _emit(block, start, len(block), offset, out)


_EMPHASIS_OPEN = re.compile(r"(?:^|(?<=[\s(\"“]))_(?=\w)")
_EMPHASIS_CLOSE = re.compile(r"(?<=[\w.!?,;:])_(?=\W|$)")


def _inside_emphasis(block: str, start: int, pos: int) -> bool:
    """Whether ``pos`` lies inside an ``_italic_`` span that closes further on: "begun _Nap. Bon._ again"
    (Napoleon Bonaparte, a title in a Gutenberg text) is one sentence."""
    before = block[start:pos]
    if "_" not in before:
        return False
    opened = len(_EMPHASIS_OPEN.findall(before)) > len(_EMPHASIS_CLOSE.findall(before))
    return opened and _EMPHASIS_CLOSE.search(block, pos, pos + 120) is not None


def _emit(block: str, start: int, end: int, offset: int, out: list[SentenceSpan]) -> None:
    """Append the trimmed span ``block[start:end]`` when it holds any non-space character."""
    piece = block[start:end]
    stripped = piece.strip()
    if not stripped:
        return
    lead = len(piece) - len(piece.lstrip())
    s = offset + start + lead
    out.append(SentenceSpan(s, s + len(stripped), stripped))


def split_sentences(
    text: str, language: str | None = None, item_readings: Mapping[str, bool] | None = None
) -> list[SentenceSpan]:
    """Split ``text`` into sentences with character offsets into ``text``.

    Blank lines always end a sentence; a single newline ends one only before or after a line that
    is a bullet, heading, timestamp, table row or ``Speaker:`` turn (hard-wrapped prose is joined, and so
    are the wrapped lines of a turn: :func:`wraps_onto`).
    Inside a line, for English (``language`` None or ``en``), ``.``/``!``/``?``/``…`` (with closing
    quotes or brackets) end a sentence when followed by whitespace and a capital, digit or opening
    quote — but not after known abbreviations (``Dr.``, ``e.g.``) or single initials; decimals never
    split; full-width ``。！？`` always end one. Any other ``language`` (ISO 639-1) is split by
    ``sentencex`` with that language's rules. ``item_readings`` holds :func:`lines_are_items` already read of
    paragraphs, by their text: a caller that read them to find its headings passes them on.
    """
    out: list[SentenceSpan] = []
    if not text or text.isspace():
        return out
    if "\n" not in text:
        _split_block(text, 0, out, language)
        return out
    para_start = 0
    for m in [*_BLANK_LINE.finditer(text), None]:
        para_end = m.start() if m is not None else len(text)
        _split_paragraph(text, para_start, para_end, out, language, item_readings or {})
        if m is not None:
            para_start = m.end()
    return out


def _split_paragraph(
    text: str, start: int, end: int, out: list[SentenceSpan], language: str | None, readings: Mapping[str, bool]
) -> None:
    """Group a paragraph's lines into blocks (forced breaks) and split each block."""
    paragraph = text[start:end]
    if (items := readings.get(paragraph)) is None:
        items = lines_are_items(paragraph)
    if items:
        pos = start
        for line in text[start:end].split("\n"):
            if line.strip():
                _split_block(line, pos, out, language)
            pos += len(line) + 1
        return
    block_start = start
    pos = start
    prev_forced = False
    prev_quoted = False  # the previous line is a blockquote line with text
    in_item = False  # the previous line is a list item or an indented line continuing one
    lazy = False  # the previous line continued a list item without an indent
    numbered = False  # the list item under way is numbered ("10. To-day I dined ...")
    in_turn = False  # the previous line is a "Speaker:" turn or a wrapped line continuing one
    lower_turn = False  # the turn under way is a lower-case name's ("ana: ..."), as in a chat's log
    prev_line = ""
    width = paragraph_width(text[start:end])
    first = True
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl == -1 else nl
        line = text[pos:line_end]
        label = parse_speaker_line(line)[0] if line.strip() else None
        speaker_line = label is not None
        if speaker_line and line[:1].islower() and wraps_onto(prev_line, line, width):
            # Not a turn ("and our guiding principle is this: you should never have to fear upgrading to a")
            # but the wrapped rest of the prose line before it, which runs on into it; also under a line that
            # only looked like a turn ("I was glad of it: I never liked long walks, especially on chilly" /
            # "afternoons: dreadful to me ..."): a speaker's name is capitalised or opens the paragraph, so a
            # lower-case one under a capitalised one, in a paragraph set to a page's width, is wrapped prose.
            speaker_line = (
                prev_forced
                and not lazy
                and not (in_turn and not lower_turn and width >= _PROSE_WIDTH_MIN and runs_on(prev_line))
            )
        forced = bool(line.strip()) and (_LINE_START_BREAK.match(line) is not None or speaker_line)
        quoted = _quoted_text(line)
        # Hard-wrapped Markdown: the next line of a blockquote ("> ...") or an indented line under a
        # list item goes on with the same sentence, like a wrapped line of plain prose (so does a line under
        # an item that ends no sentence: "4) I rode horseback ... that I am a" / "part of Him, ..."); so does the
        # wrapped line of a hard-wrapped script's turn ("SOCRATES: Let us, Nicias and Laches, comply
        # with the request of" / "Lysimachus and Melesias.").
        goes_on = not first and (
            (prev_quoted and quoted is not None and _LINE_START_BREAK.match(quoted) is None)
            or (
                in_item
                and not forced
                and bool(line.strip())
                and (line[:1] in " \t" or lazy or _wraps_item(prev_line, line, numbered))
            )
            or (in_turn and not forced and wraps_onto(prev_line, line, width))
        )
        if not first and not goes_on and (forced or prev_forced) and pos > block_start:
            _split_block(text[block_start:pos], block_start, out, language)
            block_start = pos
        prev_forced = forced or goes_on or (_is_heading_like(line) and not runs_on(prev_line))
        prev_quoted = bool(quoted)
        # An item's paragraph going on over an unindented line (CommonMark's lazy continuation) goes on to its end.
        lazy = goes_on and in_item and line[:1] not in " \t" and quoted is None
        if forced:
            numbered = _NUMBERED.match(line) is not None
        in_item = (forced and LIST_ITEM.match(line) is not None) or (goes_on and in_item)
        in_turn = speaker_line or (goes_on and in_turn)
        if speaker_line:
            lower_turn = str(label)[:1].islower()
        prev_line = line
        first = False
        pos = line_end + 1
    if block_start < end:
        _split_block(text[block_start:end], block_start, out, language)


# A day the calendar has, as ISO: a month's days by its length, 29 February in a leap year only (every 4th,
# not a century's unless every 400th), no year 0 (``date`` has none).
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))"
)
_LEAP_YEAR = r"(?:\d\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_ISO_DAY = rf"(?!0000)(?:\d{{4}}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
# How an extractive journal summary dates a line ("2025-03-02: ..."): written by the summarizer, read back
# by the level above, and left out where a digest or a one-line summary gives the day itself. A day no
# calendar has ("2023-02-29: ", a typo in a note) is no label: the line stays text of the entry it is in.
DATE_LABEL = re.compile(rf"^({_ISO_DAY}): ", re.MULTILINE)
QUOTE_MARKS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)  # a Markdown blockquote line's "> " marks
LIST_ITEM = re.compile(r"[ \t]*(?:" + BULLET + r"|\d{1,3}[.)])\s")  # a bulleted or numbered list item


def _quoted_text(line: str) -> str | None:
    """The text of a blockquote line (past its ``>`` marks), or None when ``line`` is not one."""
    m = QUOTE_MARKS.match(line)
    return line[m.end() :].strip() if m is not None else None


def paragraph_width(paragraph: str) -> int:
    """The width a paragraph's lines were set to: its longest line (trailing blanks left out)."""
    return max((len(line.rstrip()) for line in paragraph.split("\n")), default=0)


# Hard-wrapped text is set to the width of a page or a terminal (Project Gutenberg's 70 columns, e-mail's
# 72-78, code's 80-120); lines longer than this were never wrapped (a transcript's turn per line).
WRAP_WIDTH_MAX = 150
# A paragraph at least this wide is set to a page's width (a short one, "Host: example.com", a list).
_PROSE_WIDTH_MIN = 40


def wraps_onto(prev: str, line: str, width: int) -> bool:
    """Whether ``line`` is the wrapped rest of ``prev`` in text set ``width`` wide: it has text, is not
    indented, and its first word would not have fit at the end of ``prev`` (within a tenth of the
    width: texts wrapped by hand, or at a width a little under their longest line, break early). A
    line that ends shorter than that was ended by its writer (a turn of one line, then something else)."""
    if width > WRAP_WIDTH_MAX or line[:1].isspace() or not prev.strip():
        return False  # before the split below: most lines of a transcript end here
    words = line.split(None, 1)
    return bool(words) and len(prev.rstrip()) + 1 + len(words[0]) > 0.9 * width


def ends_apart(line: str, rest: Sequence[str]) -> bool:
    """Whether ``line``, opening a paragraph with no stop at its end, was ended there by its writer: the line
    under it (of ``rest``, the paragraph's lines after it) is no wrapped rest of it (:func:`wraps_onto`) and it
    ends on no word that leads on ("of", "the"). In a lower-cased text, where no capital tells, a scraped
    paper's sub-heading over its one-line paragraph ("... but does not alter viral ultrastructure" / "to
    determine whether ...") had run into its first sentence."""
    nxt = rest[0] if rest else ""
    end = line.rstrip()
    if not nxt.strip() or nxt[:1].isspace() or not end[-1:].isalnum() or end.split()[-1].lower() in LEADS_ON:
        return False
    if re.search(r"[.!?] +\w", end):  # a sentence ends inside it: prose wrapped mid-sentence, no heading
        return False
    return not wraps_onto(line, nxt, paragraph_width("\n".join((line, *rest))))


def lines_are_items(paragraph: str) -> bool:
    """Whether each line of ``paragraph`` is a unit of its own though none ends with a stop: a survey's answers
    one per line, a list without bullets. Five lines or more, none indented (a poem's, a quotation's, code's),
    three in four in a sentence's case (a title's lines and a list of names are headings) ending on a word
    that ends a sentence before a line that opens in capitals, and half at least ended by their writer short
    of the paragraph's width (:func:`wraps_onto`). Hard-wrapped prose ends nearly every line at its width and
    goes on in lower case. Over the bench's 180,000 paragraphs (books, journals, diaries, meetings, papers,
    stories, game transcripts, six languages) none is such (a Project Gutenberg header had been, its story's
    blurb cut at a line, "Two men had died before Syme Rector's guns" / "to give him the key ...")."""
    lines = [line for line in paragraph.split("\n") if line.strip()]
    if len(lines) < 5 or any(line[:1].isspace() or line[:1].islower() for line in lines):
        return False  # a line that goes on in lower case is the wrapped rest of the one above it
    width = paragraph_width(paragraph)
    pairs = list(pairwise(lines))
    ended = sum(
        1
        for line, after in pairs
        if line.rstrip()[-1:].isalnum()
        and any(word[:1].islower() for word in line.split()[1:])
        and after.lstrip()[:1].isupper()
        and line.split()[-1].lower() not in LEADS_ON
    )
    short = sum(1 for line, after in pairs if not wraps_onto(line, after, width))
    return ended >= 0.75 * len(pairs) and short >= 0.5 * len(pairs)


def runs_on(line: str) -> bool:
    """Whether the line after ``line`` continues its sentence: it ends on a word, a comma or a dash, not on a
    stop or a colon ("... Copyright, 1906," above "BY": the wrapped rest, no heading; a blank line: nothing
    runs on)."""
    end = line.rstrip().rstrip("*_")
    return bool(end) and (end[-1].isalnum() or end[-1] in ",;–—-") and SENTENCE_END.search(end) is None


_NUMBERED = re.compile(r"[ \t]*\d{1,3}[.)]\s")


# A number a cut may end on: digits with a sign, a currency and separators ("$210", "(3.4)", "1,200"); one with its
# unit attached ("14%", "3m") is whole already.
_LAST_NUMBER = re.compile(r"(?<!\S)[(\[]?[-+±~≈<>]?[$£€¥]?\(?\d(?:[\d.,]*\d)?\)?$")


def cut_before_amount(head: str, rest: str) -> str:
    """``head``, a text cut at a word boundary before ``rest``, without the number it ends on when the word
    that follows qualifies it (a scale, a unit, what it counts: "at $210" before "million." is "at"; "up
    14" before "%"), so a cut never parts an amount. A function word after it qualifies nothing ("in 2025
    and" keeps its year); a ``head`` that is only numbers comes back as it is."""
    while (m := _LAST_NUMBER.search(head.rstrip())) is not None and m.start() > 0:
        after = rest.split(None, 1)
        word = after[0].lstrip("([\"'“‘") if after else ""
        first = _FIRST_WORD.match(word)
        if not (word[:1] in "%‰°" and word) and (first is None or first.group(0).lower() in LEADS_ON):
            break
        rest = head[m.start() :] + rest
        head = head[: m.start()].rstrip()
    return head


def _wraps_item(prev: str, line: str, numbered: bool) -> bool:
    """Whether ``line``, not indented, is the wrapped rest of the list item line ``prev``: ``prev`` ends no
    sentence, and the item is numbered (a book's or a journal's numbered paragraphs, "10. To-day I dined with
    Mr. Stratford at Mr. Addison's retirement near" / "Chelsea; ...") or ``line`` goes on in lower case or
    ``prev`` ends on a comma or a word that leads on ("... the organization, scope, and privacy of" /
    "paths"). A bullet's own line, then a capitalised one, is an item, then a paragraph: Markdown indents an
    item's wrapped lines ("- Function-like macros that look like function calls" / "Then a paragraph.")."""
    if not runs_on(prev):
        return False
    if numbered:
        return True
    end = prev.rstrip().rstrip("*_")
    first = line.lstrip(_OPENERS + " \t")[:1]
    return first.islower() or end[-1] in ",;–—-" or end.rsplit(None, 1)[-1] in LEADS_ON


def _is_heading_like(line: str) -> bool:
    """A short line without final punctuation (a title, a list header) ends its own block."""
    s = line.strip()
    if not s or len(s) > 60 or s[-1] in ".,;:!?…\"'”’-":
        return False
    return len(s.split()) <= 8 and (s.isupper() or s.istitle() or s.startswith("#"))
