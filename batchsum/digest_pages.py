"""What a digest file says: its paragraphs (an extractive month's by entry, each opening with its day) and
the links to its files' finals and its months."""

from __future__ import annotations

import datetime as dt
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate, chain, islice
from typing import TYPE_CHECKING

from batchsum.backends.units import units_from_text
from batchsum.digest_state import entry_label, told_apart
from batchsum.language import run_on
from batchsum.model import ContentType
from batchsum.periods import (
    DAY_LABEL_TEXT,
    MONTH_LABEL_TEXT,
    MONTH_NAMES,
    FileFacts,
    Period,
    day_label,
    unbulleted,
)
from batchsum.sources import read_source
from batchsum.text import BLANK_LINES, DATE_LABEL, parse_speaker_line, split_sentences, unended

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.state import ManifestEntry


def _by_part(
    text: str, parts: list[str], content_type: ContentType = "journal", languages: Sequence[str | None] = ()
) -> list[tuple[int, list[str]]] | None:
    """An extractive digest's sentences grouped into a paragraph per input they come from, in order, with
    that input's index; None when most sentences are no input's (an LLM's text). A sentence found in no
    input (two finals' ends run together, one of them without a stop) stays with the paragraph it is
    in: it had cost a month of 33 entries every day's label. A sentence several inputs hold (a diary's
    "Slept badly.", a meeting's "No objections.") is given to the input :func:`_assign` finds for it from
    its neighbours, not to the first that holds it: the summarizer picks in source order, each input's
    sentences in their order and once (:func:`_in_source_order`). ``content_type`` and ``languages`` (one
    per input, or none): how the summarizer read the inputs (:func:`_as_read`)."""
    # Profiled on a folder digest of 5,000 files: its time was here (every input tested per sentence, see _assign).
    inputs = _Inputs(parts)
    items = _items(text, inputs)
    missed = sum(not h for h, _, _ in items)
    if missed and missed * 2 <= len(items):
        # An extractive text with a sentence no input holds as written: the summarizer's reading took something
        # out of it (a footnote mark, "Sheriff-substitute[319]"; a link's address, a line-end hyphen, a
        # blockquote's marks), and it had landed under the day before. Matched with the inputs as the
        # summarizer read them, every sentence it picked is found. Only the inputs it can come from are read
        # again (the summarizer picks in source order: those between its placed neighbours' inputs), so a
        # folder of 5,000 files does not pay the summarizer's reading twice for one such sentence.
        langs = list(languages) if len(languages) == len(parts) else [None] * len(parts)
        again_read = _between_placed(items, len(parts))
        read = _Inputs([_as_read(p, content_type, langs[k]) if k in again_read else p for k, p in enumerate(parts)])
        again = _items(text, read)
        if sum(not h for h, _, _ in again) < missed:
            inputs, items = read, again
    placed = [h for h, _, _ in items if h]
    unplaced = len(items) - len(placed)
    if not placed or unplaced * 2 > len(items):
        return None
    forms = [form for h, _, form in items if h]
    owner = iter(_in_source_order(forms, placed, _assign(placed), inputs))
    paragraphs: list[tuple[int, list[str]]] = []
    orphans: list[str] = []  # unplaced sentences before the first placed one
    for holders, flat, _ in items:
        if not holders:
            (paragraphs[-1][1] if paragraphs else orphans).append(flat)
            continue
        where = next(owner)
        if not paragraphs or paragraphs[-1][0] != where:
            paragraphs.append((where, []))
        paragraphs[-1][1].append(flat)
    paragraphs[0][1][:0] = orphans
    return paragraphs


def _items(text: str, inputs: _Inputs) -> list[tuple[list[int], str, str]]:
    """Each sentence (or piece) of ``text`` with the inputs holding it (none: no input's) and its form they
    hold (:meth:`_Inputs.match`)."""
    items: list[tuple[list[int], str, str]] = []
    # The summarizer's own "2026-10-03: " line labels go: the paragraph's owner names its day, and a pick
    # it ran on to a dated line (a meeting's, undated in its final) may be another day's. Its paragraphs
    # are split first: a sentence never runs from one input's paragraph into the next.
    for block in BLANK_LINES.split(DATE_LABEL.sub("", text)):
        for sentence in _quotes_closed(block):
            # A paragraph holds no list: an item reads on after its label ("Goals: A client ..."), not "Goals: - A".
            flat = unbulleted(" ".join(sentence.split()))
            holders, form = inputs.match(flat)
            # Lower-cased text (a scraped paper) runs its sentences together for the splitter: "6%. accumulating
            # evidence ..." may join two inputs' sentences, and so does a quotation's closing mark after its stop
            # (".“ Die ..."). Its pieces between stops are each an input's.
            pieces = [(holders, flat, form)] if holders else _pieces(flat, inputs)
            items.extend(pieces if pieces is not None else [([], flat, form)])
    return items


