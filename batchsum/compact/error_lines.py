"""Which lines of a command's output are its errors (the shell, edit and test extractors' one rule)."""

from __future__ import annotations

import re

_ERROR_LINE = re.compile(
    # A linter's code (flake8's E, W, F, C, N and its plugins' prefixes: B950, SIM101) before its message, which
    # opens in lower case or names an error ("F821 undefined name", "E999 SyntaxError"): a GPU's "A100 40GB" or a
    # flight's "BA1234 London" in a command's output is no error. Also after its place, "x.py:3:1: F821 ...".
    r"^(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b|error\b|fatal\b|E\s{3}|FAILED\b"
    r"|(?:\S+?:\d+:(?:\d+:)? )?(?-i:[A-Z]{1,3}\d{3,4} (?:[a-z]|\w*(?:Error|Warning)\b)))"
    r"|\b(?:command not found|No such file or directory|Permission denied|Segmentation fault)\b",
    re.I,
)
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::\s.*)?$")  # "Name: message" or a bare dotted name
_WEAK_ERROR = re.compile(r"\b(?:failed|failure|error)\b", re.I)
LINE_NO = re.compile(r"^\d+:")  # a file viewer's numbered line: source code, not a message


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with "…"."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def error_lines(text: str, limit: int) -> list[str]:
    """Error lines of an output: exception/"error:" lines first, then lines merely saying "failed"."""
    strong: list[str] = []
    weak: list[str] = []
    traceback = False  # inside a traceback's indented frames
    for line in text.split("\n"):
        s = line.strip().lstrip("-*> ").strip()
        if traceback and s and not line[:1].isspace():
            # The first line after the frames names the error, whatever its name ("StopIteration").
            traceback = False
            if _EXCEPTION_LINE.match(s) and clip(s, limit) not in strong:
                strong.append(clip(s, limit))
                continue
        traceback = traceback or s.startswith("Traceback (most recent call last)")
        if not s or LINE_NO.match(s):
            continue  # empty, or a numbered line of a file viewer: source code, not an error message
        target = strong if _ERROR_LINE.search(s) else weak if _WEAK_ERROR.search(s) else None
        if target is not None and clip(s, limit) not in target:
            target.append(clip(s, limit))
    # A traceback's header says only that one follows; its last line names the error.
    named = [e for e in strong if not e.startswith("Traceback (most recent call last)")]
    return (named or strong) + [w for w in weak if w not in strong]
