"""The numbers LaTeX gives a paper's sections, floats, equations and theorems, and so what its ``\\label`` s read
as where ``\\ref``, ``\\eqref``, ``\\cref`` or ``\\autoref`` name them.

Counted in document order as the standard classes count: sections (with ``\\chapter`` s: a section's number
under its chapter's, and floats and equations by chapter), numbered up to a subsubsection (a subsection with
chapters); after ``\\appendix`` the top level is lettered (A, B, ...); a starred heading or environment is not
numbered. A float's number steps at its ``\\caption`` (a subfigure's caption: its letter, "2a"); an equation's
at each row of ``equation``, ``align``, ``gather``, ... not marked ``\\nonumber``/``\\notag`` (a ``\\tag``'s text
is its number); ``subequations`` letter theirs ("3a"); a ``\\newtheorem``'s environment steps its counter (or
the one it shares). A ``\\label`` names the last number stepped in its environment, as LaTeX's does.
"""

from __future__ import annotations

import re
import string
from typing import cast

__all__ = ["Labels", "number_labels"]

# What cleveref's \Cref and hyperref's \autoref call each counter's numbers (a summary line may open with it).
_NAMES = {"figure": "Figure", "table": "Table", "algorithm": "Algorithm"}
# A float's environment and the counter its caption steps.
_FLOATS = {"figure": "figure", "wrapfigure": "figure", "SCfigure": "figure", "sidewaysfigure": "figure"}
_FLOATS |= {"table": "table", "wraptable": "table", "sidewaystable": "table", "algorithm": "algorithm"}
_BY_CHAPTER = ("figure", "table", "algorithm", "equation")
_SUBFLOATS = frozenset({"subfigure", "subtable", "subfloat"})
_ONE_ROW = frozenset({"equation", "multline", "dmath"})
_ROWS = frozenset({"align", "gather", "flalign", "alignat", "eqnarray", "xalignat"})
_LEVELS = ("chapter", "section", "subsection", "subsubsection")
_EVENT = re.compile(
    r"\\(?:(?P<head>chapter|section|subsection|subsubsection)(?P<star>\*?)(?![A-Za-z@])"
    r"|(?P<edge>begin|end)\s*\{(?P<env>[^{}]*)\}"
    r"|(?P<caption>caption|captionof)(?![A-Za-z@])\s*(?:\{(?P<kind>[^{}]*)\})?"
    r"|label\s*\{(?P<label>[^{}]*)\}"
    r"|(?P<row>\\)"
    r"|(?P<nonumber>nonumber|notag)(?![A-Za-z@])"
    r"|tag\*?\s*\{(?P<tag>[^{}]*)\}"
    r"|(?P<appendix>appendix)(?![A-Za-z@]))"
    r"|(?P<brace>[{}])|\\."
)
_THEOREM = re.compile(r"\\newtheorem\s*\{([^{}]+)\}\s*(?:\[([^\]]*)\])?\s*\{([^{}]*)\}\s*(?:\[([^\]]*)\])?")
_CHAPTER = re.compile(r"\\chapter\*?(?![A-Za-z@])")


class Labels:
    """Each label's kind ("Figure", "Section", "Equation", a theorem's name) and number, and the number of each
    float's caption by its position in the text."""

    def __init__(self) -> None:
        self.numbers: dict[str, tuple[str, str]] = {}
        self.captions: dict[int, str] = {}