def _between_placed(items: list[tuple[list[int], str, str]], count: int) -> set[int]:
    """The inputs a sentence no input holds may come from: from the first input holding the placed sentence
    before it to the last holding the one after it (the first or the last input when there is none)."""
    out: set[int] = set()
    placed = [k for k, (holders, _, _) in enumerate(items) if holders]
    for k, (holders, _, _) in enumerate(items):
        if holders:
            continue
        at = bisect_left(placed, k)
        low = min(items[placed[at - 1]][0]) if at > 0 else 0
        high = max(items[placed[at]][0]) if at < len(placed) else count - 1
        out.update(range(low, high + 1))
    return out


def _as_read(part: str, content_type: ContentType, language: str | None) -> str:
    """An input as the summarizer read it, its sentences as it shows them (:func:`units_from_text`, as it
    reads a digest's parts): without what it takes out (footnote marks, markup, line-end hyphens)."""
    return " ".join(unit.text for unit in units_from_text(part, content_type, language=language))


# A quotation's marks, opening and closing: French, German (both), English, Japanese's; a straight quote both.
_QUOTE_PAIRS = tuple(zip('«»„“‚‘「『"', '»«“”‘’」』"', strict=True))


def _quotes_closed(block: str) -> list[str]:
    """``block``'s sentences, with the mark that closes a sentence's quotation given back to it from the
    next one's opening, where the splitter cuts at the stop before a spaced mark ("… chaque jour !" |
    "» Heute …"): it ends that sentence, whose input holds it, and the next one's input's words come after it."""
    spans: list[list[int]] = []  # each sentence's [start, end] in ``block``
    for span in split_sentences(block):
        start = span.start
        while spans and start < span.end and _closes(block[start], block[spans[-1][0] : spans[-1][1]]):
            spans[-1][1] = start + 1
            start += 1
            while start < span.end and block[start].isspace():
                start += 1
        if start < span.end:
            spans.append([start, span.end])
    return [block[start:end].strip() for start, end in spans]


def _closes(mark: str, sentence: str) -> bool:
    """Whether ``mark`` closes a quotation ``sentence`` leaves open."""
    return any(mark == closing and _open(sentence, opening, closing) for opening, closing in _QUOTE_PAIRS)


def _open(text: str, opening: str, closing: str) -> bool:
    """Whether ``text`` leaves a quotation between ``opening`` and ``closing`` open."""
    if opening == closing:
        return text.count(opening) % 2 == 1
    return text.count(opening) > text.count(closing)


_BACK = 1000  # the cost of going back to an earlier input: the summarizer picks in source order


def _assign(holders: list[list[int]]) -> list[int]:
    """One input for each sentence, from the inputs holding it (ascending): the choice with the fewest
    moves to another input, going back to an earlier one only when a sentence is in no later one; of
    choices alike, the earliest inputs. A sentence two entries hold goes with its neighbours' entry.

    Solved on fewer choices with the same answer (a sentence every file of a folder holds had made it
    cost sentences x files): a run of sentences the same inputs hold goes to one input (a move's cost
    obeys the triangle inequality, so staying is never worse and never later), and of a sentence's
    inputs only those its neighbours hold too and the first between two of theirs are kept (the others
    compare alike with every choice a neighbour can make, and the earliest is preferred)."""
    runs: list[list[int]] = []
    lengths: list[int] = []
    for here in holders:
        if runs and (here is runs[-1] or here == runs[-1]):
            lengths[-1] += 1
        else:
            runs.append(here)
            lengths.append(1)
    none: list[int] = []
    kept = [
        _worth_choosing(here, runs[i - 1] if i else none, runs[i + 1] if i + 1 < len(runs) else none)
        for i, here in enumerate(runs)
    ]
    return [h for h, n in zip(_cheapest(kept), lengths, strict=True) for _ in range(n)]


