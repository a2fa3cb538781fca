"""A hit found by words that stand only in a table row of its source shows that row, its cells as text: the words
shown explain the match (they had been none, the snippet the summary's opening). Real run, real index."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import IndexConfig, RunConfig
from batchsum.index.search import search

APPENDIX = """# Appendix B: Operators and Symbols

This appendix contains a glossary of the syntax, including operators and other symbols that appear by
themselves or in the context of paths, generics and macros.

Table B-8 shows the symbols that create comments.

| Symbol     | Explanation             |
|------------|-------------------------|
| `//`       | Line comment            |
| `/*...*/`  | Block comment           |

Table B-9 shows the contexts in which parentheses are used, and the next table the square brackets.
"""


def test_a_match_in_a_table_row_shows_the_row(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "appendix.md").write_text(APPENDIX, encoding="utf-8")
    (corpus / "walk.md").write_text("We walked to the harbour and watched the ferries come in.\n", encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    hits = search(IndexConfig(out=out), "blocked", k=3, warn=False)
    assert hits and hits[0].source_path == "appendix.md"
    assert [t.lower() for t in hits[0].terms] == ["block"], (hits[0].terms, hits[0].snippet)
    assert "Block comment" in hits[0].snippet and not hits[0].snippet.startswith("|"), hits[0].snippet
    assert "---" not in hits[0].snippet and hits[0].snippet_from == "source"
