"""A run of punctuation alone is no sentence: a Japanese "……" that closes a line ("と言う。……") had become a
sentence of its own, or the opening of the next line's sentence, and a summary read "…… ……宿の小僧に連れられて"
(a reviewer's journal). It closes the sentence before it, or at a paragraph's start opens the one after it."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.text import split_sentences
from batchsum.tree import read_node


def _marks_only(text: str) -> bool:
    return all(c.isspace() or unicodedata.category(c).startswith("P") for c in text)


@pytest.mark.parametrize(
    ("text", "language", "closed", "opened"),
    [
        ("今日は雨だった。佐藤さんは「…」と言う。……\n\n……宿の小僧に連れられて", "ja", "と言う。……", "……宿の"),
        ("今日は雨だった。佐藤さんは「…」と言う。……\n\n……宿の小僧に連れられて", None, "と言う。……", "……宿の"),
        # One paragraph a line, as Japanese is written: the "……" ending a line is that line's.
        ("佐藤さんは「…」と言う。……\n\u3000……宿の小僧に連れられて行く。", "ja", "と言う。……", "……宿の"),
        ("He paused. ... Then he left.\n\n... and so on.", "en", "paused. ...", "... and"),
        ("Он молчал. …\n\n… и ушёл.", "ru", "молчал. …", "… и"),
    ],
)
def test_punctuation_alone_closes_the_sentence_before_it(
    text: str, language: str | None, closed: str, opened: str
) -> None:
    spans = split_sentences(text, language)
    assert all(s.text == text[s.start : s.end] for s in spans)
    assert not [s.text for s in spans if _marks_only(s.text)], spans
    assert any(s.text.endswith(closed) for s in spans) and any(s.text.startswith(opened) for s in spans), spans


def test_punctuation_opening_a_paragraph_opens_the_sentence_after_it() -> None:
    spans = split_sentences("... Then he left. He came back.", "en")
    assert [s.text for s in spans] == ["... Then he left.", "He came back."]


def test_a_summary_sets_no_lone_ellipsis_apart_with_a_space(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "ja.md").write_text(
        "## 2024年5月4日（土）\n\n今日は東京で佐藤さんと会った。新宿のカフェで新しいアプリについて話した。\n"
        "\u3000ペンク氏は「どこかエルベ河畔に似ている」と言う。……\n"
        "\u3000……宿の小僧に連れられて電車で測候所を見に行く。測候所の所長は親切で、測候所の古い記録を見せてくれた。\n"
        "\u3000夜は京都行きの新幹線の切符を買った。宿に戻ってから測候所の話を日記に書いた。\n",
        encoding="utf-8",
    )
    got = CliRunner().invoke(main, ["run", str(src), "--type", "journal", "--out", str(out), "--no-index", "-q"])
    assert got.exit_code == 0, got.output
    meta, body = read_node(out / "ja.md" / "summaries" / "L3" / "final.md")
    assert not meta.get("kept_whole") and "宿の小僧" in body, body
    assert not re.search(r"[^\x00-\x7f][ \t\u3000]+[^\x00-\x7f]", body.strip()), body  # no space between CJK