def _worth_choosing(here: list[int], before: list[int], after: list[int]) -> list[int]:
    """The inputs of ``here`` (ascending) that a least, earliest choice may take: each one ``before`` or
    ``after`` holds too, and the first of those between two consecutive inputs they hold (ascending)."""
    if len(here) <= len(before) + len(after):
        seen: set[tuple[int, int, int]] = set()
        out = []
        for h in here:
            i, j = bisect_left(before, h), bisect_left(after, h)
            shared = (i < len(before) and before[i] == h) or (j < len(after) and after[j] == h)
            key = (i, j, h if shared else -1)
            if key not in seen:
                seen.add(key)
                out.append(h)
        return out
    bounds = sorted(set(before) | set(after))
    chosen = set()
    low = 0  # the first input of ``here`` above the last bound passed
    for bound in bounds:
        k = bisect_left(here, bound, low)
        if k > low:
            chosen.add(here[low])  # the first between the previous bound and this one
        if k < len(here) and here[k] == bound:
            chosen.add(bound)
            k += 1
        low = k
    if low < len(here):
        chosen.add(here[low])
    return sorted(chosen)


def _cheapest(holders: list[list[int]]) -> list[int]:
    """:func:`_assign`'s choice over ``holders`` as they are: the least cost by dynamic programming, then
    from the first sentence on the earliest input that keeps it."""

    def step(a: int, b: int) -> int:
        return 0 if a == b else 1 if b > a else _BACK

    # rest[i][h]: the least cost of the sentences after i when sentence i goes to input h.
    rest: list[dict[int, int]] = [{} for _ in holders]
    rest[-1] = dict.fromkeys(holders[-1], 0)
    for i in range(len(holders) - 2, -1, -1):
        rest[i] = _least_after(holders[i], rest[i + 1])
    out: list[int] = []
    for i, choices in enumerate(holders):
        prev = out[-1] if out else None
        out.append(min(choices, key=lambda h: ((0 if prev is None else step(prev, h)) + rest[i][h], h)))
    return out


def _least_after(here: list[int], after: dict[int, int]) -> dict[int, int]:
    """For each input ``h`` of ``here`` the least cost of going on from it to an input ``g`` of ``after``
    (its cost ``after[g]``, plus 0 for ``h`` itself, 1 for a later input, ``_BACK`` for an earlier one), from
    prefix and suffix minima (a sentence every meeting of a large folder holds would otherwise cost its square)."""
    keys = sorted(after)
    below = list(accumulate((after[g] for g in keys), min))  # least over keys[: j + 1]
    above = list(accumulate((after[g] for g in reversed(keys)), min))[::-1]  # least over keys[j:]
    out: dict[int, int] = {}
    for h in here:
        j = bisect_left(keys, h)
        best = after.get(h, sys.maxsize)
        k = j + 1 if j < len(keys) and keys[j] == h else j
        if k < len(keys):
            best = min(best, 1 + above[k])
        if j > 0:
            best = min(best, _BACK + below[j - 1])
        out[h] = best
    return out


def _paragraph(sentences: list[str], conversation: bool, source: str = "") -> str:
    """A paragraph's sentences run on; a conversation's turns each on a line of their own, as in its
    final ("Marco: ..." under "Aisha: ...", not one run of everyone's words). ``source``: the input the
    sentences come from, whose turns tell who said a sentence picked from inside a turn (one that does
    not open with its speaker's label): it is written after that speaker's label, on a line of its own."""
    if not conversation:
        return run_on(sentences)
    turns = _source_turns(source)
    lines: list[tuple[int | None, list[str]]] = []  # (the source turn, or None when not found; its sentences)
    at = 0  # the turn of the last sentence placed: the summarizer picks in source order
    for sentence in sentences:
        found = _turn_of(sentence, turns, at)
        if found is None:
            # Not found in one turn (reworded, or across two): a label of its own opens a line, as before.
            if not lines or parse_speaker_line(sentence)[0] is not None:
                lines.append((None, [sentence]))
            else:
                lines[-1][1].append(sentence)
            continue
        at = found
        if lines and lines[-1][0] == found:
            lines[-1][1].append(sentence)
            continue
        speaker, label, _ = turns[found]
        opens = not speaker or _for_match(" ".join(sentence.split())).startswith(label)
        lines.append((found, [sentence if opens else f"{speaker}: {sentence}"]))
    # A chat message ends its sentence, stop or no stop: a year's digest, made from its months', reads
    # them as sentences (unended, "... the audit log Dev Patel: Sounds good" ran into the next turn).
    return "\n".join(run_on(turn) + ("." if unended(turn[-1]) else "") for _, turn in lines)