class _Counter:
    """The numbering state of one pass over a text."""

    def __init__(self, text: str) -> None:
        self.labels = Labels()
        self.chapters = _CHAPTER.search(text) is not None
        self.counts: dict[str, int] = {}
        self.appendix = False
        self.current: tuple[str, str] | None = None  # what a \label here names
        self.saved: list[tuple[str, tuple[str, str] | None, int]] = []  # open environments: name, current, depth
        self.depth = 0  # brace depth
        self.row: list[str] = []  # the labels of an equation's row not yet numbered
        self.row_numbered, self.row_tag = True, cast("str | None", None)
        self.subfloat = 0  # a float's subfigures' letters so far
        self.float_captioned = False
        self.sub_equation: tuple[str, int] | None = None  # subequations' number and its letters so far
        self.theorems: dict[str, tuple[str, str, str | None]] = {}  # env: name, counter, within
        for m in _THEOREM.finditer(text):
            env, shared, title, within = m.groups()
            # A theorem sharing another's counter is numbered as that one is (within its section, say).
            counter, within = (
                (shared.strip(), self.theorems.get(shared.strip(), ("", "", None))[2])
                if shared
                else (env.strip(), within and within.strip())
            )
            self.theorems[env.strip()] = (title.strip(), counter, within)

    def step(self, counter: str) -> int:
        """Step ``counter``, resetting those numbered within it; its new value."""
        self.counts[counter] = self.counts.get(counter, 0) + 1
        if counter in _LEVELS:
            for lower in _LEVELS[_LEVELS.index(counter) + 1 :]:
                self.counts[lower] = 0
            for name, (_, shared, within) in self.theorems.items():
                if within == counter:
                    self.counts[shared or name] = 0
            if counter == "chapter":
                self.counts.update(dict.fromkeys(_BY_CHAPTER, 0))
        return self.counts[counter]

    def top(self) -> str:
        """The top sectioning level: ``chapter`` in a book or a report, ``section`` in an article."""
        return "chapter" if self.chapters else "section"

    def number(self, counter: str) -> str:
        """``counter``'s value as printed: under its level's number (a section's chapter's), lettered in an
        appendix at the top level."""
        value = self.counts.get(counter, 0)
        if counter in _LEVELS:
            level = _LEVELS.index(counter)
            own = string.ascii_uppercase[(value - 1) % 26] if counter == self.top() and self.appendix else str(value)
            if counter == self.top():
                return own
            return f"{self.number(_LEVELS[level - 1])}.{own}"
        if self.chapters and counter in _BY_CHAPTER:
            return f"{self.number('chapter')}.{value}"
        return str(value)

    def heading(self, level: str, starred: bool) -> None:
        """A ``\\section`` or its kin: numbered (when not starred and deep enough), a label after it names it."""
        deepest = "subsection" if self.chapters else "subsubsection"
        if starred or _LEVELS.index(level) > _LEVELS.index(deepest) or (level == "chapter" and not self.chapters):
            return
        self.step(level)
        kind = "Appendix" if self.appendix else "Chapter" if level == "chapter" else "Section"
        self.current = (kind, self.number(level))

    def begin(self, env: str) -> None:
        """An environment opens: what it numbers, and what a label in it names until it closes."""
        self.saved.append((env, self.current, self.depth))
        base = env.rstrip("*")
        if base in _FLOATS:
            self.subfloat, self.float_captioned = 0, False
        elif base in _SUBFLOATS:
            self.current = None
        elif base == "subequations":
            self.sub_equation = (self.number_step("equation"), 0)
            self.current = ("Equation", self.sub_equation[0])
        elif base in _ONE_ROW or base in _ROWS:
            self.row, self.row_numbered, self.row_tag = [], not env.endswith("*"), None
        elif base in self.theorems and not env.endswith("*"):
            title, counter, within = self.theorems[base]
            value = self.step(counter)
            number = f"{self.number(within)}.{value}" if within in _LEVELS else str(value)
            self.current = (title, number)

    def end(self, env: str) -> None:
        """An environment closes: its last row numbered, the label it named forgotten."""
        base = env.rstrip("*")
        if base in _ONE_ROW or base in _ROWS:
            self.end_row()
        if base == "subequations":
            self.sub_equation = None
        while self.saved:
            name, current, _ = self.saved.pop()
            if name == env:
                self.current = current
                return

    def number_step(self, counter: str) -> str:
        """Step ``counter`` and give its number as printed."""
        self.step(counter)
        return self.number(counter)

    def end_row(self) -> None:
        """An equation's row ends: numbered (or tagged) unless marked not to, its labels naming that number."""
        if self.row_tag is not None:
            number: str | None = self.row_tag
        elif not self.row_numbered:
            number = None
        elif self.sub_equation is not None:
            parent, letters = self.sub_equation
            self.sub_equation = (parent, letters + 1)
            number = parent + string.ascii_lowercase[letters % 26]
        else:
            number = self.number_step("equation")
        for label in self.row:
            if number is not None:
                self.labels.numbers[label] = ("Equation", number)
        env = self.saved[-1][0] if self.saved else ""
        self.row, self.row_numbered, self.row_tag = [], not env.endswith("*"), None

    def in_equation(self) -> bool:
        """Whether an equation's environment is open (its labels wait for their row's number), a ``split`` in it
        or not."""
        return any(env.rstrip("*") in _ONE_ROW or env.rstrip("*") in _ROWS for env, _, _ in self.saved)

    def row_break(self) -> bool:
        """Whether a ``\\\\`` here ends a numbered row: in an ``align``'s (or its kin's) own body, not in a
        group or an environment inside it (``aligned``, ``cases``)."""
        return bool(self.saved) and self.saved[-1][0].rstrip("*") in _ROWS and self.saved[-1][2] == self.depth

    def caption(self, pos: int, kind: str | None) -> None:
        """A ``\\caption`` (in its float) or a ``\\captionof{kind}``: its float's number, or a subfigure's letter."""
        envs = [name.rstrip("*") for name, _, _ in self.saved]
        sub = next((e for e in reversed(envs) if e in _SUBFLOATS), None)
        float_env = next((e for e in reversed(envs) if e in _FLOATS), None)
        counter = kind.strip() if kind is not None else _FLOATS.get(float_env or "")
        if counter not in _NAMES:
            return
        name = _NAMES[counter]
        if sub is not None and kind is None:
            parent = self.counts.get(counter, 0) + (0 if self.float_captioned else 1)
            self.subfloat += 1
            self.current = (name, f"{self.prefix(parent)}{string.ascii_lowercase[(self.subfloat - 1) % 26]}")
            return
        self.float_captioned = True
        self.current = (name, self.number_step(counter))
        self.labels.captions[pos] = self.current[1]

    def prefix(self, value: int) -> str:
        """A float's ``value`` as printed (under its chapter's number in a book)."""
        return f"{self.number('chapter')}.{value}" if self.chapters else str(value)

    def label(self, name: str) -> None:
        """A ``\\label``: the number it names (an equation's: its row's, once the row ends)."""
        name = name.strip()
        if self.in_equation():
            self.row.append(name)
        elif self.current is not None:
            self.labels.numbers.setdefault(name, self.current)


