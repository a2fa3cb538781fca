"""A deck's slide titles over their "- " items (no form feeds between slides): a title labels its items,
no item is read as a heading, and no list marker runs on inside a BRIEF final's line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node


def _run(corpus: Path, out: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"]


def _final(out: Path, rel: str) -> str:
    return read_node(node_path(out, rel, 3, None))[1].split("<!-- batchsum:links -->")[0].strip()


SLIDE_TITLES = ["Ownership Rules", "Borrowing", "Slices", "The Stack and the Heap", "Move Semantics", "Copy Types"]
SLIDE_ITEMS = [
    [
        "Each value in Rust has an owner",
        "There can only be one owner at a time",
        "When the owner goes out of scope the value is dropped",
    ],
    [
        "References borrow a value without taking ownership",
        "Any number of immutable references or exactly one mutable reference",
        "References must always be valid",
    ],
    [
        "A slice references a contiguous sequence of elements",
        "String slices are written &str",
        "Slices keep the borrow checker happy",
    ],
    [
        "Stack data has a known fixed size",
        "Heap allocation returns a pointer",
        "Pushing to the stack is faster than allocating on the heap",
    ],
    [
        "Assigning a String moves it",
        "The original variable is no longer valid after a move",
        "Use clone for an explicit deep copy",
    ],
    ["Integers, booleans and chars implement Copy", "Tuples of Copy types are Copy", "A type with Drop cannot be Copy"],
]


def test_deck_titles_label_their_items_in_a_brief_line(tmp_path: Path) -> None:
    # A deck without form feeds: a running header, the slide's number, its title, its "- " items, a footer.
    slides = [
        f"CS 3110 Systems Programming in Rust | Week 4\nSlide {n}\n{title}\n"
        + "\n".join(f"- {item}" for item in items)
        + f"\nPage {n} of {len(SLIDE_TITLES)}"
        for n, (title, items) in enumerate(zip(SLIDE_TITLES, SLIDE_ITEMS, strict=True), 1)
    ]
    corpus = tmp_path / "slides"
    corpus.mkdir()
    (corpus / "week04.txt").write_text("\n\n".join(slides) + "\n")
    out = tmp_path / "out"
    _run(corpus, out)
    body = _final(out, "week04.txt")
    assert "\n" not in body and body, body  # a BRIEF final: one line
    assert not re.search(r"(?:^|\s)-\s", body), body  # no item's marker inside the line
    for title in SLIDE_TITLES:
        assert f"{title}." not in body, body  # a slide's title labels its items, never a sentence of its own
