"""Names and kinds of the paths a walk meets: each given root's name in the run, a name shown as printable
text, what a path that is no regular file is. Pure path handling, apart from walk.py's reading."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path


def root_names(roots: list[Path]) -> dict[Path, str]:
    """Relpath prefix per root: none for a single root, its name for several.

    A function of the paths, not of their order: roots that share a name (two ``notes`` folders) take
    as many parent folders as tell them apart (``work-notes``, ``home-notes``), so the same paths in
    any order give the same tree, and no file's summaries or previous summary pass to another's."""
    distinct = sorted(set(roots), key=str)
    if len(distinct) == 1:
        return dict.fromkeys(roots, "")

    def label(root: Path, depth: int) -> str:
        parts = [p for p in root.parts[-depth:] if p != root.anchor]
        return "-".join(parts) or "root"

    depth = dict.fromkeys(distinct, 1)
    while True:
        groups: dict[str, list[Path]] = {}
        for r in distinct:
            groups.setdefault(label(r, depth[r]), []).append(r)
        clashing = [r for members in groups.values() if len(members) > 1 for r in members]
        deeper = [r for r in clashing if depth[r] < len(r.parts)]
        if not deeper:
            break
        for r in deeper:
            depth[r] += 1
    names = {r: label(r, depth[r]) for r in distinct}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    for r, name in names.items():
        if counts[name] > 1:  # "a/b-c" and "a-b/c": only a hash of the path tells them apart
            names[r] = f"{name}-{hashlib.sha1(str(r).encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return {r: names[r] for r in roots}


def printable(name: str) -> str:
    """A file name with the bytes that are not UTF-8 shown as escapes (``bad\\xffname.md``), storable and printable."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# What ends or rewrites a terminal line: C0 and C1 controls, DEL, and Unicode's line and paragraph separators.
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def shown(text: str) -> str:
    """A name (or a line naming one) as the command prints it: :func:`printable`, with the characters that
    would end or rewrite its line escaped (``a\\nb.md``), so a file's name cannot fake lines of output."""
    return _LINE_BREAKING.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), printable(text))


_KINDS = (
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISDIR, "folder"),
    (stat.S_ISREG, "regular file"),
)


def kind_name(mode: int) -> str:
    """What a file of ``mode`` is ("named pipe (FIFO)", "socket", "regular file")."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "special file"


def kind_of(path: Path) -> str:
    """What ``path`` is (following symlinks), from ``stat`` alone: a FIFO or device is never opened."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    kind = kind_name(mode)
    if os.path.islink(path):
        return f"symlink to {os.path.realpath(path)}, a {kind}"
    return kind


def outermost(paths: list[Path]) -> list[Path]:
    """``paths`` without repeats and without those inside a folder among them: a folder given with one of
    its subfolders (``notes notes/calls``) is walked once, its files under the names the folder gives them,
    not summarized a second time under the subfolder's."""
    absolute = [os.path.abspath(p) for p in paths]
    folders = [a.rstrip(os.sep) + os.sep for a in dict.fromkeys(absolute) if os.path.isdir(a)]
    kept: dict[str, Path] = {}
    for path, a in zip(paths, absolute, strict=True):
        if a not in kept and not any(a.startswith(f) for f in folders):
            kept[a] = path
    return list(kept.values())
