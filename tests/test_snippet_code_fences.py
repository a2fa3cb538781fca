"""A book chapter's code blocks and mdBook's directives in search: a fence repeated page after page is no running
head (its block's code had been read as prose, the sentence before it lost from the snippet), and an
``{{#include ...}}`` is no word of the page (the rendered page shows the included file, never the directive)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.index.lexical import query_tokens
from batchsum.index.passages import tokenize, visible_markdown
from batchsum.index.search import search
from batchsum.index.snippets import make_snippet, markdown_window


def _block(name: str) -> str:
    return f"```rust\n{{{{#rustdoc_include ../listings/{name}/src/main.rs:here}}}}\n```\n\n"


CHAPTER = (
    "## Storing Keys with Associated Values\n\n"
    "The last of our common collections is the hash map, which stores a mapping of keys to values.\n"
    "Many programming languages support this kind of data structure under another name.\n\n"
    + _block("listing-08-19")
    + "Hash maps are useful when you want to look up data by a key rather than by an index.\n\n"
    + _block("listing-08-20")
    + "We keep track of the scores of two teams whose names are Blue and Yellow. The Blue team starts\n"
    "with 10 points, and the Yellow team starts with 50.\n\n"
    + _block("listing-08-21")
    + "Note that we need to first use the map from the collections portion of the standard library.\n"
    + "".join(
        f"\nParagraph {i} of the chapter talks about ownership of keys and values in general.\n" for i in range(12)
    )
)


def _run(tmp_path: Path, name: str, text: str) -> RunConfig:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return RunConfig(paths=[], out=out)


def test_repeated_code_fences_are_no_running_heads(tmp_path: Path) -> None:
    """The sentence before the third ``` block is the snippet of its own words, and no code is."""
    window = markdown_window(CHAPTER, CHAPTER.index("We keep track"), CHAPTER.index("Note that"))
    assert "rustdoc_include" not in window and "```" not in window
    cfg = _run(tmp_path, "hash-maps.md", CHAPTER)
    hit = search(cfg, "starts with 10 points", k=1)[0]
    assert hit.snippet_from == "source"
    assert {"starts", "10", "points"} <= {t.lower() for t in hit.terms}
    assert "Blue team starts" in hit.snippet and "{{" not in hit.snippet


def test_a_window_cut_in_a_code_block_keeps_the_sentence_before_it() -> None:
    """A source passage's window that ends inside a code block ends with a whole paragraph: its last sentence is
    no piece of one (it had been dropped as cut, and the passage showed no sentence with the query's words)."""
    start, end = CHAPTER.index("Hash maps are useful"), CHAPTER.index("listing-08-21")
    window = markdown_window(CHAPTER, start, end)
    snippet, found = make_snippet(window, query_tokens("starts with 10 points"), cut_start=True, cut_end=True)
    assert "Blue team starts" in snippet and {"starts", "10", "points"} <= {w.lower() for w in found}
    # A window cut inside a paragraph still drops its last piece: it is likely half a sentence.
    window = markdown_window(CHAPTER, start, CHAPTER.index("Yellow team starts with 50"))
    assert "points" not in make_snippet(window, query_tokens("10 points"), cut_start=True, cut_end=True)[0]


PLAYGROUND = "{{#playground ../listings/ch10/no-listing-02/src/main.rs editable}}\n\n"


def test_mdbook_directives_are_no_words(tmp_path: Path) -> None:
    """An include path's words ("listing", "10", "14", "default", "impl") find no page that only includes them."""
    page = (
        "# Traits\n\nA trait defines functionality a type has and can share with other types.\n\n"
        "```rust\n{{#include ../listings/listing-10-14/src/default-impl.rs:here}}\n```\n\n"
        + PLAYGROUND
        + "Trait bounds say that a generic type can be any type that has certain behavior.\n"
    )
    shown = visible_markdown(page)
    assert len(shown) == len(page) and shown.count("\n") == page.count("\n")
    assert {"listing", "14", "impl", "default", "playground", "editabl"}.isdisjoint(tokenize(shown, "en"))
    assert {"trait", "behavior"} <= set(tokenize(shown, "en"))
    window = markdown_window(page, 0, len(page))
    assert "{{" not in window and "Trait bounds say" in window
    # Only the fenced include: the run's summary keeps a "{{#playground ...}}" line, its "#" read as a note's tag
    # (batchsum.backends.noise's reading, not the index's).
    cfg = _run(tmp_path, "traits.md", page.replace(PLAYGROUND, ""))
    # By meaning alone it may still come up, with none of the query's words: no lexical evidence.
    for hit in search(cfg, "listing 10-14 default impl", k=3):
        assert not hit.terms and "{{" not in hit.snippet and hit.relevance < 0.5