def _source_turns(source: str) -> list[tuple[str | None, str, str]]:
    """A conversation's turns as (speaker, its label as written up to its colon, the turn's words with
    whitespace collapsed and quotation marks dropped, label included): a line with a speaker's label
    opens a turn, a line without one goes on with the turn before it."""
    turns: list[tuple[str | None, str, str]] = []
    for line in source.split("\n"):
        flat = _for_match(" ".join(line.split()))
        if not flat:
            continue
        who, said = parse_speaker_line(flat)
        if who is not None or not turns:
            label = flat[: len(flat) - len(said)].rstrip() if who is not None else ""
            turns.append((who, label, flat))
        else:
            speaker, label, words = turns[-1]
            turns[-1] = (speaker, label, f"{words} {flat}")
    return turns


def _turn_of(sentence: str, turns: list[tuple[str | None, str, str]], at: int) -> int | None:
    """The index of the turn holding ``sentence`` (as :class:`_Inputs` matches it: a stop the summarizer
    added may be none of the source's), looked for from turn ``at`` on, then before it; None when no
    single turn holds it."""
    flat = _for_match(" ".join(sentence.split()))
    forms = (flat, flat[:-1]) if flat.endswith(".") else (flat,)
    for i in [*range(at, len(turns)), *range(at)]:
        if any(form and form in turns[i][2] for form in forms):
            return i
    return None


# Where a sentence may end for :func:`_pieces`: a stop and the quotation marks it closes (".“ Die", "! » Heute",
# "。」"), before a space; a mark after a space opens the next one ("« Il") unless it closes a French quotation.
_ANY_STOP = re.compile(r"[.!?…](?:[\"'”“»«」』’)\]]|[ \u00a0\u202f]»)*(?=\s)|[。！？](?:[”」』）)])*")
_QUOTES = str.maketrans("", "", '"“”„«»「」『』')
# What matching a sentence to its input leaves out: the quotation marks the summarizer completes, and
# whitespace, which it may respace ("10 %" is "10%" in a French or German sentence it picked).
_UNMATCHED = re.compile(r"[\"“”„«»「」『』\s]+")
_SEP = "\x00"  # between inputs joined into one string: no text holds one (walk strips control characters)


def _for_match(text: str) -> str:
    """``text`` without its quotation marks: the summarizer completes a quotation cut in two."""
    return text.translate(_QUOTES)


def _key(text: str) -> str:
    """``text`` without quotation marks and whitespace, as a sentence the summarizer respaced is matched."""
    return _UNMATCHED.sub("", text)


class _Joined:
    """Inputs made one string (``_SEP`` between them) to find which hold a text: one scan, in C, not a
    substring test of every input."""

    def __init__(self, parts: list[str]) -> None:
        self.text = _SEP.join(parts)
        self.starts = list(accumulate((len(p) + 1 for p in parts), initial=0))  # the last: one past the end
        self._found: dict[str, list[int]] = {}  # a sentence many entries hold is looked for once

    def find(self, form: str) -> list[int]:
        """The indexes of the inputs holding ``form``, ascending."""
        found = self._found.get(form)
        if found is not None:
            return found
        found = []
        text, starts = self.text, self.starts
        last = len(starts) - 2  # the last input's index
        at = text.find(form) if form else -1
        while at >= 0:
            part = bisect_right(starts, at) - 1
            found.append(part)
            if part == last:
                break
            at = text.find(form, starts[part + 1])  # the next input's first occurrence
        self._found[form] = found
        return found

    def after(self, form: str, part: int, at: int | None) -> int:
        """Where ``form`` ends in input ``part`` when found there from ``at`` on (its start when None), else -1."""
        start = self.starts[part] if at is None else at
        found = self.text.find(form, start, self.starts[part + 1] - 1)
        return found + len(form) if found >= 0 else -1


