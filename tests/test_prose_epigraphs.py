"""An epigraph over a chapter is no summary text; a sentence cut from an emphasised span shows whole marks."""

from __future__ import annotations

from batchsum.backends.extractive import summarize_text
from batchsum.backends.units import units_from_text
from batchsum.cleanup import balance_quotes
from batchsum.tokens import get_tokenizer

_CHAPTER = (
    "Catherine woke in the inn at Bath with the memory of the ball still in her mind. The rain beat on the "
    "window all morning. She dressed quickly, ate nothing, and went out to look for Isabella at the pump-room.\n\n"
    "Isabella was not there, and Catherine walked home again through the wet streets of Bath.\n"
)
_WIFE = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune must be in "
    "want of a wife. However little known the feelings of such a man may be, this truth is well fixed."
)


def texts(text: str) -> list[str]:
    return [u.text for u in units_from_text(text, "document")]


def test_an_epigraph_under_a_heading_is_no_summary_text() -> None:
    layouts = [
        f"# Chapter Four\n\n> *{_WIFE}*\n>\n> — Jane Austen, *Pride and Prejudice*\n\n{_CHAPTER}",
        f"# Chapter Four\n\n*{_WIFE}*\n\n— Jane Austen, *Pride and Prejudice*\n\n{_CHAPTER}",
        f"CHAPTER IV\n\n“{_WIFE}”\n-- Jane Austen\n\n{_CHAPTER}",
        # At the text's start, and two in a row.
        f"*{_WIFE}*\n\n― Jane Austen\n\n*“There is nothing like staying at home.”*\n\n*— Mrs. Elton*\n\n{_CHAPTER}",
    ]
    for text in layouts:
        got = texts(text)
        assert not any("truth" in u or "Austen" in u or "staying at home" in u for u in got), got
        assert any("Catherine woke" in u for u in got)


def test_a_quotation_or_italic_passage_without_an_attribution_stays() -> None:
    # No dash line under it: the chapter's own opening (a memory set in italics), not someone else's words.
    text = f"# Chapter Nine\n\n*{_WIFE}*\n\n{_CHAPTER}"
    assert any("universally acknowledged" in u for u in texts(text))
    # A dash line that asks something is dialogue, and a passage deep in the chapter is its text.
    text = f"# Chapter Nine\n\n“{_WIFE}”\n\n— Who said that?\n\n{_CHAPTER}"
    assert any("universally acknowledged" in u for u in texts(text))
    text = f"# Chapter Nine\n\n{_CHAPTER}\n“{_WIFE}”\n\n— Jane Austen\n"
    assert any("universally acknowledged" in u for u in texts(text))


def test_a_sentence_cut_from_an_emphasised_span_shows_whole_marks() -> None:
    text = (
        "# Chapter Nine\n\n*The river was high that summer, and her father was still alive. He took her down "
        "to the mill every morning to watch the wheel. She remembered the smell of flour and the noise of the "
        "stones.*\n\n" + _CHAPTER
    )
    summary = summarize_text(
        text, target_tokens=40, max_tokens=40, kind="standard", content_type="document", tokenizer=get_tokenizer()
    )
    assert summary.count("*") % 2 == 0, summary
    for unit in texts(text):
        assert unit.count("*") % 2 == 0, unit
    # Marks inside a sentence are left as they stand: a footnote's star, a glob in code, a product.
    for whole in ("The results were significant*.", "Run `ls *.txt` first.", "It is 2 * 3 in all."):
        assert balance_quotes(whole) == whole
    assert balance_quotes("However little known, they were daughters.**") == (
        "**However little known, they were daughters.**"
    )
