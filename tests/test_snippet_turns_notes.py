"""Snippets of transcripts and notes as their reader sees them: a snippet stays within its speaker's turn (also
in a window cut inside the turn before it) and shows no bare label of a turn that said only "{vocalsound}"; a
note's struck words and HTML comments are no text of its summary, facets or snippets, and a footnote's text
that matched is its snippet."""

from __future__ import annotations

from pathlib import Path

from batchsum.index.analysis import analyze
from batchsum.index.search import search
from batchsum.index.snippets import make_snippet, markdown_window
from batchsum.tree import read_node
from tests.test_snippet_code_fences import _run

_WORDS = "budget network schedule printer coffee lamp window garden river engine battery cable folder".split()


def _long_turn(who: str, seed: int) -> str:
    """A turn of about 700 characters of the same few words: longer than a window reaches back for its line."""
    return f"{who}: " + " ".join(_WORDS[(seed + 3 * i) % len(_WORDS)] for i in range(110)) + " ."


MEETING = "\n".join(
    [
        *(_long_turn("Grad D" if i % 2 else "Professor B", i) for i in range(8)),
        "Professor B: She was good . Litonya was good .",
        "Project Manager: {vocalsound}",
        "User Interface: {vocalsound}",
        "Grad D: Yeah ? The uh {disfmarker} um , she was definitely good in the sense that she showed us the gaps",
        "Professor B: Right .",
        *(_long_turn("Grad D", i) for i in range(4)),
    ]
)

NOTE = (
    "# Reading log\n\n"
    "I finished **The Overstory** by _Richard Powers_ on the train[^1]. The chapter about the chestnut tree was "
    "the best part.\n\n"
    "- [ ] Write a review of ~~Piranesi~~ Overstory for the club <!-- private: due soon -->\n\n"
    "[^1]: The 8:15 to Utrecht.\n"
)


def _bare_label(snippet: str) -> bool:
    return any(label in snippet for label in ("Project Manager:", "User Interface:"))


def test_a_turn_that_said_nothing_shows_no_label(tmp_path: Path) -> None:
    """The turn's sentence is the snippet, said by its speaker, without the silent turns after it."""
    hit = search(_run(tmp_path, "meeting.txt", MEETING), "Litonya", k=1)[0]
    assert "Litonya" in hit.snippet and hit.snippet.startswith("Professor B:")
    assert not _bare_label(hit.snippet) and "Grad D:" not in hit.snippet and "{" not in hit.snippet


def test_a_window_cut_inside_a_turn_keeps_its_lines_as_turns() -> None:
    """A source window starting inside a long turn (as a search's does) still reads its lines as turns: the
    snippet neither runs into the next speaker's turn nor loses its own speaker."""
    quiet = MEETING.replace("Project Manager: {vocalsound}\nUser Interface: {vocalsound}\n", "")
    at = quiet.index("Professor B: She was good")
    start = quiet.rfind("\n", 0, at - 1) + 500  # well inside the turn before, farther than a window reaches back
    window = markdown_window(quiet, start, at + 900)
    snippet, terms = make_snippet(window, [analyze("Litonya")], cut_start=True, cut_end=True)
    assert terms == ["Litonya"] and snippet.startswith("Professor B:")
    assert "Grad D:" not in snippet


def test_struck_words_and_comments_are_no_text_and_a_footnote_is_a_snippet(tmp_path: Path) -> None:
    cfg = _run(tmp_path, "reading.md", NOTE)
    meta, body = read_node(next((cfg.out / "reading.md").rglob("final.md")))
    tasks = [a["task"] for a in meta["action_items"]]
    assert tasks and all("~~" not in t and "Piranesi" not in t and "<!--" not in t for t in tasks)
    assert "Write a review of Overstory" in body and "<!--" not in body and "Piranesi" not in body
    assert not search(cfg, "Piranesi", k=3)  # struck out: no more found than shown
    review = search(cfg, "review Overstory club", k=1)[0]
    assert "Overstory" in review.snippet and "~~" not in review.snippet and "<!--" not in review.snippet


def test_a_footnote_that_matched_is_the_snippet(tmp_path: Path) -> None:
    """The summarizer leaves a footnote out, the index finds its words: the snippet shows them."""
    utrecht = search(_run(tmp_path, "reading.md", NOTE), "Utrecht", k=1)[0]
    assert "Utrecht" in utrecht.snippet and "Utrecht" in utrecht.terms