class _Inputs:
    """A digest's inputs, to find which hold a sentence: each input with its whitespace collapsed and its
    quotation marks dropped (:func:`_for_match`), and again without any whitespace (:func:`_key`), for a
    sentence the summarizer respaced ("10 %" is "10%" in a French or German sentence it picked)."""

    def __init__(self, parts: list[str]) -> None:
        clean = [p.replace(_SEP, " ") if _SEP in p else p for p in parts]
        self.spaced = _Joined([" ".join(_for_match(p).split()) for p in clean])
        self.bare = _Joined([_key(p) for p in clean])

    def holding(self, sentence: str) -> list[int]:
        """The indexes of the inputs that hold ``sentence`` as the summarizer shows it: its quotation marks
        completed, a stop added to a paragraph that ended without one."""
        flat = _for_match(sentence.replace(_SEP, " "))
        for form in (flat, flat[:-1]) if flat.endswith(".") else (flat,):
            where = self.spaced.find(form)
            if where:
                return where
        return []

    def match(self, sentence: str) -> tuple[list[int], str]:
        """:meth:`holding`, else the inputs that hold ``sentence`` respaced; with its :func:`_key` in the
        form they hold (for :meth:`after`)."""
        key = _key(sentence.replace(_SEP, " "))
        forms = (key, key[:-1]) if key.endswith(".") else (key,)
        where = self.holding(sentence)
        if where:  # the form found is the first of ``forms`` the input holds without whitespace too
            return where, next((f for f in forms if self.bare.after(f, where[0], None) >= 0), key)
        for form in forms:
            where = self.bare.find(form)
            if where:
                return where, form
        return [], key

    def after(self, key: str, part: int, at: int | None) -> int:
        """Where ``key`` (a form :meth:`match` gave) ends in input ``part`` without its whitespace, when found
        there from ``at`` on (the input's start when None), else -1."""
        return self.bare.after(key, part, at)


def _pieces(sentence: str, inputs: _Inputs) -> list[tuple[list[int], str, str]] | None:
    """``sentence`` cut into the fewest runs of its pieces (cut at every stop and the quotation marks it
    closes) that an input holds, each with the indexes of the inputs holding it; None when a piece is in
    none (an LLM's words). A run is as long as an input holds it: an abbreviation's stop ("ca. 10%",
    "Fr. Özdemir") is no input's end, and a day's label between two of its pieces was one inside a sentence.
    Leftmost longest runs are the fewest: what an input holds, each piece of it holds too."""
    cuts = sorted({0, *(m.end() for m in _ANY_STOP.finditer(sentence)), len(sentence)})
    out: list[tuple[list[int], str, str]] = []
    i = 0
    while i + 1 < len(cuts):
        j, (where, form) = i + 1, inputs.match(sentence[cuts[i] : cuts[i + 1]].strip())
        if not where:
            return None
        while j + 1 < len(cuts) and (longer := inputs.match(sentence[cuts[i] : cuts[j + 1]].strip()))[0]:
            j, (where, form) = j + 1, longer
        out.append((where, sentence[cuts[i] : cuts[j]].strip(), form))
        i = j
    return out


def _in_source_order(forms: list[str], holders: list[list[int]], owners: list[int], inputs: _Inputs) -> list[int]:
    """``owners`` (:func:`_assign`'s) with a sentence its input does not hold after the one before it from
    that input given to the next input holding it there: the summarizer picks each input's sentences in
    their order and never one twice, so two days that say the same "Müde. Kopfweh." each keep their own."""
    cursor: dict[int, int] = {}  # each input's position after the last sentence given to it
    out = []
    for form, where, owner in zip(forms, holders, owners, strict=True):
        # Lazily: a sentence every file of a large folder holds is nearly always its owner's.
        for h in chain((owner,), islice(where, bisect_right(where, owner), None)):
            end = inputs.after(form, h, cursor.get(h))
            if end >= 0:
                owner, cursor[h] = h, end
                break
        out.append(owner)
    return out


# A day's label as :func:`batchsum.periods.day_label` writes it: "**3 November.** ", "**3. November** ",
# "**3 novembre** ", "**3 de noviembre** ", "**3 ноября** ", "**11月3日** ".
_DAY_LABEL = re.compile(r"\*\*(?:" + DAY_LABEL_TEXT + r")\*\* ")
# A label, and what a sentence splitter can leave of one it cut in two at a full stop (German's "**9." | "März**
# Heute ...", English's "**3 May." | "** We ..."): its opening, and its end with whatever of it is left before.
_LABEL_PIECES = re.compile(
    r"\*\*(?:" + DAY_LABEL_TEXT + r")\*\*\s*"
    r"|\*\*(?:\d{1,2}\.|" + DAY_LABEL_TEXT + r")(?=\s|$)\s*"
    r"|(?<!\S)(?:(?:\d{1,2}\.?\s+)?(?:de\s+)?(?:" + MONTH_LABEL_TEXT + r"))?\*\*(?=\s|$)\s*"
)