def number_labels(text: str) -> Labels:
    """The labels ``text`` defines with their numbers, and its floats' captions' numbers, counted as LaTeX counts."""
    counter = _Counter(text)
    for m in _EVENT.finditer(text):
        if m.group("brace"):
            counter.depth += 1 if m.group("brace") == "{" else -1
        elif m.group("head"):
            counter.heading(m.group("head"), bool(m.group("star")))
        elif m.group("edge"):
            env = m.group("env").strip()
            counter.begin(env) if m.group("edge") == "begin" else counter.end(env)
        elif m.group("caption"):
            counter.caption(m.start(), m.group("kind") if m.group("caption") == "captionof" else None)
        elif m.group("label") is not None:
            counter.label(m.group("label"))
        elif m.group("row") and counter.row_break():
            counter.end_row()
        elif m.group("nonumber"):
            counter.row_numbered = False
        elif m.group("tag") is not None and counter.in_equation():
            counter.row_tag = m.group("tag").strip()
        elif m.group("appendix"):
            counter.appendix = True
            counter.counts[counter.top()] = 0
    return counter.labels


# The commands that print a label's number: with its counter's name, and the equation's in brackets.
REFERENCES = frozenset({"ref", "vref", "labelcref", "eqref", "cref", "Cref", "autoref", "Autoref"})
_NAMED = frozenset({"cref", "Cref", "autoref", "Autoref"})
_PLURALS = {"Appendix": "Appendices", "Eq.": "Eqs."}


def reference(command: str, keys: str, labels: Labels) -> str | None:
    """What ``\\command{keys}`` prints: "2" (``\\ref``), "(3)" (``\\eqref``), "Table 2", "Eq. (3)", "Figures 1
    and 2" (``\\cref``; ``\\autoref``: "Equation 3"); None when no label is known (LaTeX's "??" is no text)."""
    # \cref{a,b} names several labels; \ref's one key may hold a comma.
    names = [k.strip() for k in keys.split(",")] if command in ("cref", "Cref", "labelcref") else [keys.strip()]
    found = [labels.numbers[k] for k in names if k in labels.numbers]
    if not found:
        return None
    if len(found) > 1:  # cleveref sorts the numbers of each kind
        kinds = list(dict.fromkeys(kind for kind, _ in found))
        found.sort(key=lambda f: (kinds.index(f[0]), _order(f[1])))
    if command not in _NAMED:
        numbers = [f"({n})" if command == "eqref" else n for _, n in found]
        return _joined(numbers)
    groups: list[tuple[str, list[str]]] = []
    for kind, number in found:
        if kind == "Equation" and command in ("cref", "Cref"):
            kind, number = "Eq.", f"({number})"
        if groups and groups[-1][0] == kind:
            groups[-1][1].append(number)
        else:
            groups.append((kind, [number]))
    parts = [f"{_PLURALS.get(k, k + 's') if len(ns) > 1 else k} {_joined(ns)}" for k, ns in groups]
    return _joined(parts)


def _order(number: str) -> tuple[tuple[int, int, str], ...]:
    """A number's sort key: "2.10" after "2.9", "A.1" after them."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.()]", number) if p)


def _joined(items: list[str]) -> str:
    """ "1", "1 and 2", "1, 2 and 3"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
