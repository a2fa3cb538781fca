"""How text is read before it is summarized (a new user's review): hard-wrapped prose keeps every line, an
Obsidian callout's body and a blockquote's code read as the page shows them, a contents list, a sentence
that leads into lost code and broken front matter are never summary text."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.extractive import summarize_text
from batchsum.backends.noise import contents_lines, in_a_sentence, is_heading, line_kind, markdown_as_text
from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.index.snippets import node_body
from batchsum.readers.note_syntax import front_matter_problem, note_syntax_as_text
from batchsum.text import split_sentences
from batchsum.tokens import get_tokenizer

# A journal entry hard-wrapped by hand, and Scott's journal set to a page's width (June 11, 1826).
EARLY = "We went home early. A long\nday of meetings had worn me out completely and I was asleep by nine.\n"
SCOTT = (
    "The attendance on the Committee, and afterwards the general\n"
    "meeting of the Oil Gas Company took up my morning, and the rest dribbled\n"
    "away in correcting proofs and trifling; reading, among the rest, an odd\n"
    "volume of *Vivian Grey*; clever, but not so much so as to make me,\n"
    "in this sultry weather, go up-stairs to the drawing-room to seek the\n"
    "other volumes. Made a blunder,--went to Ravelston on the wrong day. This\n"
    "Anne's fault, but I did not reproach her, knowing it might as well have been my own.\n"
)


def _texts(text: str, content_type: str = "document") -> list[str]:
    return [u.text for u in units_from_text(text, content_type)]  # type: ignore[arg-type]


def test_a_wrapped_line_of_prose_is_no_heading() -> None:
    assert _texts(EARLY, "journal") == [
        "We went home early.",
        "A long day of meetings had worn me out completely and I was asleep by nine.",
    ]
    units = units_from_text(SCOTT, "journal")
    assert units[0].text.endswith(
        "reading, among the rest, an odd volume of *Vivian Grey*; clever, but not so much so as to make me, "
        "in this sultry weather, go up-stairs to the drawing-room to seek the other volumes."
    )
    assert all(u.candidate for u in units) and not any(u.text.endswith("an odd.") for u in units)
    # Every word of the entry is in its units: nothing is dropped as a heading.
    assert sum(len(u.text.split()) for u in units) == len(SCOTT.split())


def test_what_makes_a_heading() -> None:
    # A chapter's line is capitalised and numbered; prose that opens with its word is not one.
    assert line_kind("Chapter XIII") == "heading" and line_kind("BOOK 2") == "heading"
    assert line_kind("Letter Seven") == "heading"
    for prose in ("volume of *Vivian Grey*; clever, but", "Part of the reason was", "letter referred to"):
        assert line_kind(prose) != "heading", prose
    # A Roman numeral alone is a heading, a word made of its letters ("did", "civil") is not.
    assert line_kind("XIV.") == "heading" and line_kind("did") != "heading" and line_kind("civil.") != "heading"
    # "#42" opening a wrapped line is no Markdown heading.
    assert line_kind("## Results") == "heading" and line_kind("#42 was fixed on Monday.") is None
    # A short line above prose is a heading unless it is part of a sentence.
    assert is_heading("Background", None, "We studied the tides of the harbour for two years.")
    assert not is_heading("We went home early. A long", None, "day of meetings had worn me out completely.")
    assert not is_heading("Yesterday we drove to the", None, "coast and walked along the cliffs all day.")
    assert not is_heading("Then we all went back to", None, None)  # it ends on a word that leads on
    # In a lower-cased text (a scraped paper) a heading's next line opens in lower case too.
    assert is_heading("statistical analysis", None, "recall scores were compared with a t test.", cased=False)
    # The previous line runs on into it: no heading, whatever its shape.
    assert in_a_sentence("PART TWO", "the money was paid in", "and then we left.")
    assert not in_a_sentence("PART TWO", "The money was paid.", "We left.")
    # An editor's dateline set in italics alone on its line stays a heading.
    assert is_heading("_If I live. February 23. Nicholskoe._", None, None)


def test_a_numbered_paragraph_wrapped_without_an_indent_is_one_paragraph() -> None:
    text = (
        "10. To-day I dined with Mr. Stratford at Mr. Addison's retirement near\n"
        "Chelsea; then came to town; got home early, and began a letter to the\n"
        'Tatler, about the corruptions of style. This was the playhouse "the great king"\n'
        "placed at the disposal of Moliere.\n"
    )
    sentences = [s.text.replace("\n", " ") for s in split_sentences(text)]
    assert sentences[-1] == 'This was the playhouse "the great king" placed at the disposal of Moliere.', sentences
    assert any(
        s.endswith(
            "retirement near Chelsea; then came to town; got home early, and began a letter to "
            "the Tatler, about the corruptions of style."
        )
        for s in sentences
    ), sentences
    # A bullet's wrapped rest is indented in Markdown: a capitalised line after it is a paragraph.
    items = "- Function-like macros that look like function calls\nThen a paragraph."
    assert [s.text for s in split_sentences(items)][-1] == "Then a paragraph."


def test_a_callouts_body_reads_as_text() -> None:
    note = "Anna is a bookbinder.\n\n> [!tip] Gift idea\n> A bone folder from the shop in Porto\n"
    shown = note_syntax_as_text(note)
    assert shown == "Anna is a bookbinder.\n\n#### Gift idea\nA bone folder from the shop in Porto\n", shown
    nested = note_syntax_as_text("> [!note]- Outer\n> Body\n> > [!tip] Inner\n> > inner text\n")
    assert nested == "#### Outer\nBody\n#### Inner\ninner text\n", nested
    assert "> " not in node_body(note)  # a search snippet of a note kept whole


def test_a_callout_in_a_folder_digest_and_search(tmp_path: Path) -> None:
    people = tmp_path / "v" / "People"
    people.mkdir(parents=True)
    (people / "Anna Keller.md").write_text(
        "# Anna Keller\n\nAnna is a bookbinder I met at the Lisbon paper fair.\n\n"
        "> [!tip] Gift idea\n> A bone folder from the shop in Porto\n",
        encoding="utf-8",
    )
    out = tmp_path / "o"
    res = CliRunner().invoke(main, ["run", str(tmp_path / "v"), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    digest = (out / "digests" / "folders" / "People.md").read_text(encoding="utf-8")
    line = next(ln for ln in digest.splitlines() if ln.startswith("**Anna Keller.**"))
    assert ">" not in line and "A bone folder from the shop in Porto" in line, line
    found = CliRunner().invoke(main, ["search", "gift idea bone folder", "--out", str(out), "-k", "1", "--json"])
    assert found.exit_code == 0, found.output
    assert "> A bone" not in found.output and "A bone folder" in found.output, found.output


def test_code_fenced_inside_a_blockquote_is_left_out() -> None:
    text = (
        "Structs can hold references, but only with lifetimes, which a later chapter explains.\n\n"
        "> The compiler will complain that it needs lifetime specifiers:\n>\n> ```console\n> $ cargo run\n"
        "> error[E0106]: missing lifetime specifier\n>  --> src/main.rs:4:12\n>   |\n"
        "> help: consider introducing a named lifetime parameter\n>\n> ```\n>\n"
        "> In Chapter 10, we'll discuss how to fix these errors.\n\nThe next section uses owned types.\n"
    )
    shown = markdown_as_text(text)
    assert "help:" not in shown and "E0106" not in shown and "```" not in shown, shown
    assert "> In Chapter 10, we'll discuss how to fix these errors." in shown
    # A fence the blockquote never closes ends with the blockquote (CommonMark): the text after it stays.
    unclosed = markdown_as_text("> ```\n> let x = 1;\nAfter the quote comes prose.\n")
    assert unclosed == "\n\nAfter the quote comes prose.\n", repr(unclosed)
    # mdBook's <Listing> tags inside a blockquote are markup too.
    assert markdown_as_text('> <Listing file-name="src/main.rs">\n> Text.\n').startswith("\n> Text.")


OZ_CONTENTS = """ Contents

       Introduction
   1.  The Cyclone
   2.  The Council with the Munchkins
   3.  How Dorothy Saved the Scarecrow
   4.  The Road Through the Forest
  23.  Glinda The Good Witch Grants Dorothy's Wish
  24.  Home Again


