"""A two-column page as ``pdftotext -layout`` writes it is read a column at a time: read line by line, the
left and right columns had interleaved ("Abstract  crop yields were unchanged ..."), so finals and the index
read nonsense. Tables, code, poems, transcripts and subtitles, whose lines also hold runs of blanks, read as
they are."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.readers.pdf_columns import in_reading_order, two_column_pages
from batchsum.walk import SourceRef, read_document

WHOLE = (
    "Reduced tillage increased fungal richness by 23% and bacterial Shannon diversity by 0.4 units, while crop "
    "yields were unchanged between tillage systems (mean wheat yield 8.1 t/ha in both)."
)
LEFT = [
    "Abstract",
    "We compared soil bacterial and fungal diversity",
    "under conventional ploughing and reduced tillage",
    "in a ten-year field experiment in England.",
    "Reduced tillage increased fungal richness by 23%",
    "and bacterial Shannon diversity by 0.4 units,",
    "while crop yields were unchanged between tillage",
    "systems (mean wheat yield 8.1 t/ha in both).",
    "",
    "1 Introduction",
    "Tillage disturbs soil structure and the fungal",
    "hyphal networks that bind aggregates together.",
    "Reduced tillage is promoted to conserve carbon,",
    "but its effect on microbial diversity in the",
]
RIGHT = [
    "temperate arable systems of northern Europe is",
    "uncertain. We tested whether reduced tillage",
    "raises fungal diversity more than bacterial",
    "diversity over a decade of field trials.",
    "",
    "2 Methods",
    "The experiment at Sonning Farm was established",
    "in 2012 with four replicate blocks. Soil cores",
    "were taken each April from the top ten cm and",
    "analysed by amplicon sequencing of both the",
    "bacterial and the fungal marker genes at the",
    "university laboratory in Reading each summer,",
    "and richness was estimated after rarefaction.",
]
TITLE = "        Soil Microbial Diversity Under Reduced Tillage: Evidence from a Ten-Year Field Experiment"


def _page(left: list[str], right: list[str], gutter: int = 56) -> list[str]:
    """The lines of a page set in two columns, the right column's text starting at ``gutter``."""
    rows = max(len(left), len(right))
    left, right = left + [""] * (rows - len(left)), right + [""] * (rows - len(right))
    return [f"{a:<{gutter}}{b}".rstrip() for a, b in zip(left, right, strict=True)]


def _words(text: str) -> str:
    return " ".join(text.split())


