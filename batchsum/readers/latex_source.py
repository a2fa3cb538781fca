"""A LaTeX source file as the text TeX reads: verbatim bodies, comments and ``\\iffalse`` blocks taken away, and
the files it ``\\input``s or ``\\include``s read in their place.

An included name is looked up in the main file's folder (where LaTeX runs), then in the including file's, then in
the 3 folders above the main file's (a section's file read on its own finds the files it inputs as its paper's main
file does), with ".tex" added when missing; a name with another extension and no ".tex" file (``\\input{plot.pgf}``,
a picture) is not followed, silently. Inputs are followed 8 deep at most, never into a file already being read (a
cycle); a file that cannot be read, or whose braces do not balance, is left out with a warning naming both files. An
included file's own preamble (a standalone or ``subfiles`` document) is no text, as the main file's.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from batchsum.readers.decoding import decode_bytes
from batchsum.readers.latex_macros import BREAK, DROPPED, GONE, MAX_TEXT, PAR, braces

# Environments whose body is not TeX (read raw, up to their \end): left out before anything else.
# (ACM's CCSXML holds the classification as XML, typeset by \ccsdesc: metadata, no text.)
_RAW_ENVS = tuple("verbatim verbatim* Verbatim BVerbatim lstlisting minted comment filecontents CCSXML".split())
_RAW = re.compile(r"\\begin\{(" + "|".join(map(re.escape, _RAW_ENVS)) + r")\}.*?\\end\{\1\}", re.S)
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s*])(.*?)\1")
_VERB_ESCAPES = str.maketrans(
    {c: "\\" + c for c in "{}%$&#_"}
    | {"\\": "\\textbackslash{}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}
)
# A URL's argument is read as written: its "%20" or "#anchor" is no comment or parameter.
_URL = re.compile(r"\\(url|href|nolinkurl)\s*\{([^{}\n]*)\}")
# Text set aside by the writer with \iffalse ... \fi (a block commented out): never typeset.
_IFFALSE = re.compile(r"\\iffalse(?![A-Za-z@]).*?\\fi(?![A-Za-z@])", re.S)
# A % that opens a comment: after an even number of backslashes (``\\%`` is a line break and a comment).
_COMMENT = re.compile(r"(?:^|(?<=[^\\]))(?:\\\\)*%")


def strip_comments(text: str) -> str:
    """``text`` without comments: from a ``%`` (not ``\\%``) to its line's end, which TeX takes too (with the
    next line's leading spaces) unless a blank line follows: that still ends the paragraph."""
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if out and out[-1].endswith(GONE):
            line = line.lstrip(" \t")
        m = _COMMENT.search(line)
        if m is None:
            out.append(line + "\n")
            continue
        last = i + 1 == len(lines) or not lines[i + 1].strip()
        out.append(line[: m.end() - 1] + ("\n" if last else GONE))
    return "".join(out)[:-1]


def prepare(raw_text: str) -> str:
    """``raw_text`` as TeX reads it: line ends as ``\\n``, raw bodies (verbatim, listings), comments and
    ``\\iffalse`` blocks out, their lines still counted; ``\\verb`` and URLs escaped as the text they print."""
    text = raw_text.replace("\r\n", "\n").replace("\r", "\n").replace(GONE, "").replace(BREAK, "")
    text = text.replace(PAR, "").replace(DROPPED, "")
    # Raw bodies out first: a listing's "%" or "{" is no comment or group. Its lines stay counted.
    text = _RAW.sub(lambda m: "\n" * m.group(0).count("\n") if "\n" in m.group(0) else " ", text)
    text = _VERB.sub(lambda m: m.group(2).translate(_VERB_ESCAPES), text)
    text = _URL.sub(lambda m: f"\\{m.group(1)}{{{m.group(2).translate(_VERB_ESCAPES)}}}", text)
    text = strip_comments(text)
    # A block set aside is no text, but its lines stay counted (as GONE: they end no paragraph).
    return _IFFALSE.sub(lambda m: GONE * (m.group(0).count("\n") + m.group(0).count(GONE)), text)


MAX_INPUT_DEPTH = 8
_UP = 3  # the folders above the main file's an input is looked up in, after its own
# All included files' text together (more is a file included many times over, by files included many times).
_MAX_INCLUDED = 4 * MAX_TEXT
_INPUT = re.compile(r"\\(input|include)(?![A-Za-z@])[ \t]*(?:\{([^{}]*)\}|([^\s{}\\%]+))")
_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")


def _lines(text: str) -> int:
    """The source lines ``text`` runs over, less one: its line ends, those comments took away too."""
    return text.count("\n") + text.count(GONE)


