"""An action item given to someone else ("Priya, can you call the vendor by Friday?" said by Luis) is shown as
its speaker's words with its owner after them, never as a quote of the owner; one the owner says is shown
as the owner's words."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

MEETING = """Luis Ortega: Okay, the vendor contract is the last item on the agenda today.
Priya Shah: Who talks to the vendor about the late deliveries this time?
Luis Ortega: Priya, can you call the vendor by Friday?
Priya Shah: Sure, that works for me.
Tom Reyes: I'll send the revised budget to finance by Thursday.
Luis Ortega: Tom will update the delivery tracker before Monday.
"""


def _final(tmp_path: Path) -> tuple[dict, str]:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "meeting.txt").write_text(MEETING, encoding="utf-8")
    args = ["run", str(corpus), "--out", str(out), "--type", "conversation", "--no-index", "--no-metrics", "-q"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    return read_node(node_path(out, "meeting.txt", 3, None))


def _action_lines(body: str) -> list[str]:
    section = body.split("**Action items**", 1)[1].split("\n\n**", 1)[0]
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


def test_an_addressed_owner_is_not_quoted(tmp_path: Path) -> None:
    meta, body = _final(tmp_path)
    lines = _action_lines(body)
    asked = [line for line in lines if "can you call the vendor" in line]
    assert len(asked) == 1
    assert asked[0].startswith("Luis Ortega: Priya, can you call the vendor by Friday?")
    assert "owner: Priya Shah" in asked[0] and "due: Friday" in asked[0]
    told = [line for line in lines if "delivery tracker" in line]
    assert told and told[0].startswith("Luis Ortega: ") and "owner: Tom Reyes" in told[0]
    # no line puts the sentences Luis said in an owner's mouth
    assert not [line for line in lines if line.startswith(("Priya Shah:", "Tom Reyes: Tom will"))]
    item = next(a for a in meta["action_items"] if "call the vendor" in a["task"])
    assert item["owner"] == "Priya Shah" and item["said_by"] == "Luis Ortega"


def test_an_owner_speaking_is_shown_as_speaking(tmp_path: Path) -> None:
    meta, body = _final(tmp_path)
    own = [line for line in _action_lines(body) if "revised budget" in line]
    assert own and own[0].startswith("Tom Reyes: I'll send the revised budget")
    assert "owner:" not in own[0]
    item = next(a for a in meta["action_items"] if "revised budget" in a["task"])
    assert "said_by" not in item
