"""A chat copied with a 12-hour clock before each turn ("[9:02 AM] Anna Berg: ...", "9:02am", "9:02 p.m.")
reads as a conversation, as one stamped "[09:02]" does, and its turns are shown without the stamp."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from batchsum.speaker_labels import parse_speaker_line
from tests.one_final import final_node

TURNS = [
    ("Anna Berg", "morning all, quick sync on the billing migration"),
    ("Rahul Mehta", "I'll finish the schema diff by Tuesday"),
    ("Anna Berg", "great. we're going with Postgres 16 for the new cluster, decided with infra yesterday"),
    ("Carlos Diaz", "sure, I'll ask Stripe support for their retry policy by Thursday"),
    ("Anna Berg", "I will write the rollback runbook by next Friday"),
]


@pytest.mark.parametrize("clock", ["[9:0{} AM]", "[9:0{} PM] -", "9:0{}am", "(9:0{} p.m.)"])
def test_a_twelve_hour_clock_before_each_turn_makes_a_conversation(tmp_path: Path, clock: str) -> None:
    text = "".join(f"{clock.format(k)} {name}: {said}\n" for k, (name, said) in enumerate(TURNS, 2))
    meta, body = final_node(tmp_path, "notes/slack-eng-2026-11-20.txt", text)
    assert meta["content_type"] == "conversation", meta.get("content_type_reason")
    assert set(meta.get("participants", [])) == {"Anna Berg", "Rahul Mehta", "Carlos Diaz"}, meta
    assert meta.get("action_items"), meta
    lines = [line for line in body.split("\n\n")[0].splitlines() if line.strip()]
    assert lines and all(line.split(": ", 1)[0] in {n for n, _ in TURNS} for line in lines), body
    assert not re.search(r"\d:\d\d|\b[AaPp]\.?[Mm]\b", body), body


def test_a_name_after_a_clock_is_no_am_or_pm() -> None:
    # "Amy" starts with "Am": the clock's "am" is a word of its own, so Amy stays the speaker.
    assert parse_speaker_line("10:30 Amy: see you at noon") == ("Amy", "see you at noon")
    assert parse_speaker_line("[10:30 am] Amy: see you at noon") == ("Amy", "see you at noon")