# Any label :func:`digest_body` opens a paragraph with: a day's, or a file's name (a week's "**2024-W11.** ", a
# diary's "**carnet.** ", "**2024-04 (de).** "), which ends with its full stop (:func:`entry_label`).
_ENTRY_LABEL = re.compile(r"\*\*(?:" + DAY_LABEL_TEXT + r"|[^*\n]{1,160}?\.)\*\* ")
# Where a paragraph of several days' runs (a week file's, :func:`_by_day`) labels its next day's run.
_NEXT_DAY = re.compile(r"(?<=\S) (?=\*\*(?:" + DAY_LABEL_TEXT + r")\*\* )")


def split_day_label(paragraph: str) -> tuple[str, str]:
    """A month's paragraph as (the label it opens with, a day's ``**3 November.** `` or a file's
    ``**2024-W11.** ``, or "", its words): the words go to a summarizer, which may cut a label in two
    (German's "**9." | "März** ..."), the label only before the words picked (:func:`day_labelled`)."""
    label = _ENTRY_LABEL.match(paragraph)
    return (label.group(0), paragraph[label.end() :]) if label else ("", paragraph)


def day_runs(paragraph: str) -> list[str]:
    """A month's paragraph cut before each day's label inside it (a week file's "**6. März** ... **8. März**
    ..."): each run is one day's, read by a year's digest as an entry of its own, so each keeps its label."""
    return [run for run in _NEXT_DAY.split(paragraph) if run.strip()]


def day_labelled(text: str, days: list[str], talk: bool = True) -> str:
    """A year's words for one month (sentences picked from the month's paragraphs ``days``, best without
    their day labels: :func:`split_day_label`), each run of sentences from one paragraph after that
    paragraph's day label, so none reads as another day's. A label, or a piece of one, in ``text`` goes:
    each label is written once, whole, before its paragraph's words. ``talk``: whether the month holds a
    conversation; a journal's "Lunch: soup." is the line's words, no speaker's label."""
    labels, bodies = zip(*map(split_day_label, days), strict=True) if days else ((), ())
    if "**" in text:
        text = _LABEL_PIECES.sub("", text)
    pairs = _by_part(text, list(bodies))
    if not pairs:
        return text
    out = []
    for i, picked in pairs:
        # A paragraph whose every line opens with a speaker's label is a conversation's turns, as the month
        # writes them (_paragraph): a sentence picked from inside a turn is written after its speaker's label.
        turns = talk and all(parse_speaker_line(line)[0] for line in bodies[i].splitlines() if line.strip())
        sentences = " ".join(_paragraph(picked, turns, bodies[i]).split())
        label = labels[i] or _day_label(days[i])
        # Words that open with a day say it themselves only when no label was the paragraph's: a day's file's
        # words opening with another month's day ("_December 10._--") keep their file's label.
        says = sentences.startswith(label.strip()) or (not labels[i] and _SAYS_DAY.match(sentences[:60]) is not None)
        out.append(label + sentences if label and not says else sentences)
    return " ".join(out)


_SAYS_DAY = re.compile(r"_?(" + "|".join(MONTH_NAMES) + r")_?\.? (\d{1,2})(?!\d)")  # "_February_ 1.--A most ..."


def opens_with_day(paragraph: str) -> bool:
    """Whether a paragraph opens with a day (``**3 November.**``, "_February_ 1.--") or its file's label (a
    month file's ``**2024-03.**`` when its days are not known): a year's month name before it is a second label."""
    return bool(_day_label(paragraph) or _ENTRY_LABEL.match(paragraph))


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
    # Read as digests.digest_request has the summarizer read them: a folder's files as documents.
    kind: ContentType = "document" if period.kind == "folder" else "journal"
    pairs = None if period.kind == "year" else _by_part(text, parts, kind, [o.language for o in owners])
    if not pairs:
        return text
    which = told_apart(owners)
    labels = [entry_label(facts, w) for facts, w in zip(owners, which, strict=True)]
    pieces: list[tuple[str, int, str]] = []  # (the day it is of, its input, a paragraph or a day's run of one)
    for i, picked in pairs:
        facts = owners[i] if i < len(owners) else None
        conversation = facts is not None and facts.content_type == "conversation"
        paragraph = _paragraph(picked, conversation, parts[i] if conversation else "")
        if facts is None:
            pieces.append(("", i, paragraph))
            continue
        runs = _day_runs(parts[i]) if facts.many_days else []
        if len(runs) > 1 or (runs and runs[0][0]):
            pieces += [(day or facts.date or "", i, run) for day, run in _by_day(picked, runs, facts, labels[i])]
            continue
        if not _says_day(paragraph, facts):
            paragraph = f"**{labels[i]}** {paragraph}"
        pieces.append((facts.date or "", i, _day_head_as_label(paragraph, facts, which[i])))
    if period.kind == "month" and any(o.many_days for o in owners):
        # In the order of the days written, not of the files' dates: a month's file (dated its 1st) holding
        # the 12th to the 30th and a week's file of the 4th to the 10th had read 12, 13, 4, 5. Days' files
        # alone are in date order already, a pick back to an entry where it was picked.
        pieces.sort(key=lambda piece: piece[0])
    out: list[tuple[int, list[str]]] = []
    for _, i, piece in pieces:
        if out and out[-1][0] == i and i < len(owners) and owners[i].many_days:
            out[-1][1].append(piece)  # a file's days in a row stay its paragraph
        else:
            out.append((i, [piece]))
    return "\n\n".join(" ".join(chunks) for _, chunks in out)


