"""A note's struck words ("~~old~~") and HTML comments are no text, but in its code, which says what it says
(a fenced or indented block, an inline span); one remover of HTML comments serves the reader and the
summarizer's Markdown view, each opener looked at once; a run of blanks before "~~" is tried once."""

from __future__ import annotations

from pathlib import Path

from batchsum.backends.noise import markdown_as_text
from batchsum.index.search import search
from batchsum.readers.note_syntax import draft_marks_blanked, note_syntax_as_text, without_html_comments
from batchsum.tree import read_node
from tests.test_snippet_code_fences import _run

CODE_NOTE = (
    "# Parser notes\n\n"
    "The ~~regex~~ tokenizer now keeps quoted marks. <!-- private: ask Ana -->\n\n"
    "```js\nlet s = '~~zanzibar~~';\n```\n\n"
    "```html\n<!-- header -->\n<p>x</p>\n```\n\n"
    "Both snippets are from the fixture.\n"
)


def test_code_keeps_its_struck_words_and_comments(tmp_path: Path) -> None:
    """A kept-whole note shows its code as written; its prose loses its struck word and its comment; the
    index finds a word struck only inside code."""
    cfg = _run(tmp_path, "parser.md", CODE_NOTE)
    _, body = read_node(next((cfg.out / "parser.md").rglob("final.md")))
    assert "let s = '~~zanzibar~~';" in body and "<!-- header -->\n<p>x</p>" in body
    assert "regex" not in body and "ask Ana" not in body and "The tokenizer now keeps" in body
    assert search(cfg, "zanzibar", k=1)


def test_indented_code_keeps_its_marks() -> None:
    text = "Intro.\n\n    let s = \"<!-- x -->\" + '~~y~~';\n\nB ~~c~~ d <!-- e -->\n"
    for shown in (note_syntax_as_text(text), draft_marks_blanked(text)):
        assert "    let s = \"<!-- x -->\" + '~~y~~';" in shown and "c" not in shown.split("\n")[-2]
    assert "e -->" not in note_syntax_as_text(text)


def test_one_comment_remover_for_reader_and_summarizer() -> None:
    """A comment holding inline code is one comment, in the reader's view as in the summarizer's Markdown;
    one that opens in inline code is code."""
    text = "Ship it <!-- after `make check` passes --> on Friday.\n"
    for shown in (note_syntax_as_text(text), markdown_as_text(text), without_html_comments(text)):
        assert "make" not in shown and "<!--" not in shown and "Ship it" in shown and "on Friday." in shown
    quoted = "Type `<!--` to open one. -->\n"
    assert without_html_comments(quoted) == quoted


def test_unclosed_openers_and_blank_runs_read_in_one_pass() -> None:
    """A megabyte of unclosed "<!--" (each had been scanned to the text's end) or of spaces before "~~"
    (each space had been a start) reads as it is, its struck word gone."""
    openers = "Type <!-- to open a comment\n" * 40_000
    assert note_syntax_as_text(openers) == openers
    spaces = " " * 1_000_000 + "\nA ~~b~~ c\n"
    assert note_syntax_as_text(spaces).endswith("\nA c\n")
    blanked = draft_marks_blanked(spaces)
    assert len(blanked) == len(spaces) and "b" not in blanked


def test_a_comment_inside_a_line_leaves_no_space_before_punctuation(tmp_path: Path) -> None:
    """A comment before a closing mark goes with the blanks before it; one between words leaves one space
    (review s8 cr3)."""
    for text in (
        "Done <!-- hide -->.",
        "Paid the rent<!-- x -->. Then",
        "- [ ] Pay rent <!-- x -->\n",
        "(<!-- x --> a)",
    ):
        shown = note_syntax_as_text(text)
        assert not any(f"{c}{m}" in shown for c in " \t" for m in ".)\n") and "( " not in shown, shown
    for text in ("a<!--x-->b", "a <!--x--> b", "a<!--\nx --> b"):
        assert without_html_comments(text) == "a b"
    note = "Paid the rent<!-- private: due soon -->. Then I called Ana about the trip.\n"
    cfg = _run(tmp_path, "note.md", note)
    _, body = read_node(next((cfg.out / "note.md").rglob("final.md")))
    assert "Paid the rent. Then I called Ana" in body and "rent ." not in body, body
