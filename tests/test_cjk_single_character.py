"""A one-character CJK query finds the texts that write the character inside a longer run: CJK text is indexed
as bigrams ("一只狗跟" is 一只, 只狗, 狗跟), and "狗" reaches the bigrams that hold it; a character no text
writes still finds nothing."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

DIARY = "今天我去公园散步。一只狗跟着我走了很久。我给狗买了面包。\n"
OTHER = "下午和张伟在咖啡店讨论了新的应用。我们决定先做原型。\n"


def test_a_single_cjk_character_finds_the_text_that_writes_it(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "diary.txt").write_text(DIARY, encoding="utf-8")
    (src / "work.txt").write_text(OTHER, encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    cfg = RunConfig(paths=[], out=out)
    hits = search(cfg, "狗", k=3)
    assert hits and hits[0].source_path == "diary.txt", [(h.source_path, h.score) for h in hits]
    assert all(h.source_path != "work.txt" for h in hits), [(h.source_path, h.score) for h in hits]
    assert not search(cfg, "猫", k=3)  # written nowhere
