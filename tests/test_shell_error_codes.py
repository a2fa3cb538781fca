"""A linter's code opens an error line only before its message ("F821 undefined name ...", "E999 SyntaxError"):
a command's output listing "A100 40GB" or a flight "BA1234 London" had been reported as a failed command."""

from __future__ import annotations

from batchsum.compact.extractors import summarize_shell


def test_inventory_lines_are_no_errors() -> None:
    out = summarize_shell("Available instances:\nA100 40GB  4 free\nH100 80GB  2 free\nBA1234 London 09:40\n", "bash",
                          {}, "cat gpus.txt")  # fmt: skip
    assert out.status != "error" and not out.errors


def test_linter_codes_before_their_message_are_errors() -> None:
    out = summarize_shell("x.py:3:1: F821 undefined name 'binascii'\n- W605 invalid escape sequence\n", "bash", {},
                          "flake8 x.py")  # fmt: skip
    assert any("F821 undefined name" in e for e in out.errors) and any("W605" in e for e in out.errors)
