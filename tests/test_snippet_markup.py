"""A snippet leaves out a caption's cues ([Music], [Applause]) and keeps TeX's groups ($\\bar{x}$ had read
"$\\bar = \\frac{1} ..."), and a sentence does not end at a title after a dash ("demanded--Mr.")."""

from __future__ import annotations

from batchsum.index.analysis import analyze
from batchsum.index.snippets import clean_text, make_snippet


def _groups(query: str) -> list[list[str]]:
    return [[term] for term in analyze(query, "en")]


def test_caption_cues_go_and_tex_stays() -> None:
    text = "the address of that [Music] the midterm is on thursday [Applause] in room two oh four"
    assert "[" not in clean_text(text) and "midterm is on thursday" in clean_text(text)
    tex = r"The sample mean is $\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$ and it is unbiased."
    assert clean_text(tex).strip() == tex
    assert "{vocalsound}" not in clean_text("Okay. {vocalsound} So we start.")
    kept = "See [Home](https://example.org) and [[Page]] and [x] done."  # links and boxes as before
    assert "[Home](https://example.org)" in clean_text(kept) and "[[Page]]" in clean_text(kept)


def test_a_title_after_a_dash_ends_no_sentence() -> None:
    text = (
        "Catherine went to the pump-room, ready to meet him with a smile; but no smile was demanded--Mr. "
        "Tilney did not appear. She went home in low spirits."
    )
    snippet, _ = make_snippet(text, _groups("Tilney did not appear"))
    assert "demanded--Mr. Tilney did not appear." in snippet, snippet


def test_a_typed_apostrophe_finds_a_word_processors() -> None:
    """Word and Scrivener write "’": "shouldn’t" had been indexed as "shouldn" and "t", so a remembered line
    typed with "'" missed it."""
    assert analyze("I shouldn’t think I was natural", "en") == analyze("I shouldn't think I was natural", "en")
    snippet, found = make_snippet("“I shouldn’t think I was natural,” she said.", _groups("shouldn't think"))
    assert "shouldn’t" in found and "think" in found, (snippet, found)


def test_a_wrapped_line_that_opens_with_a_word_and_a_colon_goes_on() -> None:
    text = (
        "I was glad of it: I never liked long walks, especially on chilly\n"
        "afternoons: dreadful to me was the coming home in the raw twilight, with\n"
        "nipped fingers and toes.\n\nBessie: Come in now."
    )
    snippet, _ = make_snippet(text, _groups("raw twilight"))
    assert snippet.startswith("I was glad of it") and "especially on chilly afternoons: dreadful" in snippet, snippet
    turn, _ = make_snippet("It rained all day.\nBessie: Come in now, Miss Jane.", _groups("come in"))
    assert turn.startswith("Bessie: Come in now"), turn
