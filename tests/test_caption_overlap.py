"""Rolling captions whose cues repeat the last words of the text so far (YouTube's automatic captions,
sliding-window captions): each word is read once, and a repeat that is no overlap is kept."""

from __future__ import annotations

from batchsum.readers.formats import render_subtitles


def _srt(cues: list[str], step: float = 2.0) -> str:
    """Cues back to back, ``step`` seconds each."""

    def clock(t: float) -> str:
        return f"00:{int(t) // 60:02d}:{int(t) % 60:02d},{round(t % 1 * 1000):03d}"

    return (
        "\n\n".join(f"{i + 1}\n{clock(i * step)} --> {clock((i + 1) * step)}\n{c}" for i, c in enumerate(cues)) + "\n"
    )


def _words(text: str) -> list[str]:
    return [w.strip(".,?!").lower() for w in text.split()]


def test_growing_cues_give_each_word_once_past_a_sound_cue() -> None:
    cues = [
        "so today we",
        "so today we talk about ownership",
        "so today we talk about ownership in rust and",
        "[Music]",
        "talk about ownership in rust and why it matters",
        "in rust and why it matters for memory safety",
    ]
    said = [w for w in _words(render_subtitles(_srt(cues))) if w != "[music]"]
    assert said == "so today we talk about ownership in rust and why it matters for memory safety".split()


def test_sliding_window_cues_give_each_word_once() -> None:
    words = [f"w{i}" for i in range(30)]
    chunks = [words[i : i + 5] for i in range(0, 30, 5)]
    cues = [" ".join((chunks[i - 1] if i else []) + chunk) for i, chunk in enumerate(chunks)]
    assert _words(render_subtitles(_srt(cues))) == words


def test_a_repeat_that_is_no_rolling_overlap_is_kept() -> None:
    """Negative cases: one word said again, an echoed sentence, a whole line said twice."""
    cues = [
        "We walked down to the park.",
        "Park rangers were there.",  # one word: no overlap
        "Are you sure about that?",
        "Sure about that? Yes.",  # an echo: the repeat ends a sentence of its own
        "I know.",
        "I know.",  # a whole cue said again
    ]
    text = render_subtitles(_srt(cues))
    assert text == " ".join(cues)
