"""A one-character CJK query against text indexed as bigrams ("一只狗很" is 一只, 只狗, 狗很): the character
counts as often as it is written, wherever in its run it stands, and the snippet shows the sentence writing it."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.postings import merged_postings
from batchsum.index.search import search

# 狗 written once in each: inside a run, last in one, first in one.
ONCE = {"inside.md": "一只狗很可爱。\n", "last.md": "我有一只狗。\n", "first.md": "狗很可爱。\n"}


def test_a_character_counts_once_for_each_time_it_is_written(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in ONCE.items():
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    with contextlib.closing(sqlite3.connect(out / ".batchsum" / "lexical-batchsum.sqlite3")) as db:
        names = dict(db.execute("SELECT dkey, doc_id FROM lex_docs"))
        counts = {names[d]: int(sum(tfs)) for d, _, tfs in merged_postings(db, ["狗"], None, None)}
    mine = {name: counts.get(name) for name in ONCE}
    assert len(set(mine.values())) == 1 and None not in mine.values(), counts


def test_the_snippet_of_a_one_character_query_writes_it(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "b.md").write_text("我的狗。\n\n他喜欢猫。\n", encoding="utf-8")
    (src / "c.md").write_text("I went to the market with Ana and bought apples.\n", encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    hits = search(RunConfig(paths=[], out=out), "猫", k=3)
    assert hits and hits[0].source_path == "b.md", [h.source_path for h in hits]
    assert "猫" in hits[0].snippet and "猫" in hits[0].terms, (hits[0].snippet, hits[0].terms)
