"""Chats (.json/.jsonl) and subtitles (.vtt/.srt) rendered as ``Speaker: text`` lines.

OpenAI chat messages are read here; chat apps' exports (Slack, Telegram, Discord, ChatGPT, claude.ai) by
:mod:`batchsum.readers.chat_exports`, each told by its shape.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from batchsum import jsonio
from batchsum.abbreviations import ABBREVIATIONS
from batchsum.compact.messages import call_command, tool_calls_of
from batchsum.language import joins_without_space, run_on, unspaced
from batchsum.readers.bracket_turns import SOUND_CUE, bracketed_labels, unbracket
from batchsum.readers.chat_exports import render_export
from batchsum.speaker_labels import parse_speaker_line
from batchsum.text import LEADS_ON

__all__ = ["render_chat", "render_subtitles", "render_whisper"]


# Instructions to the model, not the conversation: a summary ("System: Answer questions about ...") or a
# search hit on them says nothing about what was discussed.
INSTRUCTION_ROLES = frozenset({"system", "developer"})


def render_chat(raw_text: str, path: Path) -> str:
    """Render a chat as ``Name: text`` lines: a chat app's export (:func:`~batchsum.readers.chat_exports.render_export`,
    ``.json`` only) or OpenAI chat messages (.jsonl lines or a ``messages`` list), leaving out the system
    and developer messages (:data:`INSTRUCTION_ROLES`). Raises ValueError naming what the JSON holds
    when it is no chat; :class:`~batchsum.readers.chat_exports.ExportMetadata` for an export's metadata file."""
    messages: list[Any]
    stripped = raw_text.strip()
    if not stripped:
        return ""
    try:
        if path.suffix.lower() == ".json":
            data = jsonio.loads(stripped)
            rendered = render_export(data, path)
            if rendered is not None:
                return rendered
            whisper = render_whisper(data)
            if whisper is not None:
                return whisper
            if isinstance(data, dict):
                if not isinstance(data.get("messages"), list):
                    keys = ", ".join(sorted(map(str, data))[:5]) or "none"
                    raise ValueError(
                        "JSON is not a conversation: expected a list of messages or {'messages': [...]}, "
                        f"found an object with keys: {keys}"
                    )
                messages = data["messages"]
            elif isinstance(data, list):
                messages = data
            else:
                raise ValueError(
                    f"JSON is not a conversation: expected a list of messages, found a {type(data).__name__}"
                )
        else:
            messages = []
            for lineno, line in enumerate(raw_text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    item = jsonio.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"invalid JSON on line {lineno}: {exc.msg}") from exc
                if isinstance(item, dict) and "messages" in item and isinstance(item["messages"], list):
                    messages.extend(item["messages"])
                else:
                    messages.append(item)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (line {exc.lineno})") from exc
    lines: list[str] = []
    for i, m in enumerate(messages):
        # A message that only calls tools has no text of its own: OpenAI leaves its content out.
        if not isinstance(m, dict) or ("content" not in m and not m.get("tool_calls")):
            found = f"keys: {', '.join(sorted(map(str, m))[:6]) or 'none'}" if isinstance(m, dict) else type(m).__name__
            raise ValueError(
                f"JSON is not a conversation: message {i + 1} has no 'content' (expected {{'role', 'content'}}, "
                f"found {found})"
            )
        if str(m.get("role") or "").strip().lower() in INSTRUCTION_ROLES:
            continue
        role = str(m.get("name") or m.get("role") or "unknown").strip()
        content = m.get("content")
        if isinstance(content, list):  # multi-part content: keep the text parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        content = "\n".join(filter(None, [str(content or "").strip(), *_rendered_calls(m.get("tool_calls"))]))
        if content:
            lines.append(f"{role[:1].upper()}{role[1:]}: {content}")
    return "\n\n".join(lines)


def _rendered_calls(raw: Any) -> list[str]:
    """A message's tool calls as an agent transcript shows them, so a run's agent pass reads them as a
    Markdown session's: a command as a fenced block (the turn's command), another call as ``[tool call
    name: arguments]`` (:func:`batchsum.agent_transcript.render_markdown`)."""
    if not raw:
        return []
    out: list[str] = []
    for call in tool_calls_of(raw):
        command = call_command(call.name, call.args())
        out.append(f"```\n{command}\n```" if command else f"[tool call {call.name}: {call.arguments}]")
    return out