def source_dated(text: str, facts: FileFacts, roots: Mapping[str, ManifestEntry], cfg: RunConfig) -> str:
    """The summary ``text`` of a file of many days' entries (``facts``, its manifest entry in ``roots``) that
    names none of their days (a BRIEF final, as short as a file of a few entries gets) as the summarizer dates
    a journal's lines: each sentence after the day of the entry its source quotes it from ("2025-07-09: "), so
    the digest labels it by that day; as it is when a sentence's entry cannot be known (no label rather than a
    wrong one), ``roots`` has not the file or its source is gone or changed since."""
    entry = roots.get(facts.relpath)
    if not facts.many_days or entry is None or not text.strip() or DATE_LABEL.search(text):
        return text
    doc = read_source(entry.root, entry.relpath, entry.sha256, cfg.content_type, redact=cfg.redact_secrets)
    if doc is None:
        return text
    entries = [(u.date, "".join(u.text.split())) for u in units_from_text(doc.text, "journal", language=facts.language)]
    lines: list[tuple[str, list[str]]] = []
    at = 0  # the entry of the last sentence: the summarizer picks in source order
    for span in split_sentences(text, facts.language):
        bare = "".join(span.text.split())
        if not bare:
            continue
        at = next((j for j in chain(range(at, len(entries)), range(at)) if bare in entries[j][1]), -1)
        day = entries[at][0] if at >= 0 else None
        if day is None:
            return text
        if lines and lines[-1][0] == day:
            lines[-1][1].append(span.text.strip())
        else:
            lines.append((day, [span.text.strip()]))
    return "\n".join(f"{day}: {' '.join(words)}" for day, words in lines)


def _day_runs(part: str) -> list[tuple[str | None, str]]:
    """A final's text as runs of (the day its "2024-03-06: " line label gives, None before the first such
    line; its words without whitespace, to find a picked sentence in)."""
    pieces = DATE_LABEL.split(part)
    runs: list[tuple[str | None, str]] = [(None, pieces[0])] if pieces[0].strip() else []
    runs += [(pieces[k], pieces[k + 1]) for k in range(1, len(pieces) - 1, 2)]
    return [(day, "".join(words.split())) for day, words in runs]


def _by_day(
    picked: list[str], runs: list[tuple[str | None, str]], facts: FileFacts, label: str
) -> list[tuple[str | None, str]]:
    """A file of several days' sentences as runs of one day's, each (its ISO day, None before its first dated
    line; its sentences after that day's label in the file's language): "**6. März** Ich ...", "**8. März**
    Vom ...", as a day file's are: a week's second day had read as its first's, with its ISO label inline.
    Words before its first dated line open with the file's ``label``. A run that opens with its own dateline
    of that day ("September 4, 2024.--Promises ...") has the label in its place, not both."""
    groups: list[tuple[str | None, list[str]]] = []
    at = 0  # the run of the last sentence: the summarizer picks in source order
    for sentence in picked:
        bare = "".join(sentence.split())
        at = next((j for j in chain(range(at, len(runs)), range(at)) if bare in runs[j][1]), at)
        day = runs[at][0]
        if groups and groups[-1][0] == day:
            groups[-1][1].append(sentence)
        else:
            groups.append((day, [sentence]))
    out = []
    for day, sentences in groups:
        head = day_label(int(day[8:10]), int(day[5:7]), facts.language) if day else label
        words = run_on(sentences)
        own = _DAY_HEAD.match(words) if day else None
        if own and day and _month_day(own) == (int(day[5:7]), int(day[8:10])):
            words = words[own.end() :].lstrip("- ")
        out.append((day, f"**{head}** {words}" if head else words))
    return out


