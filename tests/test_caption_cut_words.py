"""Unpunctuated captions are cut into sentences only where English can end one: never after a closed-class
word that needs what follows (a subject, a contraction, a subordinator), never before one that hangs on the
word before ("to", "of", "than"), never inside a spelled number, and never into an endless line."""

from __future__ import annotations

import itertools

from batchsum.readers.formats import render_subtitles
from batchsum.text import split_sentences

# Filler words no rule knows, so only the words under test decide where a sentence may end.
_WORDS = [f"{a}{b}" for a in ("bo", "ka", "mi", "tu", "re", "sa") for b in ("pel", "dor", "vin", "las", "mut", "qen")]
_CLOSED = {"you've", "we're", "it's", "i'm", "you", "it", "so", "when", "since", "because", "if", "my", "the"}


def _srt(texts: list[str]) -> str:
    def clock(t: int) -> str:
        return f"00:{t // 60:02d}:{t % 60:02d},000"

    return "\n\n".join(f"{i + 1}\n{clock(3 * i)} --> {clock(3 * i + 3)}\n{t}" for i, t in enumerate(texts)) + "\n"


def _sentences(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text)]


def _filler(i: int, n: int) -> str:
    return " ".join(_WORDS[(5 * i + j) % 36] for j in range(n))


def test_no_sentence_ends_on_a_closed_class_word_or_opens_on_one_that_hangs_on() -> None:
    ends = sorted(_CLOSED)
    # Most cues end on a closed-class word; every third opens with "to" or "of".
    texts = [f"{_filler(i, 6)} {ends[i % len(ends)]}" for i in range(90)]
    texts[2::3] = [f"{('to', 'of')[i % 2]} {_filler(i, 6)}" for i in range(30)]
    text = render_subtitles(_srt(texts))
    sentences = _sentences(text)
    assert len(sentences) >= 5
    for s in sentences:
        assert s.split()[-1].rstrip(".").casefold() not in _CLOSED, s
        assert s.split()[0].casefold() not in {"to", "of"}, s


def test_a_spelled_number_is_never_cut() -> None:
    """ "... without delta and eighty." / "Nine with the delta" read as two numbers, the second wrong."""
    texts = [f"{_filler(i, 7)} eighty" if i % 2 == 0 else f"nine {_filler(i, 6)} one hundred" for i in range(30)]
    texts[1::2] = [t.replace(" one hundred", "") + " one hundred" for t in texts[1::2]]
    texts = [t if i % 4 != 3 else f"and six {_filler(i, 6)}" for i, t in enumerate(texts)]
    text = render_subtitles(_srt(texts))
    assert len(_sentences(text)) >= 4
    words = text.casefold().split()
    for before, after in itertools.pairwise(words):
        if before.endswith(".") and before.rstrip(".") in {"eighty", "hundred"}:
            assert after not in {"nine", "and"}, text


def test_a_unit_ends_before_a_clause_opening_word_rather_than_inside_a_phrase() -> None:
    """ "the size of the step is called the learning." / "Rate and choosing it well": the unit waits for
    the clause that opens a few words on ("if the learning rate is too big")."""
    cue = "the size of the step is called the learning"
    texts = [_filler(i, 7) for i in range(3)] + [cue, "rate and choosing it well is most of the work if the"]
    texts += ["learning rate is too big the loss goes up"] + [_filler(i, 7) for i in range(4, 12)]
    text = render_subtitles(_srt(texts))
    assert "learning rate and choosing" in text.casefold()
    assert any(s.startswith("If the learning rate") for s in _sentences(text)), text


def test_captions_with_no_place_to_end_still_become_bounded_lines() -> None:
    """Every cue ends on "the": no cut is a good one, yet no sentence runs for hundreds of words."""
    texts = [f"{_filler(i, 7)} the" for i in range(60)]  # 480 words
    sentences = _sentences(render_subtitles(_srt(texts)))
    assert len(sentences) >= 4
    assert all(len(s.split()) <= 90 for s in sentences)


def test_mid_line_chevrons_start_a_new_speakers_turn() -> None:
    """Broadcast captions mark each change of speaker with ">>", inside a rolling line or closing it."""
    cues = [
        ("then decay the learning rate", "with a cosine schedule yes question in the back >>"),
        ("with a cosine schedule yes question in the back >>", "is the learning rate the same for every"),
        ("is the learning rate the same for every", "parameter >> good question in plain gradient"),
        ("parameter >> good question in plain gradient", "descent yes but adam keeps one per parameter"),
    ]
    srt = "".join(
        f"{i + 1}\n00:00:0{2 * i},000 --> 00:00:0{2 * i + 2},000\n{a}\n{b}\n\n" for i, (a, b) in enumerate(cues)
    )
    turns = render_subtitles(srt).split("\n\n")
    assert not any(">>" in t for t in turns), turns
    assert len(turns) == 3, turns
    assert turns[0].endswith("question in the back")
    assert turns[1] == "is the learning rate the same for every parameter"
    assert turns[2] == "good question in plain gradient descent yes but adam keeps one per parameter"
