"""An agent session's entities: what it worked on, each once, without the words of its tools and languages.

The rules of :mod:`batchsum.facets` list every path and code span a session's prose names; in a session
that is the same file named twice ("reproduce_bug.py" beside "/repo/reproduce_bug.py"), the folder of a
file listed ("src"), a command of the agent's interface ("find_file", "submit") and words of the
language it writes ("True", "round"). A batch run's digest and a compaction record both list them so.
"""

from __future__ import annotations

import builtins
import keyword
from collections.abc import Collection, Sequence

from batchsum.compact.extractors import COMMAND_NAMES, command_line, most_specific
from batchsum.transcript_shape import TOOL_NAMES

__all__ = ["session_entities"]

# Python's builtins and keywords ("round", "True", "None") and JSON's and JavaScript's literals: words of the
# language, said in every session, not names of what this one works on. An exception's name is kept.
_LITERALS = ("true", "false", "null", "undefined", "nil")
_LANGUAGE_WORDS = frozenset(
    [*(n for n in dir(builtins) if n.islower() and not n.startswith("_")), *keyword.kwlist, *_LITERALS]
)
# An agent interface's commands besides those the extractors read by kind: SWE-agent's "submit" and
# "exit_forfeit" end a session, "str_replace_editor" is one tool of many commands.
_INTERFACE_COMMANDS = COMMAND_NAMES | set(TOOL_NAMES) | {"submit", "exit_forfeit", "str_replace_editor"}


def session_entities(entities: Sequence[str], commands: Sequence[str] = (), subject: Collection[str] = ()) -> list[str]:
    """``entities`` of an agent session, in order: a file once, by its fullest path (:func:`most_specific`),
    no folder of a file listed ("src", "src/pkg" beside "/repo/src/pkg/fields.py"), no command's name (the
    first word of one of ``commands``, or of the agent interface's), no word of a language ("True") unless
    ``subject`` (what the session is about: code its task names, names its diff changes) holds it."""
    names = _INTERFACE_COMMANDS | {w.rsplit("/", 1)[-1] for c in commands for w in command_line(c).split()[:1]}
    kept = most_specific(list(dict.fromkeys(entities)))
    files = [e for e in kept if "/" in e.strip("/")]  # a path with a folder in it
    out: list[str] = []
    for entity in kept:
        bare = entity.removeprefix("./").strip("/")
        if entity in names or (entity in _LANGUAGE_WORDS and entity not in subject):
            continue
        if bare and " " not in bare and any(f"/{bare}/" in f or f.startswith(f"{bare}/") for f in files):
            continue  # a folder the file's path names
        out.append(entity)
    return out
