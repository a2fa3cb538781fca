"""Joined initials end a sentence unless a name follows them: "We flew to L.A. Traffic was terrible." is two
sentences, "with J.P. Morgan. Please go ahead." keeps the firm whole."""

from __future__ import annotations

from batchsum.text import split_sentences


def test_joined_initials_before_a_sentence_end_it() -> None:
    for text in [
        "We flew to L.A. Traffic was terrible.",
        "We flew to D.C. Traffic was terrible.",
        "I met the C.E.O. Everyone clapped.",
    ]:
        sentences = [s.text for s in split_sentences(text)]
        assert len(sentences) == 2 and sentences[0].endswith(".") and sentences[1][:1].isupper(), sentences


def test_joined_initials_before_a_name_go_on() -> None:
    for text in [
        "Tom Lee is with J.P. Morgan. Please go ahead.",
        "She joined J.P. Morgan Chase last spring. It paid well.",
    ]:
        sentences = [s.text for s in split_sentences(text)]
        assert len(sentences) == 2 and "J.P. Morgan" in sentences[0], sentences


def test_a_word_the_text_writes_in_lower_case_is_no_name() -> None:
    # "Siemens A.G." closes a name, yet "Traffic" is a word here: the text writes "traffic" too.
    text = "We met Siemens A.G. Traffic was light. The traffic cleared."
    assert len(split_sentences(text)) == 3