_VTT_TS = re.compile(r"^\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3}\s*-->\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3}(?:\s|$)")
# A line that tries to be a cue timing: an arrow, or nothing but clock-like numbers and separators.
_TIMING_LIKE = re.compile(r"-->|^[\s\d:.,\->]*\d[:.,]\d[\s\d:.,\->]*$")
_VOICE = re.compile(r"<v(?:\.[^ >]*)?\s+([^>]+)>")
_TAG = re.compile(r"</?[^>]+>")
# ASS/SSA override codes kept in SRT files by converters ("{\an8}" puts the cue at the top, "{\i1}" italics).
_ASS_OVERRIDE = re.compile(r"\{\\[^{}]*\}")
# A line opening with a dialogue dash is a new speaker's: "- Is this the last
# crossing?" / "- The last one, yes." is two people in one cue. A dash before a number ("-5 degrees") or
# another dash ("--") is no such mark.
_TURN_MARK = re.compile(r"[-\u2010\u2013\u2014]\s*(?=[^\s\d\-\u2010\u2013\u2014>])")
# Broadcast captions' ">>" marks each change of speaker wherever it falls, inside a rolling line too ("... in
# the back >> is the learning rate the same"), or closing one (the next line is the new speaker's); unlike a
# dash, the lines after it are that speaker's until the next mark. Opening a line it is always one; inside a
# line only in captions that use the convention (:func:`_uses_chevrons`) and before a word or the line's end:
# elsewhere it is the words' own ("Type echo hi >> notes.txt in the shell").
_CHEVRONS_OPENING = re.compile(r"^>>(?!>)")
_CHEVRONS = re.compile(r"^>>(?!>)|(?<=\s)>>(?!>)(?=\s+[^\W\d_]|\s*$)")
_CHEVRONS_CLOSING = re.compile(r"(?:^|\s)>>$")
_HEADER_BLOCKS = ("WEBVTT", "NOTE", "STYLE", "REGION")
# A word's timing inside a cue (``the<00:00:00.400><c> deadline</c>``): YouTube's automatic captions, which
# roll: each cue repeats the line the previous one ended with.
_INLINE_TIMING = re.compile(r"<(?:\d+:)?\d{2}:\d{2}[.,]\d{3}>")


