"""Marks a sentence must not be shown with: a prime read as a quotation mark ("k(x, x')"), and the bracket and
emphasis closing a stage direction the sentence was cut from ("... dripping wet.*].")."""

from __future__ import annotations

import re
from pathlib import Path

from batchsum.backends.units import units_from_text
from batchsum.cleanup import balance_quotes
from tests.one_final import final_node

_PLAY = """*A lighthouse kitchen on the Cornish coast. Evening. A storm is rising.*

SAMUEL. It is the only comfort I have had since your mother died.

[*A knock at the door. AGNES rises. Enter THOMAS PENROSE, a young fisherman, dripping wet.*]

THOMAS. Mr. Tremayne, the Trinity House inspector is in the village. He says the light is to be automated by \
spring and the keepers sent away.

SAMUEL. Sent away? After thirty-one years?

[*THOMAS sits. SAMUEL climbs the stair to the lamp room. Exit SAMUEL.*]
"""
# A stop, the marks a span closes with, and the stop a summary adds to a sentence not ending in one: "wet.*].".
_DOUBLED_STOP = re.compile(r"[.!?][*_)\]]+\.")


def test_a_prime_is_no_quotation_mark() -> None:
    """Primes after a symbol add no mark; a quoted letter and quoted speech are still made whole."""
    for prime in (
        "The RBF kernel is k(x, x') = exp(-gamma) and f'(x) is its derivative.",
        "We set y'' = 0 and x' + 1 at the edge of the grid.",
    ):
        assert balance_quotes(prime) == prime
    assert balance_quotes("Write the letter 'a', then the rest.") == "Write the letter 'a', then the rest."
    assert balance_quotes("Are you sure?' he asked.") == "'Are you sure?' he asked."
    assert balance_quotes("He said to me, 'For a long time now.").endswith("now.'")


def test_a_sentence_cut_from_a_bracket_carries_none_of_its_marks() -> None:
    """The bracket a sentence never opened or closed goes, with the emphasis against it nothing matches, and
    the stop is not doubled; a matched bracket, a smiley and emphasis closed inside the sentence stay."""
    cut = {
        "Enter THOMAS PENROSE, dripping wet.*].": "Enter THOMAS PENROSE, dripping wet.",
        "[*A knock at the door.": "A knock at the door.",
        "and the rest of it).": "and the rest of it.",
        "as shown in *Figure 2*).": "as shown in *Figure 2*.",
    }
    for sentence, shown in cut.items():
        assert balance_quotes(sentence) == shown
    kept = ("[*THOMAS sits.*]", "See you then :)", "(a) The first step.", "b) and the cards (2024).")
    for whole in kept:
        assert balance_quotes(whole) == whole
    for unit in units_from_text(_PLAY, "document"):
        assert unit.text.count("[") == unit.text.count("]"), unit.text
        assert unit.text.count("*") % 2 == 0, unit.text
        assert not _DOUBLED_STOP.search(unit.text), unit.text


def test_a_play_final_shows_no_stray_marks(tmp_path: Path) -> None:
    """The whole run on a play with stage directions: no stray bracket, star or doubled stop in the final."""
    _, body = final_node(tmp_path, "play.md", _PLAY)
    summary = body.split("<!--")[0].strip()
    assert "THOMAS PENROSE" in summary, summary
    assert summary.count("[") == summary.count("]") and summary.count("*") % 2 == 0, summary
    assert not _DOUBLED_STOP.search(summary), summary
