"""LaTeX sources (``.tex``) read as the text a reader of the typeset paper sees, offline, with no TeX installed.

Only ``\\begin{document}`` .. ``\\end{document}`` is text (the preamble is no text; a file without it is a
fragment, read whole). The title and the abstract open the text; ``\\section`` and its kin are Markdown
headings, so the summarizer's section roles apply ("References" skipped, "Conclusion" a closing section);
``\\emph{x}`` and the other text styles read as ``x``; ``\\ref``, ``\\eqref``, ``\\cref``, ``\\autoref`` as the
numbers LaTeX prints (:mod:`batchsum.readers.latex_refs`); citations, labels and footnotes (a footnote's text is
apparatus) are left out, and so are comments. Inline math stays as written in TeX;
display math, floats, tables, listings and the bibliography are no prose: a figure's or a table's
``\\caption`` is kept as a caption line ("Figure 1: ..."), which the summarizer reads as apparatus.
Macros the file defines without arguments or with ``#1``.. parameters (``\\newcommand``, ``\\def``) are
expanded (a macro's ``\\begin`` is ended by the text after its call; :mod:`batchsum.readers.latex_macros`); the files
``\\input`` and ``\\include`` name are read in their place (:mod:`batchsum.readers.latex_source`).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from batchsum.readers.latex_macros import (
    BREAK,
    DEFINITION,
    DROPPED,
    GONE,
    LINE_END,
    MAX_DEPTH,
    PAR,
    Expander,
    Macro,
    braces,
    call_error,
    collect_macros,
    line_of,
)
from batchsum.readers.latex_refs import REFERENCES, Labels, number_labels, reference
from batchsum.readers.latex_source import Source

__all__ = ["render_latex"]

# Display math and other material set apart from the prose: no text of the paragraph it stands in.
_MATH_ENVS = frozenset(
    "equation align gather multline eqnarray displaymath flalign alignat math dmath subequations split".split()
)
_NO_PROSE_ENVS = frozenset(
    (
        "tabular tabularx tabulary longtable supertabular xtabular tabu array algorithm algorithmic algorithm2e "
        "tikzpicture pgfpicture picture thebibliography titlepage tablenotes"
    ).split()
)
_FLOATS = {"figure": "Figure", "wrapfigure": "Figure", "SCfigure": "Figure", "table": "Table", "wraptable": "Table"}
_LISTS = frozenset({"itemize", "enumerate", "description"})
# Mandatory arguments an environment takes after its name (\begin{minipage}{0.5\textwidth}): layout, no text.
_ENV_ARGS = {"minipage": 1, "multicols": 1, "subfigure": 1, "subtable": 1, "list": 2, "adjustbox": 1, "wrapfigure": 2}

_HEADINGS = {"part": 2, "chapter": 2, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 5}
_HEADINGS |= {"subparagraph": 5}
# Commands read for one of their arguments (the index given, None: none) after ``n`` mandatory ones.
_ARGS: dict[str, tuple[int, int | None]] = {
    **dict.fromkeys(
        (
            "emph textbf textit textsc texttt textrm textsf textup textmd textnormal textsl underline mbox "
            "text hbox fbox framebox makebox uline uppercase MakeUppercase lowercase MakeLowercase textsuperscript "
            "textsubscript url nolinkurl path hyperref enquote mathrm ensuremath"
        ).split(),
        (1, 0),
    ),
    **dict.fromkeys("href textcolor colorbox scalebox raisebox foreignlanguage".split(), (2, 1)),
    "texorpdfstring": (2, 0),
    **dict.fromkeys("resizebox fcolorbox".split(), (3, 2)),
    **dict.fromkeys(
        (
            "cite citep citet citealp citealt citeauthor citeyear citenum parencite textcite autocite footcite "
            "nocite pageref nameref label footnote footnotetext footnotemark "
            "thanks caption captionof subcaption includegraphics input include includeonly bibliography "
            "bibliographystyle addbibresource usepackage RequirePackage documentclass title author date "
            "affiliation affil address email institute keywords vspace hspace vskip hskip color pagestyle "
            "thispagestyle pagenumbering todo marginpar marginnote phantom hphantom vphantom "
            "linespread fontsize graphicspath hypersetup newtheorem theoremstyle tableofcontents ccsdesc "
            "newcounter stepcounter refstepcounter newlength captionsetup urlstyle lstset tikzset pgfplotsset "
            "setlist enlargethispage orcid"
        ).split(),
        (1, None),
    ),
    **dict.fromkeys(
        (
            "setlength addtolength setcounter addtocounter newenvironment renewenvironment addtocontents "
            "colorlet rule settowidth settoheight newcolumntype DeclareMathOperator"
        ).split(),
        (2, None),
    ),
    **dict.fromkeys("addcontentsline definecolor crefname Crefname newacronym".split(), (3, None)),
}
_ARGS.update({"newenvironment": (3, None), "renewenvironment": (3, None), "tableofcontents": (0, None)})
_SYMBOLS = dict(
    pair.split("=", 1)
    for pair in (
        "ldots=… dots=… textellipsis=… LaTeX=LaTeX LaTeXe=LaTeX2e TeX=TeX BibTeX=BibTeX textendash=– "
        "textemdash=— textquoteleft=‘ textquoteright=’ textquotedblleft=“ textquotedblright=” "
        "textbackslash=\\ textasciitilde=~ textasciicircum=^ textunderscore=_ textbar=| textless=< "
        "textgreater=> textbullet=• textdegree=° copyright=© textregistered=® texttrademark=™ pounds=£ "
        "euro=€ dag=† ddag=‡ S=§ P=¶ ss=ß o=ø O=Ø ae=æ AE=Æ oe=œ OE=Œ aa=å AA=Å l=ł L=Ł i=ı j=ȷ"
    ).split()
)
_SYMBOLS |= dict.fromkeys("quad qquad enspace space newline linebreak".split(), " ") | dict.fromkeys(
    "par bigskip medskip smallskip".split(), PAR
)
# Accents over the next letter (``\'e``, ``\"{o}``, ``\c{c}``): its combining mark.
_ACCENTS = dict(
    zip("'`^\"~=.cvuHkr", "\u0301\u0300\u0302\u0308\u0303\u0304\u0307\u0327\u030c\u0306\u030b\u0328\u030a", strict=True)
)
# An accent over nothing (``\~{}``, ``\^{}``): its spacing character.
_SPACING = dict(zip(_ACCENTS, "´`^¨~¯˙¸ˇ˘˝˛˚", strict=True))
_ESCAPED = {"%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", "\\": " ", ",": " "}
_ESCAPED.update({";": " ", ":": " ", ">": " ", "!": "", "/": "", "-": "", "@": ""})

_SPACE = " \t\n" + GONE
_LIGATURE = re.compile(r"---|--|``|''|`")
_LIGATURES = {"---": "—", "--": "–", "``": "“", "''": "”", "`": "‘"}
_NAME = re.compile(r"[A-Za-z@]+\*?")
# The spaces TeX skips after a control word: on its line and a line's end, never a blank line (a paragraph).
_AFTER_WORD = re.compile(r"[ \t]*(?:\n(?![ \t]*\n)[ \t]*)?")
_PLAIN = re.compile(r"[^\\{}$~`'\-&#^\n\ue000]+")
_DEFINE = frozenset({"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand"})
_TITLE = re.compile(r"\\title\s*(?:\[[^\]]*\])?\s*\{")
_ABSTRACT = re.compile(r"\\abstract\s*\{")
_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")
_KNOWN = frozenset(
    {*_HEADINGS, *_ARGS, *REFERENCES, *_SYMBOLS, *_ACCENTS, *_DEFINE, "begin", "end", "item", "abstract", "def"}
)
# siunitx (\SI{5}{\milli\second} reads "5 ms"): its commands' argument counts, its units and prefixes.
_SIUNITX = {"SI": 2, "qty": 2, "si": 1, "unit": 1, "num": 1}
_PREFIXES = dict(u.split("=") for u in "kilo=k mega=M giga=G tera=T milli=m micro=µ nano=n pico=p centi=c".split())
_UNITS = _PREFIXES | dict(
    u.split("=")
    for u in (
        "second=s metre=m meter=m gram=g hertz=Hz byte=B bit=bit watt=W volt=V ampere=A kelvin=K joule=J newton=N "
        "pascal=Pa ohm=Ω mole=mol litre=L liter=L hour=h minute=min day=d percent=% celsius=°C degree=° per=/ "
        "squared=² cubed=³"
    ).split()
)


def _find_unescaped(text: str, target: str, start: int, end: int) -> int:
    """The first ``target`` in ``text[start:end]`` not escaped by a backslash; -1 when there is none."""
    i = text.find(target, start, end)
    while i >= 0:
        j = i
        while j > start and text[j - 1] == "\\":
            j -= 1
        if (i - j) % 2 == 0:
            return i
        i = text.find(target, i + 1, end)
    return -1


def _tidy_line(line: str) -> str:
    """One output line: spaces collapsed, none before a closing mark, none left by a dropped citation."""
    line = " ".join(line.replace(PAR, " ").replace(BREAK, " ").split())
    # "(see \cite{x})" reads "(see)", "(\cite{x})" nothing; a bracket of the text ("close()") stays.
    line = re.sub(rf"\((?:[\s,;]*{DROPPED})+[\s,;]*\)|\[(?:\s*{DROPPED})+\s*\]", "", line).replace(DROPPED, "")
    line = re.sub(r"\s+([,.;:!?)\]”’])", r"\1", line)
    line = re.sub(r",(?:\s*,)+", ",", line)  # "Tables~\ref{a}, \ref{b}, \ref{c}" left "Tables,,"
    line = re.sub(r"([(\[“‘])\s+", r"\1", line)
    return " ".join(line.split())


def _tidy(text: str) -> str:
    """The converted text as Markdown: paragraphs a line each, list items a line each, blank lines between."""
    blocks = []
    for block in text.split(PAR):
        lines = [t for ln in block.split(BREAK) if (t := _tidy_line(ln))]
        if lines:
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


class _Scan:
    """The conversion of one TeX text (the file, or a macro's expansion) into prose and Markdown."""

    def __init__(self, doc: _Doc, text: str, depth: int = 0, where: tuple[str, int, str] | None = None) -> None:
        self.doc, self.text, self.depth = doc, text, depth
        # A macro's expansion: the file's text, the position and the name of its call (an error names that
        # line, not the body's; counted only then: counting for every call made many calls quadratic).
        self.where = where
        self.close = braces(text)
        self.lists: list[list[int]] = []  # the open lists' item counts (an itemize's is [-1]: no numbers)

    def fail(self, pos: int, what: str) -> ValueError:
        """An error naming the line of ``pos``."""
        return (
            ValueError(f"line {line_of(self.text, pos)}: {what}")
            if self.where is None
            else call_error(self.where, what)
        )

    def group(self, i: int, end: int) -> tuple[int, int, int] | None:
        """The span inside the ``{...}`` at ``i`` (spaces before it skipped), or a lone character's or
        command's, and the position after it; None at the end."""
        while i < end and self.text[i] in _SPACE:
            i += 1
        if i >= end:
            return None
        if self.text[i] == "{":
            return i + 1, self.close[i], self.close[i] + 1
        if self.text[i] == "\\":
            m = _NAME.match(self.text, i + 1)
            stop = m.end() if m else min(i + 2, end)
            return i, stop, stop
        return i, i + 1, i + 1

    def optional(self, i: int, end: int) -> tuple[int, tuple[int, int] | None]:
        """After an optional ``[...]`` argument at ``i`` (spaces before it skipped), and its span."""
        j = i
        while j < end and self.text[j] in _SPACE:
            j += 1
        if j >= end or self.text[j] != "[":
            return i, None
        k = j + 1
        while k < end:  # as TeX reads it: up to the first "]" outside braces
            c = self.text[k]
            if c == "]":
                return k + 1, (j + 1, k)
            k = self.close[k] + 1 if c == "{" else k + (2 if c == "\\" else 1)
        return i, None  # no "]": a bracket of the text

    def args(self, i: int, end: int, n: int) -> tuple[int, list[tuple[int, int]]]:
        """``n`` mandatory arguments after ``i``, the optional ones before each skipped (``\\citep[see][p. 4]``):
        the position after them and their spans."""
        spans = []
        for _ in range(n):
            opt: tuple[int, int] | None = (i, i)
            while opt is not None:
                i, opt = self.optional(i, end)
            arg = self.group(i, end)
            if arg is None:
                break
            spans.append(arg[:2])
            i = arg[2]
        return i, spans

    def run(self, start: int, end: int) -> str:
        """``text[start:end]`` converted."""
        out: list[str] = []
        i, text = start, self.text
        while i < end:
            c = text[i]
            if c == "\\":
                i = self.command(i, end, out)
            elif c == "{":
                out.append(self.run(i + 1, self.close[i]))
                i = self.close[i] + 1
            elif c == "$":
                i = self.math(i, end, out)
            elif c == "\n":
                stop = LINE_END.match(text, i, end).end()  # type: ignore[union-attr]  # a "\n" is there
                out.append(PAR if stop - i > 1 and "\n" in text[i + 1 : stop] else " ")
                i = stop
            elif c in "~&#^" + GONE:
                # "~" a space the line is not broken at, "&" an alignment tab (a column's end), "#" and "^"
                # a parameter's and a superscript's marks: no character of the text.
                out.append(" " if c in "~&" else "")
                i += 1
            else:
                m = (_LIGATURE if c in "`'-" else _PLAIN).match(text, i, end)
                piece = m.group(0) if m else c
                out.append(_LIGATURES.get(piece, piece))
                i += len(piece)
        return "".join(out)

    def math(self, i: int, end: int, out: list[str]) -> int:
        """Inline ``$...$`` kept as written; display ``$$...$$`` left out of the prose."""
        display = self.text.startswith("$$", i)
        close = _find_unescaped(self.text, "$$" if display else "$", i + (2 if display else 1), end)
        if close < 0:
            raise self.fail(i, f"a {'$$' if display else '$'} opens math that is never closed")
        if display:
            out.append(" ")
            return close + 2
        out.append(" ".join(self.text[i : close + 1].replace(GONE, "").split()))
        return close + 1

    def command(self, i: int, end: int, out: list[str]) -> int:
        """Convert the command at ``i`` into ``out``; the position after it."""
        text = self.text
        m = _NAME.match(text, i + 1, end)
        if m is None:
            return self.symbol(i, end, out)
        name, after = m.group(0), m.end()
        base = name.rstrip("*")
        if base in _DEFINE or base in ("def", "gdef", "edef", "xdef"):
            return self.skip_definition(i, end)
        spaced = _AFTER_WORD.match(text, after, end).end()  # type: ignore[union-attr]  # matches empty
        if base in self.doc.macros:
            # \xspace (xspace package) at a macro's end puts back the space TeX skips after its name.
            xspace = self.doc.macros[base].body.rstrip().endswith("\\xspace")
            return self.expand(i, base, after if xspace else spaced, end, out)
        after = spaced
        if base == "begin":
            return self.environment(i, after, end, out)
        if base == "end":
            env = self.group(after, end)
            raise self.fail(i, f"\\end{{{text[env[0] : env[1]] if env else ''}}} ends no \\begin")
        if base in _HEADINGS:
            after, spans = self.args(after, end, 1)
            title = _tidy_line(self.run(*spans[0])) if spans else ""
            out.append(f"{PAR}{'#' * _HEADINGS[base]} {title}{PAR}" if title else PAR)
            return after
        if base == "item":
            return self.item(after, end, out)
        if base == "abstract" and text[after : after + 1] == "{":
            out.append(f"{PAR}## Abstract{PAR}{self.run(after + 1, self.close[after])}{PAR}")
            return self.close[after] + 1
        if base in REFERENCES:
            after, spans = self.args(after, end, 1)
            keys = self.text[spans[0][0] : spans[0][1]] if spans else ""
            out.append(reference(base, keys, self.doc.labels) or DROPPED)
            return after
        if base in _ARGS:
            n, kept = _ARGS[base]
            after, spans = self.args(after, end, n)
            out.append(self.run(*spans[kept]) if kept is not None and kept < len(spans) else DROPPED)
            return after
        if base in _SIUNITX:
            after, spans = self.args(after, end, _SIUNITX[base])
            out.append(_quantity(base, [self.text[a:b] for a, b in spans]))
            return after
        if base in _SYMBOLS:
            out.append(_SYMBOLS[base])
            return after
        if base in _ACCENTS:
            return self.accent(base, after, end, out)
        # Another command (a declaration, \centering, \small, a package's): no text of its own; its braced
        # arguments, if any, are read as the groups they are.
        return self.optional(after, end)[0] if text.startswith("[", after) else after

    def symbol(self, i: int, end: int, out: list[str]) -> int:
        """A control symbol at ``i``: an escaped character, a space, an accent, or math's ``\\[`` / ``\\(``."""
        c = self.text[i + 1 : i + 2]
        if c in ("[", "("):
            closing = "\\]" if c == "[" else "\\)"
            close = _find_unescaped(self.text, closing, i + 2, end)
            if close < 0:
                raise self.fail(i, f"\\{c} opens math that {closing} never closes")
            out.append(" " if c == "[" else " ".join(self.text[i : close + 2].replace(GONE, "").split()))
            return close + 2
        if c in _ACCENTS:
            return self.accent(c, i + 2, end, out)
        if c == "\\":  # a line break, its optional spacing after it ("\\[2pt]") no display math
            out.append(" ")
            return self.optional(i + 2 + self.text.startswith("*", i + 2), end)[0]
        out.append(_ESCAPED.get(c, ""))
        return i + 2

    def accent(self, mark: str, i: int, end: int, out: list[str]) -> int:
        """``\\'e``, ``\\"{o}``: the letter with its accent's combining mark."""
        span = self.group(i, end)
        if span is None:
            return i
        letter = self.run(*span[:2]).replace("ı", "i").replace("ȷ", "j")  # \"{\i}: an accent on a dotless i
        if not letter.strip():
            out.append(_SPACING[mark] + letter)
            return span[2]
        out.append(unicodedata.normalize("NFC", letter[:1] + _ACCENTS[mark] + letter[1:]))
        return span[2]

    def item(self, i: int, end: int, out: list[str]) -> int:
        """A list's item: a line of its own, numbered in an enumerate, its ``[label]`` bold."""
        after, label = self.optional(i, end)
        counts = self.lists[-1] if self.lists else [-1]
        if label is not None:
            mark = f"- **{_tidy_line(self.run(*label))}** "
        elif counts[0] >= 0:
            counts[0] += 1
            mark = f"{counts[0]}. "
        else:
            mark = "- "
        out.append(BREAK + mark)
        return after

    def skip_definition(self, i: int, end: int) -> int:
        """After a ``\\newcommand`` or ``\\def`` at ``i`` (collected before the conversion: no text)."""
        m = DEFINITION.match(self.text, i)
        if m is None or m.end() - 1 >= end:
            return _NAME.match(self.text, i + 1).end()  # type: ignore[union-attr]  # a command's name
        return self.close[m.end() - 1] + 1

    def expand(self, at: int, name: str, i: int, end: int, out: list[str]) -> int:
        """The macro ``name`` the file defines, called at ``at``, its arguments after ``i``: its body, ``#1``..
        its arguments, converted."""
        macro = self.doc.macros[name]
        if self.depth >= MAX_DEPTH:
            raise self.fail(at, f"\\{name} expands without end (a macro defined by itself)")
        args: list[str] = []
        if macro.default is not None:
            i, opt = self.optional(i, end)
            args.append(self.text[opt[0] : opt[1]] if opt else macro.default)
        while len(args) < macro.params:
            span = self.group(i, end)
            if span is None:
                break
            args.append(self.text[span[0] : span[1]])
            i = span[2]
        body = re.sub(r"#(\d)", lambda m: args[int(m.group(1)) - 1] if int(m.group(1)) <= len(args) else "", macro.body)
        where = self.where or (self.text, at, name)
        try:
            self.doc.grow(name, len(body))
            body = self.doc.replace(body, self.depth + 1)
        except ValueError as e:
            raise call_error(where, e.args[0]) from None
        inner = _Scan(self.doc, body, self.depth + 1, where)
        inner.lists = self.lists
        out.append(inner.run(0, len(body)))
        return i

    def env_end(self, name: str, i: int, end: int) -> tuple[int, int]:
        """The ``\\end{name}`` closing the environment whose body starts at ``i``: its start and its end."""
        depth = 1
        pattern = re.compile(r"\\(begin|end)\s*\{" + re.escape(name) + r"\}")
        for m in pattern.finditer(self.text, i, end):
            depth += 1 if m.group(1) == "begin" else -1
            if depth == 0:
                return m.start(), m.end()
        raise self.fail(i, f"\\begin{{{name}}} is never ended")

    def environment(self, i: int, after: int, end: int, out: list[str]) -> int:
        """Convert the environment whose ``\\begin`` is at ``i`` into ``out``; the position after it."""
        span = self.group(after, end)
        if span is None or self.text[span[0] - 1] != "{":
            raise self.fail(i, "\\begin without an environment's name")
        name = self.text[span[0] : span[1]].strip()
        body, stop = self.env_end(name, span[2], end)
        start, base = span[2], name.rstrip("*")
        start, _ = self.args(start, body, _ENV_ARGS.get(base, 0))
        start = self.optional(start, body)[0]
        if base in _MATH_ENVS:
            out.append(" ")
        elif base in _NO_PROSE_ENVS:
            out.append(PAR)
        elif base in _FLOATS:
            out.extend(self.captions(_FLOATS[base], start, body))
        elif base == "abstract":
            out.append(f"{PAR}## Abstract{PAR}{self.run(start, body)}{PAR}")
        elif base in _LISTS:
            self.lists.append([0 if base == "enumerate" else -1])
            out.append(f"{PAR}{self.run(start, body)}{PAR}")
            self.lists.pop()
        else:
            out.append(self.run(start, body))
        return stop

    def captions(self, kind: str, start: int, end: int) -> list[str]:
        """A float's captions as caption lines ("Figure 2: ..."), numbered as LaTeX numbers them; a
        subfigure's own caption is part of its figure's, not counted."""
        lines = []
        nested = [
            (m.start(), self.env_end(m.group(1), m.end(), end)[1]) for m in _SUBFLOAT.finditer(self.text, start, end)
        ]
        for m in _CAPTION.finditer(self.text, start, end):
            if any(a <= m.start() < b for a, b in nested):
                continue
            _, spans = self.args(m.end(), end, 1)
            if spans:
                self.doc.counters[kind] += 1
                # Numbered ahead, as a \ref to it reads (by chapter in a book); else counted here.
                number = self.doc.labels.captions.get(m.start()) if self.where is None else None
                words = _tidy_line(self.run(*spans[0]))
                lines.append(f"{PAR}{kind} {number or self.doc.counters[kind]}: {words}{PAR}")
        return lines or [PAR]


_CAPTION = re.compile(r"\\caption(?![A-Za-z@])")
_SUBFLOAT = re.compile(r"\\begin\s*\{(sub(?:figure|table|float)\*?)\}")


def _quantity(command: str, args: list[str]) -> str:
    """siunitx's ``\\SI{5}{\\milli\\second}`` as it is printed, "5 ms"; a unit not known here leaves the number."""
    number = args[0].strip() if args and command in ("SI", "qty", "num") else ""
    unit, last = [], ""
    for m in re.finditer(r"\\([A-Za-z]+)|[^\\\s{}~]+", args[-1] if args and command != "num" else ""):
        word = _UNITS.get(m.group(1)) if m.group(1) else m.group(0)
        if word is None:
            return number
        kind = m.group(1) if m.group(1) in ("per", "squared", "cubed") or m.group(1) in _PREFIXES else "unit"
        if kind in ("unit", *_PREFIXES) and last in ("unit", "squared", "cubed"):
            unit.append(" ")  # kg m: units apart; a prefix joins its unit, "/" and "²" their neighbours
        unit.append(word)
        last = kind
    return " ".join(filter(None, (number, "".join(unit))))


_LINE_NAMED = re.compile(r"\bline (\d+)")


class _Doc(Expander):
    """What one file's conversion shares: its macros, its labels' numbers, its float counters."""

    def __init__(self, macros: dict[str, Macro], size: int) -> None:
        super().__init__(macros, size)
        self.counters = {"Figure": 0, "Table": 0}  # captions not counted ahead (in a macro's expansion)
        self.labels = Labels()


def _convert(doc: _Doc, text: str) -> tuple[str, str]:
    """The title and the abstract read from anywhere in ``text``, and the document's body, converted."""
    text = doc.replace(text, 0)
    doc.labels = number_labels(text)
    scan = _Scan(doc, text)
    begin, stop = _DOCUMENT.search(text), _END_DOCUMENT.search(text)
    start = begin.end() if begin else 0
    end = stop.start() if stop and stop.start() >= start else len(text)
    head = ""
    if (title := _TITLE.search(text)) is not None:
        head = "# " + _tidy_line(scan.run(title.end(), scan.close[title.end() - 1])) + PAR
    if (abstract := _ABSTRACT.search(text, 0, start)) is not None:  # a class's \abstract{...} in the preamble
        head += f"## Abstract{PAR}{scan.run(abstract.end(), scan.close[abstract.end() - 1])}{PAR}"
    return head, scan.run(start, end)


def render_latex(raw_text: str, warnings: list[str] | None = None, path: Path | None = None) -> str:
    """A LaTeX source as Markdown a reader's eyes would take in: the title as a ``#`` heading, the abstract
    and the sections as ``##`` headings, the body's prose (see the module's docstring). The files it
    ``\\input``s or ``\\include``s are read in their place, looked up from ``path``'s folder (none: not
    followed); one left out is said in ``warnings``. Raises ValueError naming the line (and the file) of
    unbalanced braces, an unclosed ``$`` or an environment never ended."""
    source = Source(raw_text, path, warnings if warnings is not None else [])
    text = source.text
    try:  # every conversion: a title nested too deep is the file's reason, not the run's crash
        doc = _Doc(collect_macros(text, _KNOWN), len(text))
        head, body = _convert(doc, text)
    except RecursionError:
        raise ValueError("groups or macros nested too deep to read") from None
    except ValueError as e:
        error = e if len(e.args) < 3 else call_error((text, e.args[1], e.args[2]), e.args[0])
        # The line as its writer finds it, in the file it is in.
        raise ValueError(_LINE_NAMED.sub(lambda m: source.where(int(m.group(1))), str(error), 1)) from None
    return _tidy(head + body)
