"""Talk about the talk is no action item: a speaker presenting what they say next ("I'll now summarize ...",
"I will give more color on ...", "We will refer to ..."), handing the floor on ("I'll now pass on to Max")
and phatic lines; a task said beside them, or a summary that is then filed, still is one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from batchsum.cli import main

PRESENTING = [
    "I'll now summarize our third quarter results before turning the call over to Bob.",
    "I'll now turn over the call to Bob to discuss our outlook in more detail.",
    "I'm going to touch briefly on conditions in the third quarter and our expenses.",
    "I will give more color on our accomplishments while covering three themes.",
    "We will refer to Net Service Revenue, which excludes pass-through revenue.",
    "I'll now pass on to Max to discuss financial performance in more detail.",
    "We're going to pass the floor to Karen now, thank you.",
    "I will now hand the floor over to Karen Liu.",
]
TASKS = [
    "I'll send the updated guidance deck to the investors by Friday.",
    "I will summarise the points we discussed and put it in the project folder.",
]


def _final(tmp_path: Path, lines: list[str]) -> dict[str, Any]:
    corpus = tmp_path / "in"
    corpus.mkdir()
    speakers = ["Robert Ford", "Karen Liu"]
    text = "".join(f"{speakers[i % 2]}: {line}\n" for i, line in enumerate(lines))
    (corpus / "call.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    final = (out / "call.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return yaml.safe_load(final.split("---\n", 2)[1])


def test_presenting_and_handing_the_floor_on_are_no_action_items(tmp_path: Path) -> None:
    lines = [PRESENTING[0], "Sales increased 22% to $10.9 billion in the quarter.", *PRESENTING[1:], *TASKS]
    tasks = {a["task"] for a in _final(tmp_path, lines).get("action_items", [])}
    assert not tasks & set(PRESENTING)
    assert set(TASKS) <= tasks  # a task beside them, a summary that is filed
