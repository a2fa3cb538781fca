"""Subtitle cues with two speakers, and the markup a cue's text may carry: each speaker's words are a turn
of their own, and no tag, override code or character reference is read as words."""

from __future__ import annotations

from batchsum.readers.formats import render_subtitles


def _turns(raw: str) -> list[str]:
    return render_subtitles(raw).split("\n\n")


def test_dialogue_dashes_split_a_cue_into_turns_without_the_dash() -> None:
    srt = (
        "1\n00:00:04,500 --> 00:00:09,000\n- Is this the last crossing tonight?\n- The last one, yes. Nine forty.\n\n"
        "2\n00:00:09,500 --> 00:00:15,000\nMARTA: My father worked this ferry.\n"
    )
    turns = _turns(srt)
    assert turns[:2] == ["Is this the last crossing tonight?", "The last one, yes. Nine forty."]
    assert turns[2].startswith("MARTA: ")
    assert not any(" - " in t or t.startswith("-") for t in turns)


def test_a_line_under_a_dash_line_goes_on_with_its_turn_and_a_number_is_no_dash() -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:03,000\n- It dropped to\n-5 degrees last night.\n- Really?\n\n"
        "2\n00:00:03,500 --> 00:00:05,000\nWe should go in.\n"
    )
    turns = _turns(srt)
    assert turns[0] == "It dropped to -5 degrees last night."
    assert turns[1] == "Really?"
    # Whose a cue after a two-speaker cue is is unknown: not the second speaker's turn.
    assert turns[2] == "We should go in."


def test_two_voice_tags_in_one_cue_are_two_speakers() -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Anna Berg>Was that the last boat?\n"
        "<v Tom Reyes>The very last one, in 2004.\n\n"
        "00:00:04.500 --> 00:00:09.000\n<v Anna Berg>Then I'll bring the ledger.\n"
    )
    assert _turns(vtt) == [
        "Anna Berg: Was that the last boat?",
        "Tom Reyes: The very last one, in 2004.",
        "Anna Berg: Then I'll bring the ledger.",
    ]


def test_override_codes_tags_and_entities_are_not_words_and_labels_are_found_under_them() -> None:
    srt = (
        "1\n00:00:00,500 --> 00:00:05,000\n{\\an8}KEEPER'S DAUGHTER: We moved to the light in 1958.\n\n"
        '2\n00:00:05,500 --> 00:00:12,000\n<font color="#ffff00">INTERVIEWER:</font> How old were you then?\n\n'
        "3\n00:00:12,500 --> 00:00:20,000\n"
        "KEEPER'S DAUGHTER: Seven &amp; a half. &lt;laughs&gt; &quot;Ha&quot;,&nbsp;it&#39;s true.\n"
    )
    turns = _turns(srt)
    assert [t.split(": ", 1)[0] for t in turns] == ["KEEPER'S DAUGHTER", "INTERVIEWER", "KEEPER'S DAUGHTER"]
    assert turns[1] == "INTERVIEWER: How old were you then?"
    text = "\n".join(turns)
    assert "{" not in text and "&" not in text.replace(" & ", "") and "font" not in text
    assert 'Seven & a half. <laughs> "Ha", it\'s true.' in turns[2]


def test_cues_of_one_speaker_without_marks_still_run_on_as_one_turn() -> None:
    """The negative case: plain cues, one speaker's over several (an unnamed cue the same voice going on)."""
    srt = (
        "1\n00:00:01,000 --> 00:00:02,000\nANA: We start\nat nine.\n\n"
        "2\n00:00:02,500 --> 00:00:04,000\nANA: Bring the keys.\n\n"
        "3\n00:00:04,500 --> 00:00:06,000\nNo one said a word.\n\n"
        "4\n00:00:06,500 --> 00:00:08,000\nThen the bell rang - twice.\n"
    )
    assert _turns(srt) == ["ANA: We start at nine. Bring the keys. No one said a word. Then the bell rang - twice."]


def test_a_sentence_with_a_colon_under_a_voice_tag_is_no_label() -> None:
    vtt = "WEBVTT\n\n00:01:12.000 --> 00:01:24.000\n<v Alice>The tide card is one curve: the next twelve hours.\n"
    assert _turns(vtt) == ["Alice: The tide card is one curve: the next twelve hours."]
