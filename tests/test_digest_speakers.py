"""A conversation quoted in a folder's digest keeps its speakers: a sentence picked from inside a turn is
written after its speaker's label, one turn per line, never two speakers' words on one line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER
from batchsum.speaker_labels import parse_speaker_line

# Dialogues of short turns, several holding more than one sentence (the summarizer may pick the second).
DIALOGUES = {
    "light": [
        ("Person1", "Cigarette?"),
        ("Person2", "Oh, uh. Thanks. Marta, do you have a light?"),
        ("Person1", "Sorry, here."),
        ("Person2", "Thanks. Lovely day. Pity I'm on duty."),
        ("Person1", "I'll stand in with you if you like. I've got nothing else to do."),
        ("Person2", "Oh, no. I couldn't possibly."),
    ],
    "museum": [
        ("Person1", "How much is the admission fee for a student?"),
        ("Person2", "We offer a reduction of half and it comes to ten dollars."),
        ("Person1", "Here you are. Where is the museum guide?"),
        ("Person2", "Well, here you are."),
        ("Person1", "Is it free?"),
        ("Person2", "Of course."),
    ],
    "course": [
        ("Person1", "Are you studying here?"),
        ("Person2", "Yes, I am studying in the Eastern Asian language department."),
        ("Person1", "What are you majoring in?"),
        ("Person2", "I major in Japanese."),
        ("Person1", "What do you think of the literature course?"),
        ("Person2", "It's very helpful. The course has let me into a world of literature. I read so many great books."),
    ],
}


def _digest_paragraphs(out: Path) -> dict[str, list[str]]:
    """The folder digest's paragraphs by the file they quote, each as its lines without the file's label."""
    text = (out / "digests" / "folders" / "talks.md").read_text(encoding="utf-8")
    body = text.split("\n# talks\n", 1)[1].split(LINKS_MARKER, 1)[0]
    found: dict[str, list[str]] = {}
    for paragraph in body.strip().split("\n\n"):
        name, _, rest = paragraph.removeprefix("**").partition(".** ")
        found[name] = rest.split("\n")
    return found


def test_a_conversation_quoted_in_a_folder_digest_keeps_each_sentence_with_its_speaker(tmp_path: Path) -> None:
    src, out = tmp_path / "notes" / "talks", tmp_path / "out"
    src.mkdir(parents=True)
    for name, turns in DIALOGUES.items():
        (src / f"{name}.txt").write_text("".join(f"#{who}#: {said}\n" for who, said in turns), encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src.parent), "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    paragraphs = _digest_paragraphs(out)
    assert set(paragraphs) == set(DIALOGUES)
    for name, lines in paragraphs.items():
        for line in lines:
            who, said = parse_speaker_line(line)
            assert who is not None, f"{name}: no speaker on {line!r}"
            # One turn of that speaker holds all the line's words: none of another speaker's run on.
            words = said.rstrip(".")
            assert any(w == who and words in s for w, s in DIALOGUES[name]), f"{name}: {line!r}"
    index = (out / "index.md").read_text(encoding="utf-8")
    light = index.split("**light.** ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert light[0] == "Person2: Marta, do you have a light?"  # a sentence from inside a turn keeps its speaker
    assert light[1].startswith("Person1: ") and light[1].endswith("I've got nothing else to do.")
