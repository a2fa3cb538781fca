"""A user's line that introduces a code block ("I am running `x.py` as follows:") keeps its colon with a
mark where the block was left out: with a full stop for the colon it read as a whole sentence of its own
("... as follows. but I get ...", a summary line saying nothing), and a bare colon breaks it off."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER
from batchsum.text import split_sentences

# A lead-in naming code, then one naming nothing, each before a fenced block (the reader's session).
NAMED = (
    "### user\n\nI am running `missing_colon.py` as follows:\n\n```python\ndivision(23, 0)\n```\n\n"
    "but I get the following error:\n\n```\nSyntaxError\n```\n\n"
    "### assistant\n\nThe error is likely due to a missing colon at the end of the function definition line. "
    "I will open the file and fix it now.\n\n"
    "### assistant\n\nThe colon is added and the script prints 8.2 now, so the bug is fixed.\n"
)
# A lead-in that names nothing opens the request's second line: it is the user's, not a framework's.
UNNAMED = (
    "### user\n\nThe total that `report.py` prints is off by one cent. I run it as follows:\n\n"
    "```\npython report.py --month 3\n```\n\nbut the total it prints is wrong:\n\n```\nTotal: 10.01\n```\n\n"
    "It should read 10.00.\n\n"
    "### assistant\n\nEach line is rounded before the sum, so I will round the total once at the end.\n\n"
    "```\nedit 3:3\n```\n\n"
    "### assistant\n\nThe total prints 10.00 now, so the rounding bug is fixed.\n"
)


def _finals(tmp_path: Path) -> dict[str, tuple[dict[str, Any], str]]:
    """Each session's final: its front matter and its summary text (the body before its extracted sections)."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "named.md").write_text(NAMED, encoding="utf-8")
    (src / "unnamed.md").write_text(UNNAMED, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    finals = {}
    for name in ("named.md", "unnamed.md"):
        text = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
        _, head, body = text.split("---\n", 2)
        summary = body.split("## Agent session", 1)[0].split(LINKS_MARKER, 1)[0].strip()
        finals[name] = (yaml.safe_load(head), summary)
    return finals


def test_a_lead_in_to_left_out_code_is_neither_stopped_nor_broken_off(tmp_path: Path) -> None:
    for name, (meta, summary) in _finals(tmp_path).items():
        task = meta["task"]
        # The lead-ins stay, each with its colon: the task says how it was run and what went wrong.
        assert "as follows:" in task and ("wrong:" in task or "error:" in task), (name, task)
        for text in (task, *summary.splitlines()):
            # No stop where a colon was: the next words do not open in lower case after one.
            assert not re.search(r"[.!?]\s+[a-z]", text), (name, text)
            for sp in split_sentences(text):
                sentence = text[sp.start : sp.end].strip()
                assert not sentence.endswith(":"), (name, sentence)  # none broken off in a summary or a task
