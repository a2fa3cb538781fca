"""An agent session's summary opens with its task's own text, not the framework's lead-in to it, and the
task's lines stay sentences apart: a title, a label's value or a line before a code block is not run into
the next line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

_SHELL = "(Open file: n/a)\n(Current directory: /ledger)\nbash-$\n\n"

ISSUE_SESSION = (
    "### user\n\n"
    "We're currently solving the following issue within our repository. Here's the issue text:\n"
    "ISSUE:\nCSV export drops the last row\nHello maintainers!\n"
    "I'm exporting the ledger table as follows:\n\n```python\nexport(ledger, 'out.csv')\n```\n\n"
    "but the file written holds one row fewer than the table:\n\n```\n$ wc -l out.csv\n41 out.csv\n```\n\n"
    "INSTRUCTIONS:\nNow, you're going to solve this issue on your own. Edit all the files you need to.\n\n"
    + _SHELL
    + "### assistant\n\nLet me look for the exporter module first so I can read how it writes rows.\n"
    "```\nfind_file export.py\n```\n\n"
    '### user\n\nFound 1 matches for "export.py" in /ledger:\n/ledger/src/export.py\n'
    + _SHELL
    + "### assistant\n\nThe loop stops one row early because it iterates to len(rows) - 1, so I will fix the range.\n"
    "```\nedit 12:12\n```\n\n"
    "### user\n\n[File: /ledger/src/export.py (40 lines total)]\n12:    for i in range(len(rows)):\n"
    + _SHELL
    + "### assistant\n\nThe range now covers every row, so the export writes the whole table and the issue is fixed.\n"
    "```\nsubmit\n```\n"
)

CTF_SESSION = (
    "### user\n\n"
    "We're currently solving the following CTF challenge. The CTF challenge is a cryptography problem named "
    '"Lantern Cipher", worth 25 points. The description is:\n'
    "A lighthouse keeper hid his logbook behind a cipher of his own making\n"
    "Files included in the challenge: ['lantern.py', 'log.enc']\n\n"
    "The challenge server is running on `lantern.example` port `4040` for you to connect to.\n\n"
    "INSTRUCTIONS:\nNow, you're going to solve this challenge on your own.\n\n"
    + _SHELL
    + "### assistant\n\nWe will start by reading the cipher script which is supplied to us.\n"
    "```\nopen lantern.py\n```\n\n"
    "### user\n\n[File: /ctf/lantern.py (3 lines total)]\n1:key = 7\n"
    + _SHELL
    + "### assistant\n\nThe cipher shifts every byte by a fixed key of seven, so undoing the shift reveals the log.\n"
    "```\nsubmit 'flag{keeper}'\n```\n"
)


def _run(tmp_path: Path) -> Path:
    src, out = tmp_path / "corpus" / "sessions", tmp_path / "out"
    src.mkdir(parents=True)
    (src / "ledger.md").write_text(ISSUE_SESSION, encoding="utf-8")
    (src / "lantern.md").write_text(CTF_SESSION, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src.parent), "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def _summary(out: Path, name: str) -> str:
    """The summary text of a session's final (its body before the extracted section)."""
    text = (out / "sessions" / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]
    return body.split("## Agent session", 1)[0].split(LINKS_MARKER, 1)[0].strip()


def _one_liner(out: Path, name: str) -> str:
    index = (out / "index.md").read_text(encoding="utf-8")
    return next(line for line in index.splitlines() if line.startswith(f"- [{name.removesuffix('.md')}]"))


def test_an_agent_sessions_summary_opens_with_its_task_not_the_frameworks_lead_in(tmp_path: Path) -> None:
    out = _run(tmp_path)
    for name in ("ledger.md", "lantern.md"):
        for text in (_summary(out, name), _one_liner(out, name)):
            for lead_in in ("currently solving the following", "Here's the issue text", "The description is:"):
                assert lead_in not in text, f"{name}: {text!r}"
    assert "User: CSV export drops the last row." in _one_liner(out, "ledger.md")
    # The lead-in's sentence that names the challenge is the task's own: it stays.
    assert 'named "Lantern Cipher", worth 25 points.' in _one_liner(out, "lantern.md")


def test_a_task_line_that_ends_without_a_stop_is_not_run_into_the_next(tmp_path: Path) -> None:
    out = _run(tmp_path)
    ledger, lantern = _summary(out, "ledger.md"), _summary(out, "lantern.md")
    assert "CSV export drops the last row." in ledger  # the title is a sentence of its own
    assert "row Hello" not in ledger
    assert "as follows: but" not in ledger  # the code block it introduced is not in the summary
    assert "making Files" not in lantern
    assert "challenge: The challenge" not in lantern  # the list is neither dropped nor run into the next line
