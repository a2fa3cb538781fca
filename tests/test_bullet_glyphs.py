"""List items opened by the bullet glyphs of PDF and slide exports ("▪", "●", "►", ...): each item stays an
item, in a final (as a Markdown item), in a snippet's sentences and in an e-mail's own words."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.snippet_sentences import sentences
from batchsum.readers.eml_words import own_words
from batchsum.text import BULLETS
from batchsum.tree import node_path, read_node

GLYPHS = [g for g in BULLETS if g not in "-*+"]
# Enough slides for a final of several lines (a STANDARD one), where items keep a line each.
TOPICS = [
    "Bias and Variance",
    "Cross Validation",
    "Decision Trees",
    "Random Forests",
    "Boosting",
    "Kernels",
    "Neural Networks",
    "Clustering",
    "Dimensionality Reduction",
    "Naive Bayes",
    "Logistic Regression",
    "Support Vector Machines",
]


def _deck(glyph: str) -> str:
    slides = []
    for n, topic in enumerate(TOPICS, 3):
        items = [
            f"{topic} is covered in chapter {n} of the textbook",
            f"The key hyperparameter of {topic.lower()} is tuned on a validation set",
            f"A common mistake with {topic.lower()} is to evaluate on the training data",
            f"Homework {n} asks you to implement {topic.lower()} from scratch in numpy",
        ]
        slides.append(topic + "\n\n" + "\n".join(f"{glyph} {item}" for item in items))
    return "\n\n".join(slides) + "\n"


def _run(corpus: Path, out: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"]


def _final(out: Path, rel: str) -> str:
    return read_node(node_path(out, rel, 3, None))[1].split("<!-- batchsum:links -->")[0].strip()


def test_glyph_bullets_are_list_items_in_the_final(tmp_path: Path) -> None:
    corpus = tmp_path / "decks"
    corpus.mkdir()
    for k, glyph in enumerate(GLYPHS):
        (corpus / f"deck{k}.txt").write_text(_deck(glyph))
    out = tmp_path / "out"
    _run(corpus, out)
    for k, glyph in enumerate(GLYPHS):
        body = _final(out, f"deck{k}.txt")
        assert body.count("\n") >= 3 and "- " in body, body
        for line in body.splitlines():
            # A deck's items are Markdown items, one a line: none runs on into the next after its glyph.
            assert glyph not in line, (glyph, body)
            assert len(re.findall(r"textbook|validation set|training data|numpy", line)) <= 1, (glyph, body)


def test_glyph_bullets_cut_snippet_sentences_and_keep_e_mail_lines() -> None:
    for glyph in GLYPHS:
        said = sentences(f"Review\n\n{glyph} Bias is covered in chapter 3\n{glyph} Boosting is covered in chapter 7")
        assert said[-2:] == ["Bias is covered in chapter 3", "Boosting is covered in chapter 7"], (glyph, said)
        words = own_words(
            f"Hi team,\n\nThe agenda:\n\n{glyph} Budget for Q3\n{glyph} Hiring plan\n\nBest,\nAnna", "Anna <a@x.org>"
        )
        assert f"\n{glyph} Hiring plan" in words, (glyph, words)