Introduction

Folklore, legends, myths and fairy tales have followed childhood
through the ages, for every healthy youngster has a wholesome and
instinctive love for stories fantastic, marvelous and manifestly
unreal.
"""


def test_a_contents_list_is_no_summary_text() -> None:
    texts = _texts(OZ_CONTENTS)
    assert texts == [
        "Folklore, legends, myths and fairy tales have followed childhood through the ages, for every healthy "
        "youngster has a wholesome and instinctive love for stories fantastic, marvelous and manifestly unreal."
    ], texts
    # Any book's, numbered or in title case, in another language too.
    assert contents_lines(["I. Le cyclone", "II. Le conseil", "III. Comment Dorothée sauva l'épouvantail"])
    assert contents_lines(["Down the Rabbit-Hole", "The Pool of Tears", "A Caucus-Race and a Long Tale"])
    # Prose hard-wrapped with capitalised names at its lines' ends is no list of titles.
    prose = [
        "To an earlier",
        "period also belong Charles Egbert Craddock (1850- ), George Washington",
        "Cable (1844- ), Thomas Nelson Page (1853- ), Constance Fenimore",
        "Woolson (1848-1894), Harriet Prescott Spofford (1835- ), Hamlin",
        "Garland (1860- ), Ambrose Bierce (1842-?), Rose Terry Cooke",
    ]
    assert contents_lines(prose) == frozenset()
    # A sentence among the entries stays.
    kept = contents_lines(["Attendees", "Dana Smith", "Marco Rossi", "We met at the harbour office to plan it."])
    assert kept == frozenset({0, 1, 2})


LISTING = """The issue with the tuple code in Listing 4-5 is that we have to return the String to the calling \
function so that we can still use the String after the call to calculate_length, because the String was moved.
Instead, we can provide a reference to the String value, and a reference is like a pointer in that it is an \
address we can follow to access the data stored at that address; that data is owned by some other variable.

