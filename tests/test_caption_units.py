"""Unpunctuated captions (automatic ones: lower case, no stops) are cut into sentences at cue
boundaries, so a summary can pick from across a talk; punctuated subtitles read as before."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.formats import render_subtitles
from batchsum.text import split_sentences
from batchsum.tree import read_node

REPO = Path(__file__).resolve().parent.parent

# Words no two of which repeat, so each unit's words can be told apart.
_WORDS = [f"{a}{b}" for a in ("bo", "ka", "mi", "tu", "re", "sa") for b in ("pel", "dor", "vin", "las", "mut", "qen")]


def _srt(cues: list[tuple[float, float, str]]) -> str:
    def clock(t: float) -> str:
        return f"00:{int(t) // 60:02d}:{int(t) % 60:02d},{round(t % 1 * 1000):03d}"

    return "\n\n".join(f"{i + 1}\n{clock(s)} --> {clock(e)}\n{c}" for i, (s, e, c) in enumerate(cues)) + "\n"


def _back_to_back(texts: list[str]) -> str:
    return _srt([(3.0 * i, 3.0 * (i + 1), t) for i, t in enumerate(texts)])


def _sentences(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text)]


def test_unpunctuated_captions_become_bounded_sentences_with_every_word_kept() -> None:
    texts = [" ".join(_WORDS[(7 * i + j) % 36] for j in range(7)) for i in range(24)]  # 168 words
    text = render_subtitles(_back_to_back(texts))
    sentences = _sentences(text)
    assert len(sentences) >= 5
    for s in sentences:
        assert s[0].isupper() and s.endswith(".")
        assert 5 <= len(s.split()) <= 40
    assert text.lower().replace(".", "").split() == " ".join(texts).split()


def test_a_pause_ends_a_unit_and_a_sound_cue_stays_out_of_the_sentences() -> None:
    cues = [(0.0, 2.0, "quick announcement the midterm exam is on thursday in room two oh four")]
    cues += [(4.0, 6.0, "[Music]")]  # a pause, then music
    cues += [(6.0 + 2 * i, 8.0 + 2 * i, " ".join(_WORDS[6 * i : 6 * i + 6])) for i in range(6)]
    text = render_subtitles(_srt(cues))
    sentences = _sentences(text)
    assert sentences[0] == "Quick announcement the midterm exam is on thursday in room two oh four."
    assert "[Music]." not in text and "[Music]" in text  # left for the transcript cleaner, as before
    assert sentences[1].startswith("[Music] Bopel")


def test_a_unit_never_ends_on_a_word_read_as_an_abbreviation() -> None:
    """ "a." or "no." before a capital is no sentence end to the splitter: the unit goes on past it."""
    texts = [" ".join(_WORDS[(5 * i + j) % 36] for j in range(6)) + (" a" if i % 2 == 0 else "") for i in range(20)]
    text = render_subtitles(_back_to_back(texts))
    assert " a." not in text
    assert len(_sentences(text)) >= 4


def test_a_unit_never_ends_on_a_word_a_sentence_goes_on_from() -> None:
    """ "... removes the values in." / "after that we. Look at borrowing": a cue that ends on an article, a
    preposition, a conjunction or a subject leaves the unit open."""
    ends = ["in", "the", "we", "and", "there"]
    texts = [" ".join(_WORDS[(5 * i + j) % 36] for j in range(6)) + (f" {ends[i % 5]}" if i % 2 == 0 else "")
             for i in range(20)]  # fmt: skip
    text = render_subtitles(_back_to_back(texts))
    assert not any(f" {w}." in text for w in ends), text
    assert len(_sentences(text)) >= 3


def test_punctuated_subtitles_are_rendered_as_before() -> None:
    """The negative case: captions with stops keep their text as it is, no period or capital added."""
    texts = [f"we looked at item {i}, which the board approved. then" for i in range(20)]
    assert render_subtitles(_back_to_back(texts)) == " ".join(texts)


def test_short_unpunctuated_captions_are_one_unit_left_as_they_are() -> None:
    texts = ["the deadline for the budget", "is march 22nd and finance", "won't move it"]
    assert render_subtitles(_back_to_back(texts)) == " ".join(texts)


def test_a_summary_of_an_unpunctuated_lecture_picks_from_across_it(tmp_path: Path) -> None:
    """Automatic captions of a talk (the sample corpus's memo read out, lower case, no stops): the summary
    holds sentences from past its opening, not only the first words cut short."""
    memo = (REPO / "sample_corpus" / "docs" / "battery-field-study-memo.md").read_text(encoding="utf-8")
    words = re.sub(r"[^a-z0-9 ]+", " ", re.sub(r"(?m)^#.*$", " ", memo).lower()).split()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "talk.srt").write_text(_back_to_back([" ".join(words[i : i + 8]) for i in range(0, len(words), 8)]))
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    _, body = read_node(tmp_path / "out" / "talk.srt" / "summaries" / "L3" / "final.md")
    summary = body.split("<!-- batchsum:links -->", 1)[0].split("\n## Facets", 1)[0]  # the facets are no picks
    picked = [s for s in summary.splitlines() if s.strip()]
    said = " ".join(words)
    # Where each picked sentence's opening words are said: past the first third for one of them at least.
    at = [said.find(" ".join(s.lower().rstrip(".…").split()[:5])) for s in picked]
    assert -1 not in at and max(at) > len(said) // 3
