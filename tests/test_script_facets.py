"""A play's or a screenplay's structure is no source of facets: "SCENE 1" labels a part of the text (as "Slide
4" does), a scene heading ("INT. DINER - NIGHT"), bold or plain, is layout, a speaker in capitals is a
participant; a character's forecast ("We'll have a gale before midnight") is no action item, and a "we will"
that is one is its speaker's. Real runs, and the rules on single sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.facets import extract_facets
from batchsum.tree import parse_markdown

PLAY = (
    "ACT ONE\n\nSCENE 1\n\nA kitchen in Porthkennack. Night.\n\n"
    "AGNES: The glass is falling fast. We'll have a gale before midnight, Father.\n"
    "SAMUEL: Then the Marigold won't make harbour tonight unless the light is kept.\n"
    "AGNES: You say that as though it were a comfort to you.\n\n"
    "SCENE 2\n\nThe lamp room. Dawn.\n\n"
    "THOMAS: The inspector from Trinity House is in the village with a letter.\n"
    "THOMAS: Agnes, come to Falmouth with me when the Marigold is in.\n"
)
SCREENPLAY = (
    "**INT. DINER - NIGHT**\n\nA chrome diner lit by one buzzing sign. ROSA wipes the counter.\n\n"
    "ROSA\nKitchen's closed. Coffee's not.\n\nJONAH\nCoffee, then. And the road to Millbrook.\n\n"
    "ROSA\n(pouring)\nThere is no road to Millbrook. Not since the dam was built.\n\n"
    "JONAH\nMy brother wrote to me from Millbrook last week.\n\n"
    "ROSA\nThen your brother is writing from the bottom of a lake.\n\n"
    "**EXT. DINER - NIGHT**\n\nJonah walks out into the rain.\n"
)


def _front(tmp_path: Path, name: str, text: str) -> dict:
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
    assert r.exit_code == 0, r.output
    meta, _ = parse_markdown((out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8"))
    return meta


def test_a_plays_scene_labels_are_no_entities_and_a_forecast_no_action_item(tmp_path: Path) -> None:
    meta = _front(tmp_path, "play.txt", PLAY)
    assert "Marigold" in meta["entities"]
    assert not {"SCENE", "ACT"} & set(meta["entities"]), meta["entities"]
    assert not any("gale" in a["task"] for a in meta.get("action_items", [])), meta


def test_a_bold_scene_heading_and_a_speaker_in_capitals_are_no_entities(tmp_path: Path) -> None:
    meta = _front(tmp_path, "scene.md", SCREENPLAY)
    assert set(meta["participants"]) == {"ROSA", "JONAH"}
    assert "Millbrook" in meta["entities"]
    assert not {"NIGHT", "INT", "EXT", "DINER", "ROSA"} & set(meta["entities"]), meta["entities"]


@pytest.mark.parametrize(
    "sentence",
    [
        "We'll have a gale before midnight, Father.",
        "We'll get rain before noon tomorrow.",
        "We'll have time to overhaul the blasters before Friday.",
    ],
)
def test_what_comes_to_the_speakers_is_no_action_item(sentence: str) -> None:
    assert extract_facets(f"AGNES: The glass is falling fast. {sentence}\n").action_items == []


@pytest.mark.parametrize(
    "sentence",
    [
        "We'll have the draft ready by Friday.",
        "I'll have the test plan by September 12.",
        "I'll have an answer for you by Friday.",
        "I'll get a quote from Northwind by Wednesday.",
        "We will be sending the signed contract to Ben tomorrow.",
    ],
)
def test_a_piece_of_work_had_or_got_is_an_action_item_its_speakers(sentence: str) -> None:
    items = extract_facets(f"AGNES: The glass is falling fast. {sentence}\n").action_items
    assert [(a.task, a.owner) for a in items] == [(sentence, "AGNES")]
