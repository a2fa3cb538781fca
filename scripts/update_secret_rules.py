"""Regenerate ``batchsum/data/secret_rules.json`` from gitleaks' rule set.

Usage: ``python scripts/update_secret_rules.py path/to/gitleaks/config/gitleaks.toml [commit]``

gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, (c) 2019 Zachary Rice) keeps ~220 provider
rules, each a regular expression, the lower-case keywords one of which every match contains, and an
entropy floor for the captured secret. batchsum reads them as data: this script translates the few Go
regular-expression forms Python spells differently (a ``(?i)`` in the middle of a pattern, ``\\z``),
lets a secret end before prose punctuation (``.``, ``,``, ``)``) as well as where gitleaks ends it,
keeps each rule's allowlist regexes that apply to the secret, and leaves out the rules that only match
file paths and ``generic-api-key`` (prose like "key: unfortunately" would match it; batchsum's own
``credential`` and ``password`` rules cover assignments).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
import warnings
from pathlib import Path

SKIP = {"generic-api-key"}
OUT = Path(__file__).resolve().parent.parent / "batchsum" / "data" / "secret_rules.json"


def _group_end(pattern: str, start: int) -> int:
    """Index of the ``|`` or ``)`` that ends the branch around ``start`` (len(pattern) at the top level):
    a Go flag group ``(?i)`` holds to the end of its branch."""
    depth = 0
    i = start
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        elif c == "|" and depth == 0:
            return i
        i += 1
    return len(pattern)


# gitleaks' end of a secret: a quote, space, ``;``, an escaped newline or the end. That suits code; in
# prose a key also ends before ``.``, ``,`` or a closing bracket ("the key is sk_live_....").
SECRET_END = """(?:[\\x60'"\\s;]|\\\\[nr]|$)"""
PROSE_END = """(?:[\\x60'"\\s;.,:!?)\\]}>]|\\\\[nr]|$)"""


def to_python(pattern: str) -> str:
    """A Go (RE2) pattern as Python ``re`` reads it (and a secret may end where prose ends it)."""
    pattern = pattern.replace(SECRET_END, PROSE_END)
    pattern = pattern.replace("\\z", "\\Z")
    while True:
        pos = pattern.find("(?i)", 1)
        if pos < 0:
            return pattern
        end = _group_end(pattern, pos + 4)
        pattern = pattern[:pos] + "(?i:" + pattern[pos + 4 : end] + ")" + pattern[end:]


def main() -> None:
    source = Path(sys.argv[1])
    commit = sys.argv[2] if len(sys.argv) > 2 else ""
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    rules = []
    dropped = []
    for rule in data["rules"]:
        if rule["id"] in SKIP or "regex" not in rule:
            continue
        regex = to_python(rule["regex"])
        allow = [
            to_python(r)
            for a in rule.get("allowlists", [])
            if a.get("regexTarget", "secret") == "secret" and not a.get("paths")
            for r in a.get("regexes", [])
        ]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                re.compile(regex)
                for r in allow:
                    re.compile(r)
        except re.error as exc:
            dropped.append(f"{rule['id']}: {exc}")
            continue
        rules.append(
            {
                "id": rule["id"],
                "regex": regex,
                "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
                "entropy": rule.get("entropy", 0),
                "group": rule.get("secretGroup", 0),
                "allow": allow,
            }
        )
    doc = {
        "source": "gitleaks config/gitleaks.toml (https://github.com/gitleaks/gitleaks)",
        "commit": commit,
        "license": "MIT License, Copyright (c) 2019 Zachary Rice",
        "generated_by": "scripts/update_secret_rules.py",
        "rules": rules,
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rules)} rules written to {OUT}; {len(dropped)} dropped", file=sys.stderr)
    for line in dropped:
        print(f"  dropped {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
