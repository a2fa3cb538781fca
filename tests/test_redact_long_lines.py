"""Redaction of a text without line breaks: each rule scans the windows around its own markers only, so the
work is bounded by the text's length whatever its lines (a 1.7 MB one-line journal had taken 1.7 s, its
common markers "ey" and "s." merging every window into the whole text that every rule then scanned)."""

from __future__ import annotations

import pytest

from batchsum import secrets
from batchsum.secrets import WINDOW, redact

GITHUB = "ghp_" + "A1b2C3d4E5" * 4
AWS = "AKIAIOSFODNN7EXAMPLQ"
PROSE = "They say the key to money is patience. Mrs. Jones agreed. "  # markers "ey" and "s." in every sentence


def test_each_rule_scans_the_windows_of_its_own_markers(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: dict[str, int] = {}
    sub = secrets._sub

    def counting(text: str, rule: secrets._Compiled, *args: object) -> str:
        scanned[rule.kind] = scanned.get(rule.kind, 0) + len(text)
        return sub(text, rule, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(secrets, "_sub", counting)
    line = PROSE * 2000 + f'cohere key = "{"Zx9" * 13}Q" ' + PROSE * 2000  # ~240 KB, one line
    redact(line)
    assert scanned["cohere_api_token"] <= 2 * WINDOW + 100, scanned  # its one marker's window
    assert max(scanned.values()) <= len(line), scanned  # a dense marker's rule: the text once at most


def test_secrets_on_a_line_without_breaks_are_redacted() -> None:
    """Two rules on one long line, the first of which shortens the text before the second's secret."""
    line = PROSE * 500 + f'token = "{GITHUB}" ' + PROSE * 500 + f"id {AWS} and password: hunter2hunter2 " + PROSE
    text, counts = redact(line)
    assert GITHUB not in text and AWS not in text and "hunter2hunter2" not in text
    assert counts == {"github_token": 1, "aws_access_key": 1, "password": 1}, counts
    assert text == redact(line.replace(". ", ".\n"))[0].replace(".\n", ". ")  # as with its line breaks
