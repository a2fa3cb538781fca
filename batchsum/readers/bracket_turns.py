"""Speakers named in brackets, as diarizing transcribers write them (WhisperX's ``[SPEAKER_00]: text``, an
edited ``[Maya] text``), read as ``Speaker: text`` turns; and the caption cues ("[Music]", "(laughs)") that
lines of a transcript carry.

A bracketed word before a turn's text is as often a sound cue ("[Music] la la") or a citation ("[Knuth]
Donald Knuth, ...") as a speaker: it names a speaker when one opens every turn of the text, each a name
(:func:`~batchsum.speaker_labels.parse_speaker_line` would take it for a label), and either a colon follows
each (a label's own mark) or a label opens more than one turn (speakers come back; cues and keys are not
that regular).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from batchsum.cleanup import CUE_WORDS
from batchsum.speaker_labels import parse_speaker_line

__all__ = [
    "CUE_LINES",
    "LINK_DEFINITION",
    "SOUND_CUE",
    "bracketed_labels",
    "bracketed_turns",
    "caption_cue_lines",
    "unbracket",
]

# A Markdown link reference definition: a label, then one URL or path ("[1]: https://...", "[x]:
# ch04.html#refs", "<...>") and an optional title. Not a sentence: "[SPEAKER_00]: Welcome back." is a turn.
LINK_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]+(?:<[^<>\n]*>|(?=\S*?(?:[/#@]|[.:?=&][\w%]))\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$",
    re.M,
)
# A sound or stage cue ("[Music]", "[MUSIC PLAYING]", "(laughs)", "(upbeat music)"): what captions mark
# as heard, not said (the subtitle reader's, formats._NOTE).
SOUND_CUE = re.compile(r"\[[^\]\n]{1,40}\]|\([a-z]+(?:[ -][a-z]+){0,2}\)", re.IGNORECASE)
# In running text only lower-case words in parentheses are a cue: "(Reuters)" or "(SPEAKER 1)" is none.
_LOWER_PAREN_CUE = re.compile(r"\((?:[a-z]+(?:[ -][a-z]+){0,2})\)")
# A line that opens with a bracketed label and goes on with words, after an optional colon.
_OPENER = re.compile(r"[ \t]*\[([^\[\]\n]{1,40})\](:?)[ \t]+(?=\S)")
_PARAGRAPH_OPENER = re.compile(r"(?:\A|\n[ \t]*\n)\n*([^\n]*)")  # each paragraph's first line
_BRACKET_LINE = re.compile(r"^[ \t]*\[[^\n]*", re.MULTILINE)  # a line that opens with a bracket
# A line that is only a caption's sound or stage cue, in words: "[Music]", "[MUSIC PLAYING]", "[click, TV
# static]", "(laughs)", "(upbeat music)", "(Applause)". A number or a box ("[1]", "[ ]", "[x]") is no cue.
_CUE_LINE = re.compile(
    r"[ \t]*(?:\[[A-Za-z][A-Za-z ,'-]{1,39}\]|\([A-Za-z][a-z]+(?:[ -][a-z]+){0,2}\))"
    r"(?:[ \t]*(?:\[[A-Za-z][A-Za-z ,'-]{1,39}\]|\([A-Za-z][a-z]+(?:[ -][a-z]+){0,2}\)))*[ \t]*"
)
# So many cue lines make a text a transcript: captions' "[Music]" between segments, a speaker's "(laughs)".
CUE_LINES = 3
# A cue line names a sound (cleanup's cue words: "[MUSIC PLAYING]", "(audience laughing)"); one that names
# none ("[Illustration]" in a Project Gutenberg book, a log's "(rest day)") counts only in a text that is
# as much such lines as words.
_CUE_WORD = re.compile(rf"\b(?:{CUE_WORDS})\b", re.IGNORECASE)
# What a log's or a task list's bracketed tag says: a level ("[INFO]", "[ERROR]"), a task's state ("[TODO]",
# "[DONE]") or a change's kind ("[Added]", "[Fixed]"), never who speaks.
_TAGS = frozenset(
    """
    info information warn warning error err debug trace fatal critical crit notice alert emerg emergency
    severe verbose success ok fail failed failure pass passed skip skipped
    todo done wip fixme note hack xxx bug doing next now later waiting blocked canceled cancelled in-progress
    added changed deprecated removed fixed security
    """.split()
)


def _is_cue(line: str) -> bool:
    """Whether ``line`` is only sound cues ("[Music]", "(laughs)", "[Music] (applause)"): no words said."""
    return bool(line.strip()) and not _cue_free(line).strip() and bool(SOUND_CUE.search(line))


def _cue_free(line: str) -> str:
    """``line`` without its bracketed cues and its lower-case parenthesised ones."""
    return _LOWER_PAREN_CUE.sub(" ", re.sub(r"\[[^\]\n]{1,40}\]", " ", line))


def _label(line: str) -> tuple[str, bool] | None:
    """The bracketed name ``line`` opens with and whether a colon follows it, or None. One character is a
    checklist's box ("[x] done"), a log's or task list's tag ("[INFO]", "[TODO]") no name either."""
    m = _OPENER.match(line)
    if m is None or LINK_DEFINITION.match(line):
        return None
    name = m.group(1).strip()
    if len(name) < 2 or "-".join(name.lower().split()) in _TAGS:
        return None
    if parse_speaker_line(f"{name}: {line[m.end() :]}")[0] != name:
        return None
    return name, bool(m.group(2))


def bracketed_labels(openers: Iterable[str]) -> bool:
    """Whether the lines ``openers`` (each turn's first line) name their speakers in brackets (the module's
    rule); lines that are only sound cues are no turns."""
    labels: list[tuple[str, bool]] = []
    for line in openers:
        if not line.strip() or _is_cue(line):
            continue
        found = _label(line)
        if found is None:
            return False
        labels.append(found)
    names = [name for name, _ in labels]
    return bool(labels) and (all(colon for _, colon in labels) or len(set(names)) < len(names))


def unbracket(line: str) -> str:
    """``line`` as ``Name: text`` when it opens with a bracketed name (``[Maya] text``), else as it is."""
    m = _OPENER.match(line)
    if m is None or _label(line) is None:
        return line
    return f"{m.group(1).strip()}: {line[m.end() :]}"


def bracketed_turns(text: str) -> str | None:
    """``text`` with its bracketed speaker labels as ``Name: text`` turns when it names its speakers so (the
    module's rule, over each paragraph's first line and each line that opens with a bracket), else None."""
    # The openers are found in place: a big file split into its lines and paragraphs up front had held
    # two more copies of its text while it was read (tests/test_big_file_memory.py).
    openers = [m.group(1) for m in _PARAGRAPH_OPENER.finditer(text)]
    openers += [m.group(0) for m in _BRACKET_LINE.finditer(text)]
    if not bracketed_labels(openers):
        return None
    return "\n".join(map(unbracket, text.split("\n")))


def caption_cue_lines(lines: Sequence[str]) -> int:
    """How many of the non-blank ``lines`` are a caption's sound or stage cue alone ("[Music]", "(laughs)"):
    what a transcriber (Whisper, a captioner) writes between the words said, and prose or notes never do.
    A cue that names no sound ("[Illustration]") counts only where cues are at least half the lines."""
    cues = [line for line in lines if _CUE_LINE.fullmatch(line)]
    if 2 * len(cues) >= len(lines):
        return len(cues)
    return sum(1 for line in cues if _CUE_WORD.search(line))
