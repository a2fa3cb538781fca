"""A long text's final (HIERARCHICAL) draws on its whole length: it quotes each of its parts before any twice,
as far as its budget goes, whatever the number of its parts, and a long sentence is picked only where it leaves
room for the parts not yet quoted. Tolstoy's final (20 parts) had been six sentences, two of 169 and 143 words,
that quoted 4 of its parts."""

from __future__ import annotations

import random
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node

_NAMES = ["Wendy", "Peter", "John", "Michael", "Nana", "Hook", "Tinker", "Smee", "Slightly", "Tootles"]
_PLACES = ["nursery", "lagoon", "forest", "ship", "island", "cave", "garden", "river", "tree", "rock"]
_VERBS = ["watched", "found", "left", "remembered", "described", "feared", "loved", "searched", "followed", "called"]
_DAY = re.compile(r"on day (\d+)\.")


def _book() -> str:
    """260 sentences dated by their place in the book ("on day 17"); every fifth is a long one naming everyone."""
    rng = random.Random(7)
    sentences = []
    for day in range(1, 261):
        a, b = rng.sample(_NAMES, 2)
        said = f"{a} {rng.choice(_VERBS)} {b}"
        if day % 5 == 1:
            pairs = [rng.sample(_NAMES, 2) for _ in range(8)]
            said += ", and " + ", and ".join(
                f"{x} {rng.choice(_VERBS)} {y} near the {rng.choice(_PLACES)}" for x, y in pairs
            )
        else:
            said += f" near the {rng.choice(_PLACES)}"
        sentences.append(f"{said} on day {day}.")
    return "\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)) + "\n"


def _days(path: Path) -> list[int]:
    _, body = read_node(path)
    return [int(d) for d in _DAY.findall(body.split("<!-- batchsum:links -->")[0])]


def test_a_long_texts_final_quotes_every_part(tmp_path: Path) -> None:
    """Fewer parts than a book's rule of 8: the final quotes each of them; the long sentences of the opening
    parts had taken its budget, and three of its seven parts went unquoted."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "book.txt").write_text(_book(), encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--no-index", "-q", "--thresholds", "10,20,40,80"]
    r = CliRunner().invoke(main, [*args, "--chunk-size", "400", "--group-size", "5", "--final-words", "80"])
    assert r.exit_code == 0, r.output
    summaries = out / "book.txt" / "summaries"
    groups = sorted(summaries.glob("L2/group_*.md"), key=lambda p: int(p.stem.split("_")[1]))
    assert 3 <= len(groups) < 8
    part_of = {day: k for k, group in enumerate(groups) for day in _days(group)}
    final = _days(summaries / "L3" / "final.md")
    assert {part_of[day] for day in final} == set(range(len(groups))), (final, len(groups))
