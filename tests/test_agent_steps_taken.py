"""An agent narrates each step as it takes it ("I'll create a script to reproduce the bug", "Let's remove
reproduce.py"): a session that ends by submitting has no open action item of its agent's own, one cut off
keeps its last steps, and a task the user gives someone stays."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

_SHELL = "(Open file: n/a)\n(Current directory: /repo)\nbash-$"
STEPS = [
    ("First, I'll create a new Python script to reproduce the bug as described in the issue.", "create reproduce.py"),
    ("I will correct the syntax and try the edit command again with the colon.", "edit 2:2\n    x = 1\nend_of_edit"),
    ("Let's run the reproduce.py script to see the fixed rounding of the value.", "python reproduce.py"),
    ("Let's remove the reproduce.py file since it is no longer needed.", "rm reproduce.py"),
]
TASK = "Assistant, please also add a test of the rounding to the release branch by Friday."


def _session(ending: str) -> str:
    parts = ["### user\n\nThe rounding of TimeDelta is off by one. Fix it. " + TASK]
    for said, command in STEPS:
        parts += [f"### assistant\n\n{said}\n```\n{command}\n```", "### user\n\nDone.\n" + _SHELL]
    parts.append(ending)
    return "\n\n".join(parts)


def _tasks(tmp_path: Path, session: str) -> list[str]:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "session.md").write_text(session, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert r.exit_code == 0, r.output
    meta, _ = read_node(node_path(out, "session.md", 3, None))
    assert meta["agent_session"]
    return [a["task"] for a in meta.get("action_items", [])]


def test_a_submitted_session_has_no_open_steps_of_its_agent(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path, _session("### assistant\n\nThe fix should work and I will now submit.\n```\nsubmit\n```"))
    assert not {said for said, _ in STEPS} & set(tasks)
    assert "I will now submit." not in " ".join(tasks)
    assert TASK in tasks  # a task the user gives, not a step the agent narrates


def test_a_session_cut_off_keeps_its_last_steps(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path, _session("### assistant\n\nI'll open the fields.py file to check the rounding.\n"))
    assert STEPS[0][0] not in tasks  # only the last three of the agent's steps may still be open
    assert "I'll open the fields.py file to check the rounding." in tasks