def _cue_pieces(raw_text: str) -> Iterator[list[str]]:
    """The non-blank lines of each blank-line-separated block, cut before each timing line of a block
    holding several (with its SRT number, if it has one); a header run straight into the cues loses
    only the lines before the first timing."""
    # Any line that strips to nothing ends a block, non-breaking spaces too: kept inside one, it would run
    # an empty cue's timing on into a NOTE block after it, whose comment would become the cue's text.
    for block in re.split(r"\n[^\S\n]*\n", raw_text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [ln.strip() for ln in block.split("\n") if ln.strip()]
        if not lines:
            continue
        timings = [i for i, ln in enumerate(lines) if _VTT_TS.match(ln)]
        if lines[0].startswith(_HEADER_BLOCKS):
            if not timings:
                continue
            lines = lines[timings[0] :]
            timings = [t - timings[0] for t in timings]
        cuts = [0]
        for t in timings[1:]:
            cut = t - 1 if t - 1 > cuts[-1] and lines[t - 1].isdigit() else t
            cuts.append(cut)
        for start, end in zip(cuts, [*cuts[1:], len(lines)], strict=True):
            if end > start:
                yield lines[start:end]


def _cue_blocks(raw_text: str) -> Iterator[list[str]]:
    """The non-blank lines of each cue. Cues are separated by blank lines, but some writers leave them
    out: a block with several timing lines is cut before each (:func:`_cue_pieces`). A cue whose timing
    line is followed by a line of spaces (YouTube's captions) goes on with the block after it."""
    held: list[str] | None = None  # a cue that ended at its timing line: its text may follow a blank line
    for lines in _cue_pieces(raw_text):
        if held is not None:
            if not any(_TIMING_LIKE.search(ln) for ln in lines):
                lines = held + lines
            else:
                yield held
            held = None
        if _TIMING_LIKE.search(lines[-1]):
            held = lines
            continue
        yield lines
    if held is not None:
        yield held


def _plain(line: str) -> str:
    """A cue line's words as a reader sees them: tags, ASS/SSA override codes (``{\\an8}``) and word
    timings left out, character references (``&amp;``, ``&#39;``, ``&nbsp;``) decoded."""
    # Tags go before the references are decoded: "&lt;i&gt;" is the text "<i>", not a tag.
    return " ".join(html.unescape(_TAG.sub("", _ASS_OVERRIDE.sub("", line))).split())


def _cue_text(lines: list[str]) -> str:
    """Cue lines (as :func:`_plain` gives them) as one line: a space between two, none inside Chinese
    or Japanese text."""
    out = lines[0]
    for before, line in itertools.pairwise(lines):
        out += ("" if joins_without_space(before, line) else " ") + line
    return out


def _speaker_prefix(text: str, bracketed: bool) -> tuple[str, str] | None:
    """``(speaker, words)`` when a cue opens with its speaker's name ("Ana: ...", "王伟：..."), in any
    script (:func:`~batchsum.speaker_labels.parse_speaker_line`), or in brackets when the captions name
    their speakers so (``bracketed``: "[SPEAKER_00] ..."); a name in a script with capitals starts with
    one ("so: ..." names no one)."""
    label, said = parse_speaker_line(unbracket(text) if bracketed else text)
    if label is None or label[0].islower():
        return None
    return label, said


def _new_lines(text_lines: list[str], before: list[str], rolling: bool) -> tuple[list[str], list[str]]:
    """A cue's lines without the rolling overlap, and its lines with words (``before`` for the next cue).

    The overlap is the previous cue's last line repeated as this cue's first line: left out when this
    cue goes on past it (roll-up captions) or, in YouTube's captions (``rolling``), when the previous cue
    brought that line in (under another line, or word by word with word timings) and this brief cue only
    holds it. Any other repeat is a line said again (``No.`` / ``No.``, a chorus), and kept."""
    said = [ln for ln in text_lines if _plain(ln)]
    # A line with word timings of its own is being typed out, so said now: not carried.
    if not said or not before or _plain(said[0]) != _plain(before[-1]) or _INLINE_TIMING.search(said[0]):
        return text_lines, said or before
    brought_in = len(before) > 1 or _INLINE_TIMING.search(before[-1]) is not None
    if len(said) > 1 or (rolling and brought_in):
        first = text_lines.index(said[0])
        return text_lines[:first] + text_lines[first + 1 :], said
    return text_lines, said


# Sound and stage cues ("[Music]", "(applause)"), as the transcript cleaner leaves them out: no words said.
_NOTE = SOUND_CUE
# A sentence's end: a stop (or full-width one) before closing quotes and a space or the end.
_STOP = re.compile(r"[.?!\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*(?=\s|$)")
_CLOCK = re.compile(r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{3})")


@dataclass
class _Cue:
    """A cue's words in a turn (without what it repeats of the cues before) and its timing, if well formed."""

    text: str
    start: float | None = None
    end: float | None = None


@dataclass
class _Turn:
    """A speaker's words in one or more cues. ``dashed``: opened by a dialogue dash, a new speaker's
    even when no name tells them apart; ``open``: a later cue of the same speaker goes on with it (not
    after an unnamed one opened by a dash: whose the next cue is, is unknown); ``cues``: its words cue
    by cue."""

    speaker: str | None
    text: str
    dashed: bool = False
    open: bool = True
    cues: list[_Cue] = field(default_factory=list)


def _uses_chevrons(blocks: Iterable[list[str]]) -> bool:
    """Whether captions mark a change of speaker with ``>>``: a cue's words open with the mark, or end on it
    (the next cue's words a new speaker's). A ">>" inside a line is then a mark too (:func:`_marked`)."""
    for lines in blocks:
        said = _plain(" ".join(_cue_text_lines(lines)[1]))
        if _CHEVRONS_OPENING.match(said) or _CHEVRONS_CLOSING.search(said):
            return True
    return False


def _marked(text: str, chevrons: bool = False) -> list[tuple[bool, str]]:
    """``text`` cut at each ``>>`` mark: one opening it, and when the captions use the convention
    (``chevrons``), one inside it before a word or at its end (:data:`_CHEVRONS`): ``(whether a mark opens it,
    its words)``."""
    cuts = [m.span() for m in (_CHEVRONS if chevrons else _CHEVRONS_OPENING).finditer(text)]
    parts = [(False, text[: cuts[0][0]] if cuts else text)]
    parts += [
        (True, text[end : (cuts[k + 1][0] if k + 1 < len(cuts) else len(text))]) for k, (_, end) in enumerate(cuts)
    ]
    return [(mark, " ".join(words.split())) for mark, words in parts if mark or words.strip()]


def _cue_turns(
    text_lines: list[str], bracketed: bool = False, marked: bool = False, chevrons: bool = False
) -> tuple[list[_Turn], bool]:
    """A cue's turns: a new one at each voice tag (``<v Anna>``), each line opening with a dialogue dash,
    each ``>>`` mark (:func:`_marked`, ``chevrons`` whether the captions use them; ``marked``: the cue before
    ended on one) and each line opening with a speaker's label (``INTERVIEWER: ...``, judged on its words, tags
    left out; in brackets when ``bracketed``); the lines between go on with the turn above them (a turn's words
    wrapped over two lines). Also whether the cue ends on a ``>>`` mark, the next cue's words a new speaker's."""
    pieces: list[tuple[str | None, str]] = []  # (a voice tag's name, the text it opens), one per line or tag
    for line in text_lines:
        cuts = [m.start() for m in _VOICE.finditer(line)]
        if not cuts or cuts[0] > 0:
            pieces.append((None, line[: cuts[0]] if cuts else line))
        for at, end in zip(cuts, [*cuts[1:], len(line)], strict=False):  # no end without a cut
            tag = _VOICE.match(line, at)
            assert tag is not None  # cut where it matched
            pieces.append((" ".join(tag.group(1).split()), line[tag.end() : end]))
    turns: list[_Turn] = []
    for voice, piece in pieces:
        for mark, text in _marked(_plain(piece), chevrons):
            marked = marked or mark
            if not text:
                continue
            dash = None if marked else _TURN_MARK.match(text)
            if dash is not None:
                text = text[dash.end() :]
            # A voice tag names its speaker: "The tide card is one curve: ..." under it is a sentence, no label.
            speaker, label = voice, _speaker_prefix(text, bracketed) if voice is None else None
            if label is not None:
                speaker, text = label
            if voice is None and dash is None and label is None and not marked and turns:
                turns[-1].text = _cue_text([turns[-1].text, text])
                continue
            new = dash is not None or marked
            turns.append(_Turn(speaker, text, dashed=new, open=speaker is not None or dash is None))
            marked = False
    return turns, marked


def _cue_text_lines(lines: list[str]) -> tuple[int | None, list[str]]:
    """A cue block's timing line (its index, None when it has none) and its text lines: those after the
    timing, or without the cue number when there is no timing."""
    timing = next((i for i, ln in enumerate(lines) if _TIMING_LIKE.search(ln)), None)
    if timing is not None:
        return timing, lines[timing + 1 :]  # lines before the timing are a cue number or identifier
    return None, lines[1:] if len(lines) > 1 and lines[0].isdigit() else lines


def _cue_span(timing: str) -> tuple[float | None, float | None]:
    """A well-formed timing line's start and end in seconds; ``(None, None)`` for a malformed one."""
    if not _VTT_TS.match(timing):
        return None, None
    start, end = (
        int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000 for h, m, s, ms in _CLOCK.findall(timing)[:2]
    )
    return start, end


def _key(token: str) -> str:
    """A word as compared across cues: case and punctuation left out ("Rust," is "rust")."""
    return "".join(ch for ch in token.casefold() if ch.isalnum())


def _tail_keys(cues: list[_Cue], n: int) -> list[str]:
    """The last ``n`` words said in ``cues`` (:func:`_key`), sound cues left out."""
    keys: list[str] = []
    for cue in reversed(cues):
        keys[:0] = [k for tok in _NOTE.sub(" ", cue.text).split() if (k := _key(tok))]
        if len(keys) >= n:
            break
    return keys[-n:]


def _without_overlap(cues: list[_Cue], text: str) -> str:
    """``text`` without the words it repeats of the end of ``cues``: the longest run of two or more
    words that ends the words said so far and opens ``text``, when ``text`` goes on past it (rolling
    captions: "so today we" / "so today we talk about ownership"). A whole cue said again is no such
    overlap (the line rule of :func:`_new_lines` judges it), nor is a repeat that ends a sentence of its
    own ("I know." / "I know. But still."): an echo, said twice."""
    tokens = text.split()
    keyed = [(i, k) for i, tok in enumerate(tokens) if (k := _key(tok))]
    tail = _tail_keys(cues, len(keyed) - 1) if len(keyed) > 2 else []
    for n in range(len(tail), 1, -1):
        if tail[-n:] == [k for _, k in keyed[:n]]:
            last = keyed[n - 1][0]
            return text if _STOP.search(tokens[last]) else " ".join(tokens[last + 1 :])
    return text


# Unpunctuated captions (automatic ones) are cut into sentence-like units at cue boundaries, so an
# extractive summary can pick from across the talk: a unit takes cues until it holds _UNIT_WORDS words
# (about an English sentence's length), ends early at a pause of _PAUSE_SECONDS between cues (a pause is
# the usual cue of an utterance boundary in speech segmentation) once it holds _PAUSE_WORDS, and ends
# before a cue that would take it past _MAX_UNIT_WORDS, where its words allow (:func:`_may_cut`); a unit
# no such place ends is cut at _CAP_WORDS all the same, so no caption reads as one endless line.
_UNIT_WORDS = 20
_MAX_UNIT_WORDS = 40
_PAUSE_WORDS = 5
_PAUSE_SECONDS = 1.0
_CAP_WORDS = 2 * _MAX_UNIT_WORDS
_WORDS_PER_STOP = 40  # fewer stops than one per this many words: the captions are unpunctuated


def _word_count(text: str) -> int:
    return sum(1 for tok in _NOTE.sub(" ", text).split() if _key(tok))


def _unpunctuated(turns: list[_Turn]) -> bool:
    """Whether the captions have (almost) no sentence ends and more words than one unit holds: then they
    are read unit by unit (:func:`_units`). Chinese and Japanese, whose words no space parts, are not."""
    text = " ".join(c.text for t in turns for c in t.cues)
    words = _word_count(text)
    if words <= _MAX_UNIT_WORDS or len(_STOP.findall(text)) * _WORDS_PER_STOP >= words:
        return False
    return sum(map(unspaced, text)) * 2 < sum(map(str.isalpha, text))


# Closed-class words that need what follows them, so a sentence never ends on one (with text.LEADS_ON's
# articles, prepositions, conjunctions, auxiliaries and possessives): subject pronouns and their contractions
# ("you've. Got some"), subordinators and the prepositions and auxiliaries LEADS_ON leaves out.
_NEEDS_MORE = LEADS_ON | frozenset(
    """i we you they he she it there i'm i've i'd i'll you're you've you'd you'll we're we've we'd we'll they're
    they've they'd they'll he's she's it's that's there's here's what's who's let's so because since when
    whether although though unless until while where whereas about through between across against toward
    towards during without within among like do does did am being very gonna wanna gotta such""".split()
)
# Words that hang on the one before, so no sentence opens with them: an infinitive's or a comparison's
# "to" and "than", "of" ("the size. Of the step", "you need. To know").
_HANGS_ON = frozenset({"to", "than", "of"})
# Number words, spelled out: a cut between two ("eighty. Nine", "one hundred. And six") changes the number.
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
    billion trillion""".split()
)
# Words that open a clause (subjects that are no objects, subordinators, discourse markers): a long enough
# unit ends before one rather than before another word when one comes soon ("the learning. Rate and ...").
_OPENERS = frozenset(
    """i we they he she i'm i've i'd i'll you're you've you'd you'll we're we've we'd we'll they're they've
    they'd they'll he's she's it's that's there's here's let's so but because if when okay ok yes now then
    alright""".split()
)


def _words(text: str) -> list[str]:
    """``text``'s words as the rules above compare them: case and edge punctuation left out, sound cues too."""
    return [w for tok in _NOTE.sub(" ", text).split() if (w := tok.casefold().strip(".,;:!?\"'()[]"))]


def _last_word(pieces: list[str]) -> str:
    said = _words(" ".join(pieces))
    return said[-1] if said else ""


def _numeral(word: str) -> bool:
    return word.isdigit() or all(part in _NUMBER_WORDS for part in word.split("-"))


def _splits_number(last: str, after: list[str]) -> bool:
    """Whether a cut between ``last`` and the words ``after`` it falls inside a number: "eighty" / "nine",
    "hundred" / "and six", "three" / "point five"."""
    if not (last and after and _numeral(last)):
        return False
    return _numeral(after[0]) or (after[0] in {"and", "point"} and len(after) > 1 and _numeral(after[1]))


def _may_cut(pieces: list[str], after: str) -> bool:
    """Whether a sentence may end after ``pieces`` and the next open with ``after``: not after a word the
    sentence splitter reads as an abbreviation or an initial ("no.", "a."), which it would run on, nor after
    a closed-class word a sentence goes on from (:data:`_NEEDS_MORE`: "removes the values in." / "after that
    we. Look at borrowing"), nor before one that hangs on the word before (:data:`_HANGS_ON`), nor inside a
    spelled number (:func:`_splits_number`)."""
    last = _last_word(pieces)
    nxt = _words(after)[:2]
    if last in _NEEDS_MORE or (nxt and nxt[0] in _HANGS_ON) or _splits_number(last, nxt):
        return False
    return not (len(last) == 1 and last.isalpha()) and last not in ABBREVIATIONS


def _sentence(pieces: list[str]) -> str:
    """A unit's cues as a sentence: its first letter a capital, a period after its last word."""
    said = [i for i, p in enumerate(pieces) if not _NOTE.fullmatch(p)]
    if said:
        first = pieces[said[0]]
        pieces[said[0]] = first[:1].upper() + first[1:]
        last = pieces[said[-1]]
        if not _STOP.search(last[-1:]):
            pieces[said[-1]] = last.rstrip(",;:-") + "."
    return run_on(pieces)


def _phrases(cue: _Cue) -> list[str]:
    """A cue's text cut before each clause-opening word in it (:data:`_OPENERS`) after its first: the places
    inside a cue a unit may end (automatic captions cut their cues by length, not where a sentence ends)."""
    tokens = cue.text.split()
    cuts = [i for i, tok in enumerate(tokens) if i and _words(tok)[:1] and _words(tok)[0] in _OPENERS]
    return [" ".join(tokens[i:j]) for i, j in zip([0, *cuts], [*cuts, len(tokens)], strict=True)]


def _flow(cues: list[_Cue]) -> list[tuple[str, int, bool]]:
    """A turn's cues as the pieces a unit is made of (:func:`_phrases`, a sound cue whole): each with its
    word count and whether a pause comes before it (a sound cue, or a gap of _PAUSE_SECONDS before a cue)."""
    flow: list[tuple[str, int, bool]] = []
    prev_end: float | None = None
    for cue in cues:
        gap = cue.start is not None and prev_end is not None and cue.start - prev_end >= _PAUSE_SECONDS
        if _NOTE.fullmatch(cue.text):
            flow.append((cue.text, 0, True))
        else:
            flow += [(text, _word_count(text), gap and k == 0) for k, text in enumerate(_phrases(cue))]
        prev_end = cue.end
    return flow


def _opens(text: str, pause: bool) -> bool:
    """Whether a piece opens a clause: after a pause, or with an opening word (:data:`_OPENERS`)."""
    said = _words(text)
    return pause or (bool(said) and said[0] in _OPENERS)


def _better_ahead(flow: list[tuple[str, int, bool]], pieces: list[str], count: int) -> bool:
    """Whether a unit of ``pieces`` (``count`` words) going on with ``flow`` may end before a piece that opens
    a clause (:func:`_opens`, :func:`_may_cut`) before it passes _MAX_UNIT_WORDS."""
    pieces = list(pieces)
    for text, n, pause in flow:
        if count > _MAX_UNIT_WORDS:
            return False
        if _opens(text, pause) and _may_cut(pieces, text):
            return True
        pieces.append(text)
        count += n
    return False


def _units(cues: list[_Cue]) -> str:
    """A turn's unpunctuated cues cut into sentences at cue boundaries and before a clause's opening word
    inside a cue (the constants above). Past _UNIT_WORDS a unit ends at the first place it may
    (:func:`_may_cut`), unless a place that opens a clause (:func:`_opens`) comes before it would pass
    _MAX_UNIT_WORDS; a pause ends one holding _PAUSE_WORDS; past _CAP_WORDS, with no place it may end, it
    ends anywhere but inside a number. A sound cue ("[Music]") counts no words."""
    flow = _flow(cues)
    units: list[list[str]] = [[]]
    count = 0
    for i, (text, n, pause) in enumerate(flow):
        cut = False
        if count + n > _MAX_UNIT_WORDS or (pause and count >= _PAUSE_WORDS):
            cut = _may_cut(units[-1], text)
        elif count >= _UNIT_WORDS and _may_cut(units[-1], text):
            cut = _opens(text, pause) or not _better_ahead(flow[i + 1 :], [*units[-1], text], count + n)
        if count and (cut or (count >= _CAP_WORDS and not _splits_number(_last_word(units[-1]), _words(text)[:2]))):
            units.append([])
            count = 0
        units[-1].append(text)
        count += n
    return run_on(_sentence(u) for u in units if u)


def render_subtitles(raw_text: str, warnings: list[str] | None = None) -> str:
    """Render WebVTT/SRT cues as ``Speaker: text`` lines, merging consecutive cues of one speaker.

    Rolling captions (YouTube's automatic ones, or a cue opening with the line the previous one ended
    with, or with its last words) give each word once: the line a cue carries over from the previous one
    is left out, a line said twice is kept twice (:func:`_new_lines`), and so are the words a cue
    repeats of the text so far (:func:`_without_overlap`). Unpunctuated captions are cut into sentences
    at cue boundaries (:func:`_units`).

    A cue whose timing line is malformed or missing keeps its text (the timing is dropped); the
    number of such cues is appended to ``warnings``.
    """
    turns: list[_Turn] = []
    malformed = 0
    rolling = _INLINE_TIMING.search(raw_text) is not None
    before: list[str] = []  # the previous cue's lines with words
    marked = False  # the previous cue ended on a ">>" mark
    # WhisperX's "[SPEAKER_00]: ..." cues: a bracketed name that opens every cue is its speaker.
    bracketed = bracketed_labels(next(iter(_cue_text_lines(b)[1]), "") for b in _cue_blocks(raw_text))
    chevrons = ">>" in raw_text and _uses_chevrons(_cue_blocks(raw_text))
    for lines in _cue_blocks(raw_text):
        timing, text_lines = _cue_text_lines(lines)
        span: tuple[float | None, float | None] = (None, None)
        if timing is None:
            malformed += 1  # no timing line at all
        else:
            span = _cue_span(lines[timing])
            if span[0] is None:
                malformed += 1
        text_lines, before = _new_lines(text_lines, before, rolling)
        cue_turns, marked = _cue_turns(text_lines, bracketed, marked, chevrons)
        for turn in cue_turns:
            last = turns[-1] if turns else None
            # A cue without a name is the same voice going on (a dash or ">>" mark says otherwise).
            if last is not None and not turn.dashed and turn.speaker in (None, last.speaker) and last.open:
                said = _without_overlap(last.cues, turn.text)
                if said:
                    last.cues.append(_Cue(said, *span))
            else:
                turn.cues.append(_Cue(turn.text, *span))
                turns.append(turn)
    if malformed and warnings is not None:
        warnings.append(f"{malformed} cue(s) with a malformed or missing timestamp: text kept, timing dropped")
    return _render_turns(turns)


def _render_turns(turns: list[_Turn]) -> str:
    """Turns as ``Speaker: text`` paragraphs (an unnamed one as its text); unpunctuated ones in sentences."""
    render = _units if _unpunctuated(turns) else (lambda cues: run_on(c.text for c in cues))
    return "\n\n".join(f"{t.speaker}: {render(t.cues)}" if t.speaker else render(t.cues) for t in turns)


def _seconds(value: Any) -> float | None:
    """A segment's ``start``/``end`` as seconds, None when it is no number."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def render_whisper(data: Any) -> str | None:
    """A Whisper transcript (``{"text", "segments": [{"start", "end", "text"}], "language"}``; WhisperX adds a
    ``speaker`` to each segment) as its segments' text in order, a speaker's consecutive segments one
    ``Speaker: text`` turn, read as subtitles' cues are (unpunctuated ones cut into sentences at their
    boundaries); None for any other JSON."""
    segments = data.get("segments") if isinstance(data, dict) else None
    if not isinstance(segments, list) or not all(isinstance(s, dict) and "text" in s for s in segments):
        return None
    turns: list[_Turn] = []
    for seg in segments:
        text = " ".join(str(seg["text"] or "").split())
        if not text:
            continue
        speaker = (str(seg["speaker"]).strip() or None) if seg.get("speaker") is not None else None
        cue = _Cue(text, _seconds(seg.get("start")), _seconds(seg.get("end")))
        if turns and turns[-1].speaker == speaker:
            turns[-1].cues.append(cue)
        else:
            turns.append(_Turn(speaker, text, cues=[cue]))
    if not turns and isinstance(data.get("text"), str):
        return " ".join(data["text"].split())  # no segments kept: the whole text is all there is
    return _render_turns(turns)
