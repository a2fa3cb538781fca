"""A line a unit: a survey's answers one per line, without stops, are read as sentences of their own, not
run together into one; hard-wrapped prose and a poem's lines are read as before."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.text import lines_are_items, split_sentences

ANSWERS = [
    "Onboarding took too long and I didn't know where to start",
    "Love the dashboard, hate the pricing",
    "The mobile app is great but SSO never works",
    "Please add a dark mode",
    "Support took three days to answer my refund request",
    "I could not find the CSV export",
    "Too expensive for a team of three",
    "Great product, would recommend",
    "The checklist kept resetting during setup",
    "Billing confused our finance team every month",
    "Search needs better filters for older projects",
    "Team invites were impossible to find in the settings",
]

PROSE = """It was the best of times, it was the worst of times, it was the age of wisdom, it
was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it
was the season of Light, it was the season of Darkness, it was the spring of hope, it was
the winter of despair, we had everything before us, we had nothing before us, we were all
going direct to Heaven, we were all going direct the other way."""

POEM = """    I wandered lonely as a cloud
    That floats on high o'er vales and hills
    When all at once I saw a crowd
    A host of golden daffodils
    Beside the lake beneath the trees"""


def test_each_answer_is_a_sentence_of_its_own() -> None:
    text = "\n".join(ANSWERS)
    assert lines_are_items(text)
    assert [s.text for s in split_sentences(text)] == ANSWERS


def test_hard_wrapped_prose_and_a_poem_are_not_items() -> None:
    assert not lines_are_items(PROSE) and not lines_are_items(POEM)
    assert len(split_sentences(PROSE)) == 1


def test_a_surveys_summary_quotes_whole_answers(tmp_path: Path) -> None:
    src = tmp_path / "survey"
    src.mkdir()
    (src / "q4-free-text.txt").write_text("\n".join(ANSWERS * 1) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
    assert result.exit_code == 0, result.output
    index = (out / "index.md").read_text(encoding="utf-8")
    line = next(ln for ln in index.splitlines() if ln.startswith("**q4-free-text.**"))
    # Every answer quoted ends as a sentence, and no answer runs into the next one.
    for answer in ANSWERS:
        if answer in line:
            assert answer + "." in line, line
    assert "start Love" not in line and "pricing The" not in line, line


def test_lines_whose_text_goes_on_below_in_lower_case_are_no_items() -> None:
    """A header's lines over a blurb that runs on past a blank line: its last line is no sentence."""
    text = (
        "Produced by Greg Weeks, Mary Meehan and the Online\n"
        "Distributed Proofreading Team at the Project website\n"
        "Doorway to Kal-Jmar\n"
        "By Stuart Fleming\n"
        "Two men had died before Syme Rector's guns\n"
        "\n"
        "to give him the key to the ancient city of Kal-Jmar, a city of untold wealth.\n"
        "\n"
        "The ship came down at dawn on the red plain and the crew stepped out into the heat."
    )
    shown = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert "Two men had died before Syme Rector's guns." not in shown, shown
