"""Hard-wrapped prose whose lines open with a lower-case "word:" goes on with its sentence."""

from __future__ import annotations

from batchsum.text import split_sentences


def texts(source: str) -> list[str]:
    return [" ".join(s.text.split()) for s in split_sentences(source)]


def test_a_wrapped_line_under_a_line_that_only_looked_like_a_turn_goes_on() -> None:
    source = (
        "The rain came on at four, and we were all called in from the shrubbery.\n\n"
        "I was glad of it: I never liked long walks, especially on chilly\n"
        "afternoons: dreadful to me was the coming home in the raw twilight, with\n"
        "nipped fingers and toes, and a heart saddened by the chidings of Bessie.\n\n"
        "He replied not: he seemed serious--abstracted; he sighed; he half-opened\n"
        "his lips as if to speak: he closed them again.  I felt a little\n"
        "embarrassed."
    )
    got = texts(source)
    # No sentence stops mid-line where only the page's width ended the line.
    assert not any(s.endswith(("chilly", "half-opened")) for s in got)
    assert any("chilly afternoons: dreadful" in s for s in got)
    assert any("half-opened his lips as if to speak: he closed them again." in s for s in got)
    assert got[-1] == "I felt a little embarrassed."


def test_real_turns_and_key_value_lines_stay_apart() -> None:
    # A capitalised name's turn after another turn, wrapped or not, is a turn of its own.
    chat = (
        "Bob: I looked at the quotes from all three of the caterers this morning and\n"
        "Ana: hello, which one do you like best of them?"
    )
    assert texts(chat) == [
        "Bob: I looked at the quotes from all three of the caterers this morning and",
        "Ana: hello, which one do you like best of them?",
    ]
    # A log of lower-case names: the turn under a lower-case name's turn is a turn.
    log = (
        "ana: so i looked at the quotes from all three of the caterers this morning and\n"
        "bob: which one do you like best of them all"
    )
    assert len(texts(log)) == 2
    # A list of "key: value" lines, one a line.
    keys = "Host: example.com\nport: 8080\nuser: admin"
    assert texts(keys) == ["Host: example.com", "port: 8080", "user: admin"]
