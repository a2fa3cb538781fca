"""A query word reaches its -ion sibling's stem ("decision": "decis", and "decid" of "decided"), but the text
holding the word's own stem is its match first: the note tagged "#decision" had ranked last for "#decision",
below "decided" and "decidedly", which the embedder reads as closer."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

NOTES = {
    "a.md": "We agreed to replace the tide gauge at pier four before the April storms. #decision\n",
    "b.md": "Her face was decidedly plain, but her singing was lovely and the whole room listened.\n",
    "c.md": "We decided to postpone the network upgrade until June.\n",
}


def test_the_words_own_stem_ranks_before_its_siblings(tmp_path: Path) -> None:
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    for name, text in NOTES.items():
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for query in ("#decision", "decision"):
        order = [h.source_path for h in search(cfg, query, k=3)]
        assert order[0] == "a.md", (query, order)
        assert set(order[1:]) == {"b.md", "c.md"}, (query, order)  # the siblings stay hits
    # The other way round too: "decided" finds the texts of its own stem first.
    order = [h.source_path for h in search(cfg, "decided", k=3)]
    assert order[-1] == "a.md", order
