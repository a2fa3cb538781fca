"""An edit's error in an agent session's error list, as a batch run and ``batchsum compact`` list it: the
linter's line whatever its code's letter (flake8's E, W, F, C, N...), never the tool's request to retry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

_SHELL = "(Open file: /repo/decrypt.py)\n(Current directory: /repo)\nbash-$"
_RETRY = (
    "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then "
    "retry editing the file."
)


def _session(errors: str) -> str:
    """A session whose one edit the tool refuses with ``errors`` under its request to retry."""
    return "\n\n".join(
        [
            "### user\n\nDecrypt msg.enc with the cipher in chall.py and print the flag.",
            "### assistant\n\nI'll write the decryption script.\n```\ncreate decrypt.py\n```",
            "### user\n\n[File: /repo/decrypt.py (1 lines total)]\n1:\n" + _SHELL,
            "### assistant\n\nRead the hex cipher text first.\n```\nedit 1:1\n"
            "cipher = binascii.unhexlify(open('msg.enc').read())\nend_of_edit\n```",
            f"### user\n\n{_RETRY}\n\n{errors}This is how your edit would have looked if applied\n"
            "-------------------------------------------------\n[File: /repo/decrypt.py (1 lines total)]\n"
            "1:cipher = binascii.unhexlify(open('msg.enc').read())\n" + _SHELL,
            "### assistant\n\nThe module needs its import, so I am adding it.\n```\nedit 1:1\nimport binascii\n"
            "cipher = binascii.unhexlify(open('msg.enc').read())\nend_of_edit\n```",
            "### user\n\n[File: /repo/decrypt.py (2 lines total)]\n1:import binascii\n" + _SHELL,
            "### assistant\n\nThe script is done, submitting.\n```\nsubmit\n```",
            "### user\n\ndone\n" + _SHELL,
        ]
    )


def _errors(tmp: Path, session: str) -> dict[str, list[str]]:
    """The session's errors as a batch run's front matter and ``compact --json`` list them."""
    corpus, out = tmp / "corpus", tmp / "out"
    corpus.mkdir()
    (corpus / "session.md").write_text(session, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(node_path(out, "session.md", 3, None))
    assert meta["agent_session"]
    res = CliRunner().invoke(main, ["compact", str(corpus / "session.md"), "--json", "--preserve-recent", "1"])
    assert res.exit_code == 0, res.output
    return {"run": meta.get("errors") or [], "compact": json.loads(res.stdout)["record"]["context"]["errors"]}


@pytest.mark.parametrize("code", ["F821 undefined name 'binascii'", "W605 invalid escape sequence '\\d'"])
def test_a_linter_code_of_any_letter_is_the_error(tmp_path: Path, code: str) -> None:
    found = _errors(tmp_path, _session(f"ERRORS:\n- {code}\n\n"))
    for where, errors in found.items():
        assert code in errors, (where, errors)
        assert not any("retry" in e or e.startswith("Your proposed edit") for e in errors), (where, errors)


def test_the_request_to_retry_is_never_the_error(tmp_path: Path) -> None:
    # The tool names no error line at all: the edit failed, and there is no error to list.
    found = _errors(tmp_path, _session(""))
    for where, errors in found.items():
        assert not any("retry" in e or e.startswith("Your proposed edit") for e in errors), (where, errors)
