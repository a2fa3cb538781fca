"""A question and its answer are an adjacency pair (Schegloff & Sacks 1973): a summary of a conversation that
quotes a question quotes the other speaker's answer after it, never the question alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

QA = [
    (
        "Will the final cover convex optimization?",
        "Yes. Everything up to lecture nine is on the final, so convex "
        "optimization, duality and gradient methods are all fair game.",
    ),
    (
        "Do we need to memorize the duality theorems?",
        "No, the theorems will be printed on the formula sheet. You need to know when strong duality holds and why.",
    ),
    (
        "How many problems are there on the final?",
        "There are six problems: three proofs, two computations and one modelling problem.",
    ),
    ("Is the final exam open book?", "It is closed book, but you may bring two pages of handwritten notes."),
    (
        "What is the most common mistake on past finals?",
        "Students forget to check the constraint qualification, and they write the Lagrangian with the wrong sign.",
    ),
    (
        "When and where is the final exam?",
        "The final is on Friday December 11 at 2 pm in Barton Hall, and it lasts two and a half hours.",
    ),
    (
        "Will there be a review session before the final?",
        "The TAs will hold a review session on Tuesday December 8 at 6 pm in Phillips 101.",
    ),
]


def _run(corpus: Path, out: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"]


def _turns(out: Path, rel: str) -> list[tuple[str, str]]:
    """The final's lines as (speaker, words); its facets and links left out."""
    body = read_node(node_path(out, rel, 3, None))[1].split("\n## ")[0].split("<!-- batchsum:links -->")[0]
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^([^:\n]+): (.+)$", body, re.M)]


def _unanswered(turns: list[tuple[str, str]]) -> list[str]:
    """The quoted questions not followed by another speaker's line."""
    return [
        said
        for k, (who, said) in enumerate(turns)
        if said.rstrip().endswith("?") and (k + 1 == len(turns) or turns[k + 1][0] == who)
    ]


def test_a_picked_question_comes_with_its_answer(tmp_path: Path) -> None:
    corpus = tmp_path / "exam"
    corpus.mkdir()
    # The same pairs as a Q&A sheet and as a conversation between named people, at two lengths: a BRIEF final
    # (one line a turn) and, with the pairs three times over in other words, a STANDARD one.
    (corpus / "review_qa.md").write_text(
        "# Final exam review\n\n" + "\n\n".join(f"Q: {q}\nA: {a}" for q, a in QA) + "\n"
    )
    (corpus / "office_hours.txt").write_text("".join(f"Priya: {q}\nDr. Okafor: {a}\n" for q, a in QA))
    long = [
        (q.replace("final", variant), a.replace("final", variant))
        for variant in ("final", "last exam", "end-of-term test")
        for q, a in QA
    ]
    (corpus / "review_long.txt").write_text("".join(f"Sam: {q}\nLena: {a}\n" for q, a in long))
    out = tmp_path / "out"
    _run(corpus, out)
    for rel in ("review_qa.md", "office_hours.txt", "review_long.txt"):
        turns = _turns(out, rel)
        assert turns, rel
        assert not _unanswered(turns), (rel, turns)


def test_an_answer_broken_off_is_no_line_of_the_final(tmp_path: Path) -> None:
    # A question's next turn that breaks off ("Yeah, we want") answers nothing: no final line may stop mid-way
    # (review: QMSum finals had gained "Industrial Designer: Yeah, we want").
    corpus = tmp_path / "meeting"
    corpus.mkdir()
    lines = [
        "Ana: Should we build the remote control with the rubber case for the launch?",
        "Ben: Yeah, we want",
        "Ana: The remote control prototype needs a new case for the launch.",
        "Ben: The rubber case costs more, but the users in the survey liked the rubber case.",
        "Cleo: The survey says younger users want the rubber case and a bright colour.",
        "Ana: The launch budget allows the rubber case if we drop the speech recognition.",
        "Ben: Dropping speech recognition saves twelve euros on every remote control.",
        "Cleo: Then the rubber case and the bright colour fit the launch budget.",
    ]
    (corpus / "design.txt").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    _run(corpus, out)
    turns = _turns(out, "design.txt")
    assert turns
    assert all(re.search(r"[.!?]$", said.rstrip()) for _, said in turns), turns
