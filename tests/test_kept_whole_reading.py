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
