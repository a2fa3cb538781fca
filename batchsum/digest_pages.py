"""What a digest file says: its paragraphs (an extractive month's by entry, each opening with its day) and
the links to its files' finals and its months."""

from __future__ import annotations

import os
import re
from pathlib import Path

from batchsum.language import run_on
from batchsum.navigation import (
    LINKS_MARKER,
    escape_html,
    escape_text,
    md_link,
    title_for,
)
from batchsum.periods import (
    LABEL_MONTHS,
    MONTH_NAMES,
    FileFacts,
    Period,
    day_label,
    unbulleted,
)
from batchsum.text import BLANK_LINES, DATE_LABEL, parse_speaker_line, split_sentences
from batchsum.tree import node_path


def _by_part(text: str, parts: list[str]) -> list[tuple[int, list[str]]] | None:
    """An extractive digest's sentences grouped into a paragraph per input they come from, in order, with
    that input's index; None when most sentences are no input's (an LLM's text). A sentence found in no
    input (two finals' ends run together, one of them without a stop) stays with the paragraph it is
    in: it had cost a month of 33 entries every day's label."""
    norm = [_for_match(" ".join(p.split())) for p in parts]
    paragraphs: list[tuple[int, list[str]]] = []
    orphans: list[str] = []  # unplaced sentences before the first placed one
    unplaced = 0
    # The summarizer's own "2026-10-03: " line labels go: the paragraph's owner names its day, and a pick
    # it ran on to a dated line (a meeting's, undated in its final) may be another day's. Its paragraphs
    # are split first: a sentence never runs from one input's paragraph into the next.
    for block in BLANK_LINES.split(DATE_LABEL.sub("", text)):
        for sentence in split_sentences(block):
            # A paragraph holds no list: an item reads on after its label ("Goals: A client ..."), not "Goals: - A".
            flat = unbulleted(" ".join(sentence.text.split()))
            where = _holder(flat, norm)
            # Lower-cased text (a scraped paper) runs its sentences together for the splitter: "6%. accumulating
            # evidence ..." may join two inputs' sentences. Its pieces at every stop are each an input's.
            pieces = [(where, flat)] if where is not None else _pieces(flat, norm)
            if pieces is None:
                unplaced += 1
                if paragraphs:
                    paragraphs[-1][1].append(flat)
                else:
                    orphans.append(flat)
                continue
            for where, piece in pieces:
                if not paragraphs or paragraphs[-1][0] != where:
                    paragraphs.append((where, []))
                paragraphs[-1][1].append(piece)
    if not paragraphs or unplaced * 2 > sum(len(sentences) for _, sentences in paragraphs) + len(orphans):
        return None
    paragraphs[0][1][:0] = orphans
    return paragraphs


def _paragraph(sentences: list[str], conversation: bool) -> str:
    """A paragraph's sentences run on; a conversation's turns each on a line of their own, as in its
    final ("Marco: ..." under "Aisha: ...", not one run of everyone's words)."""
    if not conversation:
        return run_on(sentences)
    turns: list[list[str]] = []
    for sentence in sentences:
        if not turns or parse_speaker_line(sentence)[0] is not None:
            turns.append([sentence])
        else:
            turns[-1].append(sentence)
    return "\n".join(run_on(turn) for turn in turns)


_ANY_STOP = re.compile(r"(?<=[.!?])\s+")
_QUOTES = str.maketrans("", "", '"“”„«»「」『』')


def _for_match(text: str) -> str:
    """``text`` without its quotation marks: the summarizer completes a quotation cut in two."""
    return text.translate(_QUOTES)


def _holder(sentence: str, norm: list[str]) -> int | None:
    """The index of the input (``norm``: :func:`_for_match`-ed) that holds ``sentence`` as the summarizer
    shows it: its quotation marks completed, a stop added to a paragraph that ended without one."""
    flat = _for_match(sentence)
    for form in (flat, flat[:-1]) if flat.endswith(".") else (flat,):
        where = next((i for i, p in enumerate(norm) if form and form in p), None)
        if where is not None:
            return where
    return None


def _pieces(sentence: str, norm: list[str]) -> list[tuple[int, str]] | None:
    """``sentence`` cut at every stop, each piece with the index of the input holding it; None when one
    is in none (an LLM's words)."""
    out = []
    for piece in _ANY_STOP.split(sentence):
        where = _holder(piece, norm)
        if where is None:
            return None
        out.append((where, piece))
    return out


# A day's label as :func:`batchsum.periods.day_label` writes it: "**3 November.** ", "**3. November** ",
# "**3 novembre** ", "**3 de noviembre** ", "**3 ноября** ", "**11月3日** ".
_MONTH_ALTERNATION = "|".join(re.escape(w) for w in sorted(LABEL_MONTHS, key=len, reverse=True))
_DAY_LABEL = re.compile(r"\*\*(?:\d{1,2}\.? (?:de )?(?:" + _MONTH_ALTERNATION + r")\.?|\d{1,2}月\d{1,2}日)\*\* ")


def day_labelled(text: str, days: list[str]) -> str:
    """A year's words for one month (sentences picked from the month's paragraphs ``days``), each run of
    sentences from one paragraph after that paragraph's day label, so none reads as another day's."""
    pairs = _by_part(text, days)
    if not pairs:
        return text
    out = []
    for i, picked in pairs:
        sentences = run_on(picked)
        label = _day_label(days[i])
        says = sentences.startswith(label.strip()) or _SAYS_DAY.match(sentences[:60]) is not None
        out.append(label + sentences if label and not says else sentences)
    return " ".join(out)


