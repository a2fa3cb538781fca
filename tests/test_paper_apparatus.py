"""A paper's apparatus and a PDF's leftovers in summaries: reference lists, captions, TeX math, words wrapped at a
hyphen, ligatures, and quotations in straight single quotes."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.extractive import summarize_text
from batchsum.backends.units import units_from_text
from batchsum.cleanup import balance_quotes
from batchsum.cli import main
from batchsum.index.analysis import analyze
from batchsum.index.snippets import markdown_window
from batchsum.readers.decoding import decode_bytes
from batchsum.tokens import get_tokenizer
from batchsum.tree import read_node

_PROSE = (
    "The lupin genome was mapped across twelve wild populations collected in Spain and Portugal. "
    "Seed size varied most between the coastal and the mountain populations in every year of the trial. "
    "Flowering time was linked to two loci on the third chromosome of the narrow-leafed species. "
    "These loci explain why the mountain plants flower three weeks later than the coastal ones."
)
_REFERENCES = "\n".join(
    f"{i}. Smith J, Doe A, Brown K. Genome mapping of lupin species. Theor Appl Genet. "
    f"20{10 + i};{100 + i}:{i * 11}–{i * 11 + 9}. doi:10.1007/s00122-0{i}-1234-5."
    for i in range(1, 25)
)
# An entry's signature, and a run of list numbers standing alone ("2. 3. 4.").
_CITATION = re.compile(r"doi:|\d{4};\d+:\d+|Smith J, Doe A")
_BARE_NUMBERS = re.compile(r"(?:^|\s)\d{1,3}\.\s+\d{1,3}\.(?:\s|$)")


def test_a_reference_list_is_never_quoted_after_a_chunks_overlap() -> None:
    """A chunk whose own text is a reference list, after an overlap of prose (context only, never picked
    again): the summary was "... 1. Smith J, Doe A, ... doi:... 2. 3. 4. ... 24."."""
    text = f"{_PROSE}\n\nReferences\n\n{_REFERENCES}\n"
    out = summarize_text(
        text,
        target_tokens=120,
        max_tokens=240,
        kind="chunk",
        content_type="document",
        tokenizer=get_tokenizer(),
        context_chars=len(_PROSE) + 2,
    )
    assert out.strip()
    assert not _CITATION.search(out), out
    assert not _BARE_NUMBERS.search(out), out


def test_a_list_number_is_no_unit_of_its_own() -> None:
    """A list's number cut off its item by the sentence splitter goes with the item."""
    text = "Steps we took:\n\n1. We sampled twelve wild populations in spring. 2. We sequenced every plant twice.\n"
    shown = [u.text for u in units_from_text(text, "document")]
    assert not any(re.fullmatch(r"\d{1,3}\.", t.strip()) for t in shown), shown
    assert any(t.startswith("2. We sequenced") for t in shown), shown


def test_captions_and_tex_math_are_no_candidates_but_money_is_prose() -> None:
    """A table's or a figure's caption and a sentence of raw TeX are layout; "$5 and $10" is money."""
    text = (
        "The weights satisfy $\\lambda_1 + \\lambda_2 = 1$ in every experiment we ran.\n\n"
        "Table 1: ROUGE F1 results on the CNN/Daily Mail test set.\n\n"
        "Fig. 2. Sentence position distribution of the selected summaries.\n\n"
        "$$\n\\mathrm{score}(s_i) = \\sum_{j=1}^{n} e_{ij}\n$$\n\n"
        "The tickets cost $5 and $10 at the door of the old theatre.\n"
    )
    units = units_from_text(text, "document")
    picked = [u.text for u in units if u.candidate]
    assert not any("$\\lambda" in t or "Table 1" in t or "Fig. 2" in t for t in picked), picked
    assert not any("mathrm" in u.text for u in units)  # a display block is no text at all
    assert any(t.startswith("The tickets cost $5 and $10") for t in picked), picked


_NOTE = """---
title: PacSum notes
---
# Position-Aware Centrality for Unsupervised Summarization

Zheng and Lapata, ACL 2019 — page 1

## Abstract

We revisit the popular graph-based ranking algorithm and modify how sentence centrality is computed. We employ
BERT to capture sentential meaning and argue that the edges of the graph should be directed.

The weights satisfy $\\lambda_1 + \\lambda_2 = 1$ in every experiment we ran on the three datasets.

Table 1: ROUGE F1 results on the CNN/Daily Mail test set for every system we compared.

| Method | R-1 | R-2 | R-L |
|---|---|---|---|
| LEAD-3 | 40.24 | 17.70 | 36.45 |
| PacSum (BERT) | 40.70 | 17.80 | 36.90 |

## Experiments

We evaluated the system on the CNN/Daily Mail, the New York Times and the TTNews datasets. The results show
that PacSum outperforms TextRank by more than seven points on the CNN/Daily Mail test set.
"""


def test_a_forced_transcript_keeps_the_markdown_clean_up(tmp_path: Path) -> None:
    """``--type transcript`` on a paper's notes: table rows, a page header, a caption and TeX stay out of the
    final, as they do when the note is read as a document."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text(_NOTE, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--type", "transcript", "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    meta, body = read_node(out / "notes.md" / "summaries" / "L3" / "final.md")
    summary = body.split("\n## ")[0]
    assert meta["content_type"] == "conversation"
    assert "revisit" in summary or "evaluated" in summary, summary
    for layout in ("|", "page 1", "$", "Table 1", "40.24"):
        assert layout not in summary, (layout, summary)


def test_words_wrapped_at_a_hyphen_read_as_the_document_writes_them() -> None:
    """A word broken at a line's end joins when the document writes it whole elsewhere or its second half is no
    word ("simul-taneous"); a compound keeps its hyphen (written so elsewhere, or two words: "high-backed").
    A source snippet reads the same, never "sum- marization"."""
    text = (
        "Single-document sum-\nmarization is hard. We study simul-\ntaneous estimation in a self-\naware way.\n"
        "Extractive summarization is common, and a self-aware system sat in the high-\nbacked chair.\n"
    )
    shown = " ".join(u.text for u in units_from_text(text, "document"))
    for word in ("summarization is hard", "simultaneous estimation", "self-aware way", "high-backed chair"):
        assert word in shown, (word, shown)
    window = " ".join(markdown_window(text, 0, len(text)).split())
    assert "summarization is hard" in window and "- " not in window.replace("Single-document", ""), window


def test_ligatures_become_letters_when_decoded() -> None:
    """The ligature in "identiﬁed" is two letters for the summaries and the index; full-width CJK punctuation stays."""
    text, note = decode_bytes("We identiﬁed ﬁshers and ﬂoods。「はい」、ＡＢ".encode())
    assert note is None
    assert text == "We identified fishers and floods。「はい」、ＡＢ"
    assert analyze("ﬁshers exact tests") == analyze("fishers exact tests")


def test_single_quoted_speech_is_made_whole_and_apostrophes_are_not_quotes() -> None:
    """A quotation in straight single quotes cut by a sentence gets its other mark; an apostrophe is none."""
    assert balance_quotes("He said to me, 'For a long time now, O valiant knight, alone to attempt.").endswith(
        "attempt.'"
    )
    assert balance_quotes("Come with me, illustrious sir.' He led me on.").startswith("'Come")
    for whole in (
        "I don't know, 'tis late and the dogs' bowls are empty.",
        "He said, 'Go home,' and left.",
        "Rock 'n' roll in the '90s was loud.",
        "It's James' car.",
    ):
        assert balance_quotes(whole) == whole