Here is how you would define and use a calculate_length function that has a reference to an object as a \
parameter instead of taking ownership of the value:

<Listing number="4-5" file-name="src/main.rs">

```rust
{{#rustdoc_include ../listings/ch04/listing-04-05/src/main.rs:here}}
```

</Listing>

First, notice that all the tuple code in the variable declaration and the function return value is gone, and \
that we pass a reference into calculate_length and in its definition take a reference rather than a String.
"""


def test_a_sentence_leading_into_lost_code_is_never_picked() -> None:
    tok = get_tokenizer()
    for target in (28, 30, 35, 40, 60):
        brief = summarize_text(
            LISTING, target_tokens=target, max_tokens=target, kind="brief", content_type="document", tokenizer=tok
        )
        assert "value:" not in brief, (target, brief)
    # A section the rules skip ("References and Borrowing" reads as a bibliography's heading) has no
    # candidate: what stands in for them is whole sentences, never one that leads into code.
    skipped = "## References and Borrowing\n\n" + LISTING
    for kind, target in (("brief", 30), ("standard", 80), ("chunk", 120)):
        out = summarize_text(
            skipped, target_tokens=target, max_tokens=target, kind=kind, content_type="document", tokenizer=tok
        )
        assert out and "value:" not in out, (kind, out)


def test_broken_front_matter_is_named_and_left_out(tmp_path: Path) -> None:
    unclosed = "---\ndate: 2025-06-01\ntags: [daily]\n\nWe walked along the harbour wall.\n"
    assert note_syntax_as_text(unclosed) == "\n\n\n\nWe walked along the harbour wall.\n"
    assert "not closed" in (front_matter_problem(unclosed) or "")
    invalid = '---\ndate: 2025-05-04\ntags: [daily, reading\nmood: "ok\n---\nSpent the morning repotting.\n'
    problem = front_matter_problem(invalid) or ""
    assert problem.startswith("invalid YAML in its front matter") and "line 4" in problem, problem
    assert "repotting" in note_syntax_as_text(invalid) and "mood" not in note_syntax_as_text(invalid)
    for sound in ("---\ntitle: A\ntags: [x]\n---\nText.\n", "No front matter.\n", "---\n\nA rule, then text.\n"):
        assert front_matter_problem(sound) is None, sound
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "2025-06-01.md").write_text(unclosed + "\nAnna phoned about the marbling course.\n", encoding="utf-8")
    (vault / "2025-05-04.md").write_text(invalid, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(vault), "--out", str(tmp_path / "o"), "--no-index", "--json"])
    assert res.exit_code == 0, res.output  # a warning, not a problem: the batch goes on
    warnings = json.loads(res.stdout)["warnings"]
    assert any("2025-06-01.md" in w and "front matter not closed" in w for w in warnings), warnings
    assert any("2025-05-04.md" in w and "invalid YAML" in w for w in warnings), warnings
    index = (tmp_path / "o" / "index.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]
    lines = [ln for ln in index.splitlines() if ln.startswith("- 2025")]
    assert len(lines) == 2 and not any("date:" in ln or "tags:" in ln or "---" in ln for ln in lines), lines