class Source:
    """A source's text with the files it inputs read in their place, and the file and line of each of its lines."""

    def __init__(self, raw_text: str, path: Path | None, warnings: list[str]) -> None:
        self.path, self.warnings, self.included = path, warnings, 0
        self.not_followed: list[str] = []  # with no path to look them up from
        # From each (0-based) line of the text on: its file (None: the main one) and that file's line there.
        self.starts: list[int] = []
        self.origins: list[tuple[str | None, int]] = []
        text, segments = self.splice(prepare(raw_text), path, None, [path] if path else [])
        for start, name, line in segments:
            self.starts.append(start)
            self.origins.append((name, line))
        self.text = text
        if self.not_followed:
            names = ", ".join(self.not_followed[:3]) + (", ..." if len(self.not_followed) > 3 else "")
            warnings.append(
                f"{len(self.not_followed)} \\input/\\include not followed ({names}): no folder to find them in"
            )

    def where(self, line: int) -> str:
        """The text's (1-based) ``line`` as the writer finds it: "line 3", or "line 3 of sections/intro.tex"."""
        k = bisect.bisect_right(self.starts, line - 1) - 1
        name, first = self.origins[k] if k >= 0 else (None, 1)
        at = first + line - 1 - (self.starts[k] if k >= 0 else 0)
        return f"line {at}" if name is None else f"line {at} of {name}"

    def splice(
        self, text: str, file: Path | None, name: str | None, stack: list[Path]
    ) -> tuple[str, list[tuple[int, str | None, int]]]:
        """``text`` (of ``file``, shown as ``name``) with its inputs read in, and its segments: from which line of
        the result on the lines are which file's, from which line of it."""
        out: list[str] = []
        segments: list[tuple[int, str | None, int]] = [(0, name, 1)]
        pos = line = 0
        own = 0  # the lines of ``text`` up to ``pos``: counted as it goes, not again from its start at each input
        for m in _INPUT.finditer(text):
            before = text[pos : m.start()]
            out.append(before)
            line += _lines(before)
            own += _lines(before) + _lines(m.group(0))
            pos = m.end()
            arg = (m.group(2) if m.group(2) is not None else m.group(3)).strip()
            inner = self.follow(m.group(1), arg, file, name, stack) if arg and "#" not in arg else None
            if inner is None:  # not followed: no text, its lines counted
                out.append(GONE * _lines(m.group(0)))
                line += _lines(m.group(0))
                continue
            part, parts = inner
            segments += [(line + start, n, first) for start, n, first in parts]
            # \include starts a page: its text is paragraphs of its own.
            out.append(f"\\par {part}\\par " if m.group(1) == "include" else part)
            line += _lines(part)
            segments.append((line, name, 1 + own))
        out.append(text[pos:])
        return "".join(out), segments

    def follow(
        self, command: str, arg: str, file: Path | None, name: str | None, stack: list[Path]
    ) -> tuple[str, list[tuple[int, str | None, int]]] | None:
        """The text the ``\\input``/``\\include`` of ``arg`` in ``file`` reads in, and its segments; None (warned
        if it should have been read) when it is not followed."""
        if self.path is None or file is None:
            self.not_followed.append(arg)
            return None
        wanted = arg if arg.endswith(".tex") else arg + ".tex"
        # A file input by a main file in a folder above, read on its own, finds its own inputs from there.
        folders = list(dict.fromkeys((self.path.parent, file.parent, *self.path.parent.parents[:_UP])))
        found = next((f / wanted for f in folders if (f / wanted).is_file()), None)
        if found is None and Path(arg).suffix not in ("", ".tex"):
            return None  # \input{plot.pgf}: a picture's code, no text of the paper's
        target = found or folders[0] / wanted
        shown = _shown(target, self.path.parent)
        why = self.refusal(target, found, stack)
        text = None
        if why is None:
            text, why = _read(target)
        if why is None and text is not None:
            self.included += len(text)
            if self.included > _MAX_INCLUDED:
                why = "is past the most included text read (a file included many times over)"
        if why is not None or text is None:
            self.warnings.append(
                f"\\{command}{{{arg}}} in {name or self.path.name} not followed: {shown} {why}; the rest is read"
            )
            return None
        return self.splice(_body(text), target, shown, [*stack, target.resolve()])

    def refusal(self, target: Path, found: Path | None, stack: list[Path]) -> str | None:
        """Why ``target`` is not read before opening it, None when it may be."""
        if found is None:
            return "does not exist"
        if target.resolve() in stack:
            return "is being read already (it inputs itself, through the files it inputs)"
        if len(stack) > MAX_INPUT_DEPTH:
            return f"is input more than {MAX_INPUT_DEPTH} files deep"
        return None


def _shown(path: Path, folder: Path) -> str:
    """``path`` as its writer names it: from the main file's folder when it is inside it."""
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)


def _read(path: Path) -> tuple[str | None, str | None]:
    """An included file's text, prepared, or why it cannot be read (its braces must balance on their own:
    an error in it is its own, not the main file's)."""
    try:
        text = prepare(decode_bytes(path.read_bytes())[0])
        braces(text)
    except PermissionError:
        return None, "cannot be read: permission denied"
    except OSError as e:
        return None, f"cannot be read: {e.strerror or e}"
    except ValueError as e:
        return None, f"cannot be read: {e}"
    return text, None


def _body(text: str) -> str:
    """An included text's document body when it is a document of its own (its preamble's lines still counted)."""
    begin = _DOCUMENT.search(text)
    if begin is None:
        return text
    stop = _END_DOCUMENT.search(text, begin.end())
    return GONE * _lines(text[: begin.end()]) + text[begin.end() : stop.start() if stop else len(text)]
