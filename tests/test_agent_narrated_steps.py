"""The steps an agent narrates as it takes them ("Let's ...", "I will ...") are no open action items in
``batchsum compact``'s summary by the rule a batch run's digest uses for the whole session: only its last
three may be open, none once it ends by submitting, though the submit is in the verbatim tail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

_SHELL = "(Open file: /repo/src/money.py)\n(Current directory: /repo)\nbash-$"


def _session(submitted: bool) -> str:
    parts = ["### user\n\nInvoices are off by one cent for EUR totals. Fix the rounding in src/money.py."]
    for i in range(6):
        said = f"Let's look at part {i} of the rounding code."
        parts.append(f"### assistant\n\n{said}\n```\nopen src/money.py {10 * i}\n```")
        body = "\n".join(f"{10 * i + k}:    total_{k} = round(value_{k}, 2)" for k in range(20))
        parts.append(f"### user\n\n[File: /repo/src/money.py (80 lines total)]\n{body}\n{_SHELL}")
    said = "I will now use Decimal quantize for the totals."
    parts.append(f"### assistant\n\n{said}\n```\nedit 3:3\n    q = 1\nend_of_edit\n```")
    parts.append(f"### user\n\n[File: /repo/src/money.py (80 lines total)]\n3:    q = 1\n{_SHELL}")
    if submitted:
        parts.append("### assistant\n\nThe fix works, submitting it.\n```\nsubmit\n```")
        parts.append("### user\n\ndiff --git a/src/money.py b/src/money.py\n" + _SHELL)
    return "\n\n".join(parts) + "\n"


def _items(tmp: Path, session: str) -> tuple[list[str], list[str]]:
    """The session's action items: a batch run's front matter's, and ``compact --json``'s."""
    corpus, out = tmp / "corpus", tmp / "out"
    corpus.mkdir()
    (corpus / "session.md").write_text(session, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(node_path(out, "session.md", 3, None))
    assert meta["agent_session"]
    run: list[dict[str, Any]] = meta.get("action_items") or []
    res = CliRunner().invoke(main, ["compact", str(corpus / "session.md"), "--json", "--preserve-recent", "2"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["compacted"], data["reason"]
    return [a["task"] for a in run], [a["task"] for a in data["record"]["context"]["action_items"]]


def test_a_submitted_session_has_no_narrated_step_open(tmp_path: Path) -> None:
    run, compacted = _items(tmp_path, _session(submitted=True))
    assert run == [] and compacted == [], (run, compacted)


@pytest.mark.parametrize("submitted", [True, False])
def test_compact_keeps_only_what_the_run_keeps(tmp_path: Path, submitted: bool) -> None:
    run, compacted = _items(tmp_path, _session(submitted))
    assert set(compacted) <= set(run), (run, compacted)
    assert len([t for t in compacted if t.startswith(("Let's", "I will"))]) <= 3, compacted