_SAYS_DAY = re.compile(r"_?(" + "|".join(MONTH_NAMES) + r")_?\.? (\d{1,2})\b")  # "_February_ 1.--A most ..."


def opens_with_day(paragraph: str) -> bool:
    """Whether a paragraph opens with a day (``**3 November.**``, "_February_ 1.--")."""
    return bool(_day_label(paragraph))


def _day_label(paragraph: str) -> str:
    """The day label a month's paragraph opens with (``**3 November.** ``), or the one its own opening
    words give ("_February_ 1.--" is ``**1 February.** ``), or ""."""
    label = _DAY_LABEL.match(paragraph)
    if label:
        return label.group(0)
    said = _SAYS_DAY.match(paragraph[:60])
    return f"**{int(said.group(2))} {said.group(1)}.** " if said else ""


def digest_body(period: Period, text: str, parts: list[str], owners: list[FileFacts]) -> str:
    """A digest's text as written: an extractive month's (or folder's) with a paragraph per entry it
    quotes, in order, each opening with that entry's day (``**3 November.**``; a folder's: its file's
    name) unless its first words already say the day ("_May_ 3.--"); ``owners[i]`` is the file of
    ``parts[i]``. A year's and an LLM's text as they are."""
    pairs = None if period.kind == "year" else _by_part(text, parts)
    if not pairs:
        return text
    out = []
    for i, picked in pairs:
        paragraph = _paragraph(picked, i < len(owners) and owners[i].content_type == "conversation")
        label = entry_label(owners[i]) if i < len(owners) else ""
        if label and not _says_day(paragraph, owners[i]):
            paragraph = f"**{label}** {paragraph}"
        out.append(_day_head_as_label(paragraph, owners[i].language if i < len(owners) else None))
    return "\n\n".join(out)


def _day_head_as_label(paragraph: str, language: str | None) -> str:
    """A paragraph that opens with its journal's own day heading ("_May_ 17.--Last night ...", also after
    a place: "[_Abbotsford_,] _May_ 16.--") opens with the label the others have ("**17 May.** Last
    night ..."): one month's days read alike."""
    head = _DAY_HEAD.match(paragraph)
    if head is None:
        return paragraph
    month = MONTH_NAMES.index(head.group(1)) + 1
    rest = paragraph[head.end() :].lstrip("- ")
    return f"**{day_label(int(head.group(2)), month, language)}** {rest}"


def entry_label(facts: FileFacts) -> str:
    """A dated file's day in its language (``3 November.``, ``3. November``, ``11月3日``:
    :func:`~batchsum.periods.day_label`), another file's name (``standup.``)."""
    if facts.date:
        return day_label(int(facts.date[8:10]), int(facts.date[5:7]), facts.language)
    return escape_text(title_for(facts.relpath)) + "."


# A journal's own day heading, "_May_ 3.--", with the place its editor put in brackets before it or not
# ("[_Abbotsford_,] _May_ 16.--", "[_Edinburgh_],[265] _May_ 11.--" with a note's mark): the place is left
# out with the heading, whose label is all the others have.
_DAY_HEAD = re.compile(r"(?:\[_[^\]\n]{1,60}\],?(?:\[\d+\])?\s+)?" + _SAYS_DAY.pattern + r"\.--")


def _says_day(paragraph: str, facts: FileFacts) -> bool:
    """Whether a paragraph's first words already give its entry's day (a journal's "_May_ 3.--")."""
    if _DAY_HEAD.search(paragraph[:50]):
        return True  # a file of two days: "[_Abbotsford_,] _November_ 26.--" is the 26th, not the file's 25th
    if not facts.date:
        return False
    head = paragraph[:60].lower()
    month = MONTH_NAMES[int(facts.date[5:7]) - 1].lower()
    day = str(int(facts.date[8:10]))
    return facts.date in head or (month[:3] in head and re.search(rf"(?<!\d){day}(?!\d)", head) is not None)


def relative_link(target: str, here: str) -> str:
    return os.path.relpath(target, os.path.dirname(here)).replace(os.sep, "/")


# A final's path inside its source's folder; joined as a string: a Path per link was most of the cost of
# a digest's hundreds of links (make bench profile), and relpath normalizes the joined path all the same.
_FINAL = node_path(Path(""), "", 3, None).as_posix()


def final_link(relpath: str, here: str) -> str:
    """The relative link from the page at ``here`` to a source's final."""
    return relative_link(f"{relpath}/{_FINAL}", here)


def links_block(period: Period, path: str, members: list[FileFacts], months: list[Period] | None, folder: str) -> str:
    """The navigation after a digest's text: up to its year, down to its months, and (a month or a
    folder) every file with its date, its one-line summary and a link to its final."""
    head: list[str] = []
    year = period.year
    if year is not None:
        head.append(f"Up: {md_link(year.title, relative_link(year.path(folder), path))}")
    if months:
        head.append("Months: " + " · ".join(md_link(m.title, relative_link(m.path(folder), path)) for m in months))
    block = LINKS_MARKER + ("\n" + "  \n".join(head) if head else "")
    if months is None:
        entries = [entry_line(f, final_link(f.relpath, path)) for f in members]
        block += "\n\n" + "\n".join(entries)
    return block


def entry_line(facts: FileFacts, link: str) -> str:
    """``- [date](link) — one-line summary`` for one file."""
    label = facts.date or facts.relpath.rsplit("/", 1)[-1]
    line = f" — {escape_html(facts.line)}" if facts.line else ""
    return f"- {md_link(label, link)}{line}"
