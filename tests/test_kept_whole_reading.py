"""A file kept whole (level NONE) reads as the summarizer reads its kind (issue #28): a conversation's
turns cleaned of tokenizer spacing and speaker marks like a summarized one's, a note as written; and the
conversation's node key names the reading's version, so a tree written before is redone once."""

from __future__ import annotations

import re
from pathlib import Path

import batchsum
from batchsum.engine.changes import NODE_FORMAT
from batchsum.state import node_key

DIALOGUE = (
    "#Person1#: Cigarette? \n"
    "#Person2#: Oh, uh. . . Thanks. Henry, do you have a light? \n"
    "#Person1#: I'll stand in with you if you like. I'Ve got nothing else to do.\n"
    "#Person2#: We offer a reduction of 50 % and comes to $ 10.\n"
)
NOTE = "Buy oat milk , two lemons . . . and  the bread.\n"


def _final(out: Path, name: str) -> tuple[dict[str, str], str]:
    """The front matter's plain fields and the body of the final of ``name``."""
    text = next((out / name).glob("summaries/*/final.md")).read_text(encoding="utf-8")
    _, head, body = text.split("---\n", 2)
    fields = dict(re.findall(r"^(\w+): \"?([^\"\n]*)\"?$", head, re.M))
    return fields, body.split("<!-- batchsum:links -->")[0].split("## Facets")[0].strip("\n")


def test_a_short_dialogue_kept_whole_reads_as_a_summarized_one(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "dialogue.txt").write_text(DIALOGUE, encoding="utf-8")
    (src / "note.md").write_text(NOTE, encoding="utf-8")
    batchsum.run([src], out=out, index=False, metrics=False)

    fields, body = _final(out, "dialogue.txt")
    assert fields["summary_level"] == "NONE"
    lines = body.split("\n")
    assert len(lines) == 4 and all(re.match(r"Person[12]: \S", line) for line in lines), lines
    assert not re.search(r"#|\. \.| [%,.?]|\$ |'Ve|[ \t]$", body, re.M), body
    assert node_key(NODE_FORMAT, "source", fields["source_sha256"]) != fields["node_key"]

    fields, body = _final(out, "note.md")
    assert body == NOTE.strip()  # a note keeps its text as written (spacing and all)
    assert node_key(NODE_FORMAT, "source", fields["source_sha256"]) == fields["node_key"]


def test_a_note_kept_whole_has_one_front_matter(tmp_path: Path) -> None:
    """The note's own front matter is no part of its final's body: the final's front matter holds its date,
    and a second "---" block renders as a rule over a heading of its keys ("date: 2022-07-02 mood: great")."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    note = "---\ndate: 2022-07-02\nmood: great\n---\n# Saturday\n\nRan my first half marathon in Bristol.\n"
    (src / "2022-07-02.md").write_text(note, encoding="utf-8")
    (src / "plain.md").write_text("Ran my first half marathon.\n\n---\n\nmood: great\n", encoding="utf-8")
    batchsum.run([src], out=out, index=False, metrics=False)
    fields, body = _final(out, "2022-07-02.md")
    assert fields["kept_whole"] == "true" and fields["doc_date"] == "2022-07-02"
    assert body.startswith("# Saturday") and "mood" not in body and "---" not in body
    _, body = _final(out, "plain.md")
    assert body == "Ran my first half marathon.\n\n---\n\nmood: great"  # a rule inside a note stays as written
