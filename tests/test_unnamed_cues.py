"""A subtitle cue without a name prefix after a named one is the same voice going on: the final gives
each of its lines a speaker (docs/run.md), and a task said in the unnamed cue is the named speaker's."""

from __future__ import annotations

from pathlib import Path

from tests.one_final import final_node

_VTT = (
    "WEBVTT\n\n"
    "1\n00:00:01.000 --> 00:00:04.000\nAda Lind: We need two more testers before the launch.\n\n"
    "2\n00:00:04.500 --> 00:00:08.000\nBo Kim: I'll write the posting for the tester role by Tuesday.\n\n"
    "3\n00:00:08.000 --> 00:00:11.000\nand I'll ask the agency about a contractor.\n\n"
    "4\n00:00:11.500 --> 00:00:14.000\nAda Lind: Good. Remote is fine for both.\n"
)


def _body_lines(summary: str) -> list[str]:
    return [ln for ln in summary.split("## Facets")[0].splitlines() if ln.strip()]


def test_an_unnamed_cue_continues_the_named_speakers_turn(tmp_path: Path) -> None:
    meta, summary = final_node(tmp_path, "call.vtt", _VTT)
    lines = _body_lines(summary)
    assert lines and all(ln.startswith(("Ada Lind: ", "Bo Kim: ")) for ln in lines), lines
    said = next(ln for ln in lines if "agency" in ln)
    assert said.startswith("Bo Kim: ")
    owners = {item["task"]: item.get("owner") for item in meta.get("action_items", [])}
    assert all(owner == "Bo Kim" for task, owner in owners.items() if "agency" in task)


def test_a_dash_cue_after_a_named_one_is_still_a_new_voice(tmp_path: Path) -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nAda Lind: Is the launch still on Friday?\n\n"
        "00:00:04.500 --> 00:00:08.000\n- It moved to Monday.\n"
    )
    _, summary = final_node(tmp_path, "call.vtt", vtt)
    moved = next(ln for ln in _body_lines(summary) if "Monday" in ln)
    assert not moved.startswith("Ada Lind")