def _month_day(head: re.Match[str]) -> tuple[int, int]:
    """(month, day) of a :data:`_DAY_HEAD` or :data:`_SAYS_DAY` match."""
    return MONTH_NAMES.index(head.group(1)) + 1, int(head.group(2))


def _its_day(month: int, day: int, facts: FileFacts | None) -> bool:
    """Whether a day heading (``month``, ``day``) may label a paragraph of ``facts``' file: any day of a file
    of many days' or an undated one; of a day's file, its day or the next (a diary's entry kept in the file
    dated the day before). A file belongs to the day its name gives: "_December 10._--" in 2023-04-10.md had
    read as December's inside April."""
    if facts is None or facts.many_days or not facts.date:
        return True
    named = dt.date.fromisoformat(facts.date)
    return (month, day) in {(d.month, d.day) for d in (named, named + dt.timedelta(days=1))}


def _day_head_as_label(paragraph: str, facts: FileFacts | None, which: str = "") -> str:
    """A paragraph that opens with its journal's own day heading ("_May_ 17.--Last night ...", also after
    a place: "[_Abbotsford_,] _May_ 16.--") opens with the label the others have ("**17 May.** Last
    night ..."): one month's days read alike. ``which``: what tells its file (``facts``) from the day's
    others (:func:`~batchsum.digest_state.told_apart`), said when the heading names the file's own day
    ("**12 December (2).**")."""
    head = _DAY_HEAD.match(paragraph)
    if head is None or not _its_day(*_month_day(head), facts):
        return paragraph
    month, day = _month_day(head)
    own = facts is not None and not facts.many_days and (facts.date or "")[5:] == f"{month:02d}-{day:02d}"
    rest = paragraph[head.end() :].lstrip("- ")
    return f"**{day_label(day, month, facts.language if facts else None, which if own else '')}** {rest}"


def entry_words(facts: FileFacts) -> str:
    """A file's one-line words (``facts.line``) as its digest writes them: a journal's own day heading that opens
    them ("_November_ 23.--On comparing ...") goes when it names the file's day, which its line is shown with, and
    is the day's plain label otherwise ("17 May. Last night ...": :func:`_day_head_as_label`)."""
    label, rest = split_day_label(_day_head_as_label(facts.line, facts))
    if not label or facts.line.startswith(label):
        return facts.line
    return rest if label == f"**{entry_label(facts)}** " else label.replace("**", "") + rest


# A journal's own day heading, "_May_ 3.--", with the place its editor put in brackets before it or not
# ("[_Abbotsford_,] _May_ 16.--", "[_Edinburgh_],[265] _May_ 11.--" with a note's mark) or after its day
# ("_September 25, [Edinburgh]_,--", "_October_ 11, _Tuesday_.--", "_June_ 10-14.--", "_March 20._--"): the
# place is left out with the heading, whose label is all the others have.
_DAY_HEAD = re.compile(
    r"(?:\[_[^\]\n]{1,60}\],?(?:\[\d+\])?\s+)?" + _SAYS_DAY.pattern + r"[^\n.!?-]{0,40}?(?:-\d{1,2})?[.,]?_?-{2,}"
)


def _says_day(paragraph: str, facts: FileFacts) -> bool:
    """Whether a paragraph opens with a day of its own that reads as its label: a journal's day heading
    ("_May_ 3.--", written as the label in its place; "[_Abbotsford_,] _November_ 26.--" in a file of two
    days is the 26th, not the file's 25th), a month's name and a day ("_July_ 3---", as a year's digest
    reads it: :func:`_day_label`) or its entry's ISO date. A date inside its first sentence ("Hoy, 11 de
    octubre de 2025, hablé ...") is no label (the paragraph had read as the day before's), nor is another
    language's dateline ("Berlin, le 7 octobre 2025.--"): a year's digest would find no day there."""
    head = _DAY_HEAD.search(paragraph[:50]) or _SAYS_DAY.match(paragraph)
    if head is not None:
        # Another month's day is no label of this file's: its own goes before it.
        return _its_day(*_month_day(head), facts)
    return bool(facts.date) and paragraph.startswith(str(facts.date))