def test_a_two_column_papers_final_reads_its_columns_sentences_whole(tmp_path: Path) -> None:
    src, out = tmp_path / "papers", tmp_path / "out"
    src.mkdir()
    page = [TITLE, "", *_page(LEFT, RIGHT), "", " " * 50 + "1"]
    (src / "okafor2023.txt").write_text("\n".join(page) + "\n", encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    final = (out / "okafor2023.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    body = _words(final.split("---", 2)[2].split("<!--")[0])
    said = [s if s.endswith(".") else s + "." for s in body.split(". ")]
    columns = _words(" ".join(LEFT + RIGHT))  # the columns' text, each read top to bottom
    assert len(said) >= 2 and all(s in columns for s in said), body
    index = _words((out / "index.md").read_text(encoding="utf-8"))
    assert "Abstract temperate" not in index and "diversity uncertain" not in index, index


def test_the_left_column_then_the_right_lines_across_both_stay(tmp_path: Path) -> None:
    page = [TITLE, "", *_page(LEFT, RIGHT), "", " " * 50 + "1"]
    path = tmp_path / "paper.txt"
    path.write_text("\n".join(page) + "\n", encoding="utf-8")
    text = read_document(SourceRef(path, path.name, tmp_path)).text
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    assert lines[0] == TITLE.strip() and lines[-1] == "1"  # the title above, the page number below
    order = [lines.index(t) for t in ("Abstract", "1 Introduction", "2 Methods")]
    assert order == sorted(order)
    # The left column's last sentence goes on at the top of the right column, read as one.
    assert "microbial diversity in the temperate arable systems of northern Europe is uncertain." in _words(text)


def test_a_sentence_goes_on_from_a_pages_right_column_to_the_next_pages_left(tmp_path: Path) -> None:
    second_left = ["the soil under reduced tillage held more carbon", *LEFT[1:8]]
    pages = "\n".join(_page(LEFT, [*RIGHT[:-1], "and richness was estimated after"])) + "\n\f"
    pages += "\n".join(_page(second_left, RIGHT)) + "\n"
    path = tmp_path / "paper.txt"
    path.write_text(pages, encoding="utf-8")
    text = _words(read_document(SourceRef(path, path.name, tmp_path)).text)
    assert "richness was estimated after the soil under reduced tillage held more carbon" in text, text
    assert two_column_pages(pages) == 2


def test_balanced_columns_over_the_body_are_read_before_it() -> None:
    # An abstract set in two balanced columns above the body's two columns: its left half stops mid-sentence
    # above a heading, and its rest opens the right column.
    left = [*LEFT[:7], "", "1 Introduction", *LEFT[10:12], "diversity in arable systems is uncertain."]
    right = ["systems (mean wheat yield 8.1 t/ha in both).", "", *RIGHT[5:]]
    assert WHOLE in _words(in_reading_order("\n".join(_page(left, right))))


TABLE = """Crop            Yield (t/ha)    Change
Wheat           8.1             +0.2
Barley          6.4             -0.1
Oilseed rape    3.2             +0.4
Field beans     4.0             +0.3
Oats            5.9             -0.2
Maize           9.7             +0.1
Sugar beet      71.0            +2.5
"""
KEY_VALUES = "\n".join(
    f"{key:<24}{value}"
    for key, value in [
        ("Project name", "Soil microbial diversity"),
        ("Principal investigator", "Chinedu Okafor"),
        ("Funding body", "Natural Environment Research Council"),
        ("Start date", "April 2012"),
        ("Site", "Sonning Farm, Reading"),
        ("Design", "Four replicate blocks"),
        ("Sampling", "Each April, two depths"),
        ("Status", "Completed"),
    ]
)
MARKDOWN_TABLE = """| Crop         | Yield under ploughing | Yield under reduced tillage |
|--------------|-----------------------|-----------------------------|
| Wheat        | 8.1                   | 8.1                         |
| Barley       | 6.4                   | 6.3                         |
| Oilseed rape | 3.2                   | 3.4                         |
| Field beans  | 4.0                   | 4.1                         |
| Oats         | 5.9                   | 5.8                         |
| Maize        | 9.7                   | 9.6                         |
| Sugar beet   | 71.0                  | 70.2                        |
| Potatoes     | 43.5                  | 42.9                        |
"""
CODE = """let soil = Sample::new(depth);      // one core per plot and year
let reads = sequence(&soil);        // amplicons of both markers
let table = count(reads);           // one row per taxon
let rare = rarefy(&table, 10_000);  // the same depth for every sample
let rich = richness(&rare);         // taxa seen at that depth
let shannon = entropy(&rare);       // Shannon's index, natural log
let fit = mixed(rich, blocks);      // block as a random effect
report(fit);                        // one line per contrast
"""
POEM = """The fields lie fallow where the plough has been,
        and under them the threads of fungus run,
    a quiet net no harrow tears between
        the stubble and the frost, the rain, the sun.
We left the ground unturned for ten long years,
        and counted what we could not see before:
    the lives beneath, the hidden engineers,
        who hold the crumb of soil from core to core.
"""
TRANSCRIPT = "\n".join(
    f"[00:{m:02d}:{s:02d}]  {who}:  {said}"
    for m, s, who, said in [
        (0, 5, "Okafor", "Shall we start with the fungal results from the April cores?"),
        (0, 19, "Brandt", "Yes, richness is up by about a quarter under reduced tillage."),
        (0, 41, "Okafor", "And the bacteria barely moved, which is what we expected."),
        (1, 2, "Li", "The yields were the same in both systems, eight point one tonnes."),
        (1, 30, "Brandt", "So no yield penalty at all, that is the headline for the abstract."),
        (2, 4, "Okafor", "Let us put the carbon numbers in the second paragraph then."),
        (2, 33, "Li", "I will redo the rarefaction at ten thousand reads per sample."),
        (3, 1, "Brandt", "Good, and send me the mixed model output when it is done."),
    ]
)
SUBTITLES = "\n\n".join(
    f"{n}\n00:00:{2 * n:02d},000 --> 00:00:{2 * n + 1:02d},500\n{line}"
    for n, line in enumerate(
        [
            "We left the ground unturned for ten years.",
            "Under it, the fungi  spread  their threads.",
            "The bacteria stayed much as they were.",
            "And the wheat grew just as well.",
            "Eight point one tonnes a hectare.",
            "In both fields, every year.",
        ],
        1,
    )
)
DOUBLE_SPACED = """We compared soil bacterial and fungal diversity under two systems.  The
experiment ran for ten years at a farm near Reading.  Soil cores were taken
each April from two depths.  Reduced tillage increased fungal richness by a
quarter.  Bacterial diversity changed little.  Crop yields were unchanged
between tillage systems.  Soil organic carbon in the top ten centimetres rose
by fourteen per cent.  These results show that reduced tillage raises
microbial diversity without a yield penalty.  We recommend longer trials on
heavier soils.  The data are available from the authors on request.
"""


def test_texts_with_aligned_blanks_that_are_no_columns_read_as_they_are() -> None:
    texts = {
        "table": TABLE,
        "key values": KEY_VALUES,
        "markdown table": MARKDOWN_TABLE,
        "code": CODE,
        "poem": POEM,
        "transcript": TRANSCRIPT,
        "subtitles": SUBTITLES,
        "double spaces": DOUBLE_SPACED,
    }
    for name, text in texts.items():
        assert in_reading_order(text) is text, name
        assert two_column_pages(text) == 0, name


def test_a_few_aligned_lines_in_prose_are_no_page_of_columns() -> None:
    prose = _words(" ".join(LEFT + RIGHT))
    lines = [prose[i : i + 90] for i in range(0, len(prose), 90)]
    text = "\n".join(lines[:4] + _page(LEFT[1:4], RIGHT[6:9]) + lines[4:]) + "\n"
    assert in_reading_order(text) is text  # three rows side by side: too few for a run
