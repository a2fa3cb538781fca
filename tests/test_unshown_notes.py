"""What a note app's page never shows (Obsidian's ``%%`` comments, Logseq's and Dataview's queries) is no
evidence for search and no snippet: a private aside had found its note at 1.000."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.index.passages import tokenize, visible_markdown
from batchsum.index.search import search
from batchsum.index.snippets import markdown_window, node_body
from batchsum.index.unshown import unshown_note_marks

NOTE = (
    "# Plans\n\nWe will meet the supplier on Monday to review the contract terms.\n"
    "%% my private thought: the supplier is lying about the price %%\n"
)
BLOCK = (
    "# Garden\n\nThe garden needs water.\n\n%%\nThe landlord hides a cellar.\n\n"
    "Still hidden: the cellar key.\n%%\n\nTomatoes ripen in August.\n"
)


def _words(text: str) -> set[str]:
    return set(tokenize(text, "en"))


def test_comments_inline_and_in_blocks_are_blanked_offsets_kept() -> None:
    for page in (NOTE, BLOCK):
        shown = visible_markdown(page)
        assert len(shown) == len(page) and shown.count("\n") == page.count("\n")
        assert "%%" not in shown
    assert {"lie", "price", "privat"}.isdisjoint(_words(visible_markdown(NOTE)))
    assert {"supplier", "contract"} <= _words(visible_markdown(NOTE))
    assert {"landlord", "cellar"}.isdisjoint(_words(visible_markdown(BLOCK)))
    assert {"garden", "tomato"} <= _words(visible_markdown(BLOCK))


def test_what_is_no_comment_stays() -> None:
    """Jupyter's magics, printf's "%%", a "%%" in inline code and an unclosed "%%" are shown as they are."""
    for text in (
        "%%timeit\nx = sum(range(10))\n%%bash\necho hi\n",
        "printf('%d%%', 50) prints 50% and `%%` marks a comment.\n",
        "Growth was 5%% this year.\n",
        "An unclosed %% aside stays\n",
        "%%\nAn opener alone stays when nothing closes it.\n",
    ):
        assert unshown_note_marks(text) == text, text
    # A comment opened inside a line ends in its paragraph: it never pairs with a "%%" after a blank line.
    text = "Costs %% rose\n\nby half %% overall.\n"
    assert unshown_note_marks(text) == text


def test_queries_and_block_ids_are_blanked_what_a_page_shows_is_kept() -> None:
    page = (
        "- Project kickoff with Ana\n  id:: 6512bd43-d9ca-4b4b-a6ef-0123456789ab\n  type:: decision\n"
        "- {{query (and [[budget]] (task TODO))}}\n"
        '#+BEGIN_QUERY\n{:title "Overdue invoices" :query [:find (pull ?b [*])]}\n#+END_QUERY\n'
        '```dataview\nTABLE rating FROM #books WHERE author = "Herbert"\n```\n'
        "Rated `= this.rating` stars; see ((6512bd43-d9ca-4b4b-a6ef-0123456789ab)).\n"
        "```python\nprint('shown code')\n```\n"
    )
    shown = unshown_note_marks(page)
    assert len(shown) == len(page) and shown.count("\n") == page.count("\n")
    words = _words(shown)
    assert {"invoic", "overdu", "herbert", "budget", "6512bd43"}.isdisjoint(words), words
    assert {"project", "kickoff", "ana", "decis", "print", "shown", "code", "star"} <= words, words


def test_a_snippet_shows_no_comment() -> None:
    """A kept-whole note is its own summary: its snippet, and a source window starting inside a comment
    block, show none of the comment."""
    assert "cellar" not in node_body(BLOCK) and "Tomatoes" in node_body(BLOCK)
    start = BLOCK.index("Still hidden")
    assert "cellar" not in markdown_window(BLOCK, start, len(BLOCK))


def test_a_search_finds_no_note_by_its_comment(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "note.md").write_text(NOTE, encoding="utf-8")
    (src / "garden.md").write_text(BLOCK, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    cfg = RunConfig(paths=[], out=out)
    for query, words in (("lying price", ("lying", "price")), ("landlord cellar", ("landlord", "cellar"))):
        for hit in search(cfg, query, k=3):
            assert hit.score < 0.5, (query, hit)  # no lexical evidence: the dense channel's score alone
            assert not any(w in hit.snippet.lower() for w in words), (query, hit.snippet)
    assert search(cfg, "supplier contract", k=1)[0].source_path == "note.md"


def test_a_summary_quotes_no_comment_block_that_holds_blank_lines(tmp_path: Path) -> None:
    # The summarizer reads the page as the index does: a block between "%%" lines is hidden, blank lines and all.
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    visible = " ".join(f"The harbour crew painted buoy {i} and logged its battery at noon." for i in range(12))
    secret = "\n\n".join(f"My private doubt number {i} about the supplier pricing." for i in range(6))
    (src / "note.md").write_text(
        f"# Log\n\n{visible}\n\n%%\n{secret}\n%%\n\nThe tide turned at four.\n", encoding="utf-8"
    )
    assert CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"]).exit_code == 0
    final = (out / "note.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "buoy" in final and "private" not in final and "supplier" not in final


def test_drawers_are_blanked_as_the_summarizer_leaves_them_out() -> None:
    note = (
        "- TODO Book Anna Berg for a second session\n  :PROPERTIES:\n  :CONTACT: anna.berg@example.org\n"
        "  :END:\n- The museum licensed six photographs.\n"
    )
    shown = unshown_note_marks(note)
    assert len(shown) == len(note) and "anna.berg" not in shown and ":END:" not in shown
    assert "Book Anna Berg" in shown and "museum" in shown
    prose = "Ratio: 3 to 1.\n:Note: this stays.\n"  # a colon word in prose is no drawer
    assert unshown_note_marks(prose) == prose
