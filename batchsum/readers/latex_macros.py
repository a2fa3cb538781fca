"""The macros a LaTeX source defines (``\\newcommand``, ``\\def``) and their expansion, with the markers and the
brace and line bookkeeping the document reader (:mod:`batchsum.readers.latex`) shares."""

from __future__ import annotations

import re
from typing import cast

# A comment the stripper took away together with its line's end: no text, but a line of the source, so
# an error names the line the writer sees.
GONE = "\ue000"
# A line break the output keeps inside a block (a list item's start), and a paragraph's end: the source's
# own line ends are spaces, as TeX reads them, so text around a dropped display still runs on.
BREAK = "\x02"
PAR = "\x03"
# Where a command's text was left out (a citation, a reference): brackets it alone stood in go with it.
DROPPED = "\x04"

LINE_END = re.compile(r"\n(?:[ \t]*\n)*")  # a blank line (or more) ends a paragraph
DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
    r"\s*(?:\[(\d)\])?\s*(?:\[([^\]]*)\])?\s*\{"
    r"|\\[gex]?def\s*\\([A-Za-z@]+)\s*((?:#\d)*)\s*\{"
)
# Macro expansions inside expansions, and the characters all expansions add (that many, or eight times the
# file's): more is a macro that expands to itself, or doubles. The number of uses is no limit: a paper may
# use its \ours ten thousand times.
MAX_DEPTH = 20
MAX_TEXT = 1 << 22
# A macro's call where an argument-less macro is replaced by its body before the conversion; a
# definition's head (its name stays); inline math (kept as written).
_TOKEN = re.compile(
    rf"(?P<head>{DEFINITION.pattern})|\$\$(?:\\.|[^$\\]|\$(?!\$))*\$\$|\$(?:\\.|[^$\\])*\$|\\\(.*?\\\)"
    r"|\\(?P<name>[A-Za-z@]+)\*?(?P<space>[ \t]*(?:\n(?![ \t]*\n)[ \t]*)?)|\\.",
    re.S,
)


class Macro:
    """A macro the file defines: its parameter count, its optional first argument's default, its body."""

    __slots__ = ("body", "default", "params")

    def __init__(self, params: int, default: str | None, body: str) -> None:
        self.params, self.default, self.body = params, default, body


def braces(text: str) -> dict[int, int]:
    """Each ``{``'s position to its ``}``'s; ValueError naming the line of one left open or closing none."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    i = 0
    for m in re.finditer(r"\\.|[{}]", text, re.S):
        i = m.start()
        if m.group(0) == "{":
            opened.append(i)
        elif m.group(0) == "}":
            if not opened:
                raise ValueError(f"unbalanced braces: the }} on line {line_of(text, i)} closes no {{")
            pairs[opened.pop()] = i
    if opened:
        raise ValueError(f"unbalanced braces: the {{ on line {line_of(text, opened[-1])} is never closed")
    return pairs


def line_of(text: str, pos: int) -> int:
    """The source line of ``pos`` (comments taken away with their line's end still count)."""
    return text.count("\n", 0, pos) + text.count(GONE, 0, pos) + 1


def call_error(call: tuple[str, int, str], what: str) -> ValueError:
    """An error in a macro's expansion, naming the line of its ``call`` (the text, the position, the name)."""
    text, at, name = call
    return ValueError(f"line {line_of(text, at)}, in \\{name}: {what}")


def collect_macros(text: str, known: frozenset[str]) -> dict[str, Macro]:
    """The macros ``text`` defines (``\\newcommand``, ``\\renewcommand``, ``\\def``), but not ``known`` commands
    (their redefinition is layout); ``text``'s braces are balanced."""
    pairs = braces(text)
    macros = {}
    for m in DEFINITION.finditer(text):
        body = text[m.end() : pairs[m.end() - 1]]
        name = m.group(5) or m.group(1) or m.group(2)
        # A class's or package's redefinition of a command read here (\renewcommand{\section}...) is layout.
        if name in known:
            continue
        if m.group(5) is not None:  # \def\name#1#2{...}
            macros[name] = Macro(m.group(6).count("#"), None, body)
        else:
            macros[name] = Macro(int(m.group(3) or 0), m.group(4), body)
    return macros


class Expander:
    """The macros a file defines and their expansion: the characters expansions added, counted against a bound."""

    def __init__(self, macros: dict[str, Macro], size: int) -> None:
        self.macros, self.most = macros, max(MAX_TEXT, 8 * size)
        self.grown = 0  # the characters macros' expansions added
        self.plain: dict[str, str] = {}  # an argument-less macro's body, its own macros replaced
        self.plain_names = {n for n, m in macros.items() if not m.params and m.default is None}

    def grow(self, name: str, by: int) -> None:
        """Count ``by`` characters an expansion of ``name`` adds; ValueError past the most expansions may add."""
        self.grown += by
        if self.grown > self.most:
            raise ValueError(f"\\{name} expands without end (a macro that doubles)")

    def body(self, name: str, depth: int) -> str:
        """The argument-less macro ``name``'s body as the text it stands for: its own macros replaced, its line
        ends spaces (a blank line ``\\par``: the body's lines are no lines of the file)."""
        if name not in self.plain:
            if depth >= MAX_DEPTH:
                raise ValueError(f"\\{name} expands without end (a macro defined by itself)")
            body = LINE_END.sub(lambda m: " \\par " if m.group(0).count("\n") > 1 else " ", self.macros[name].body)
            self.plain[name] = self.replace(body.replace(GONE, ""), depth + 1)
        return self.plain[name]

    def replace(self, text: str, depth: int) -> str:
        """``text`` with each call of an argument-less macro replaced by its body, as TeX reads it: so a body that
        opens an environment (``\\newcommand{\\be}{\\begin{equation}}``) is closed by the text after its call.
        Definitions' bodies stay (a macro's own is replaced when it is called); inline math is kept as written.
        ValueError (``args``: its message, the position and the name of the call) on a macro without end."""
        out: list[str] = []
        pos, pairs = 0, cast("dict[int, int] | None", None)
        while self.plain_names and (m := _TOKEN.search(text, pos)) is not None:
            name, stop = m.group("name"), m.end()
            if m.group("head") is not None:
                pairs = pairs or braces(text)
                stop = pairs[stop - 1] + 1
            if name not in self.plain_names:
                out.append(text[pos:stop])
                pos = stop
                continue
            try:
                body = self.body(name, depth)
                self.grow(name, len(body))
            except ValueError as e:  # the outermost call is the one the file's writer sees
                raise ValueError(e.args[0], m.start(), name) from None
            space = m.group("space")
            if body.endswith("\\xspace"):  # the xspace package: the space after the call is kept
                body = body[: -len("\\xspace")]
            else:  # the spaces TeX skips after a command's name: a line's end still a line of the file
                space = GONE * space.count("\n")
            if re.search(r"\\[A-Za-z@]+$", body) and re.match(r"[A-Za-z@]", text[stop : stop + 1]):
                body += "{}"  # a command's name at the body's end does not run on into the next word
            out.append(text[pos : m.start()] + body + space)
            pos = stop
        out.append(text[pos:])
        return "".join(out)
