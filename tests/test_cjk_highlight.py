"""Highlighting in CJK text marks a word whole ("星巴克", not its first bigram "星巴"), and a Latin word
written inside CJK text is found and marked as itself ("API" in "ChatGPT的API太贵了", whose whole run had
been the term found, never marked)."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search
from batchsum.index.snippets import highlight

ENTRY = (
    "---\ndate: 2024-05-03\n---\n下午和张伟在星巴克讨论了新的应用。他说ChatGPT的API太贵了，我们决定先用Ollama做原型。\n"
)


def _mark(text: str) -> str:
    return f"[{text}]"


def test_cjk_words_and_latin_words_in_cjk_text_are_highlighted_whole(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2024-05-03.md").write_text(ENTRY, encoding="utf-8")
    (src / "2024-05-04.md").write_text("今天在家休息，读了一本书。\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for query, word in (("星巴克", "星巴克"), ("API", "API"), ("Ollama", "Ollama")):
        hits = search(cfg, query, k=1)
        assert hits and hits[0].source_path == "2024-05-03.md", query
        shown = highlight(hits[0].snippet, hits[0].terms, _mark)
        assert f"[{word}]" in shown, (query, hits[0].terms, shown)
        assert all(len(t) <= len(word) for t in hits[0].terms), (query, hits[0].terms)
    # Not a part of a longer Latin word.
    assert highlight("the capital API", ["api"], _mark) == "the capital [API]"
