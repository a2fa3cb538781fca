"""A query word that is its own stem in every language still outranks another language's word of that stem:
German "gar" is the Snowball stem of French "gare" too. The word had counted for nothing, so a short, newer French
entry repeating "gare" ranked above the German entries that wrote "gar" (by BM25 strength, or as the newest of
hits tied at 1.000, whichever the collection statistics, which a digest's quotes shift, made it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

GERMAN = (
    "Am Abend war es gar nicht kalt, und wir saßen lange auf der Terrasse beim Wein.",
    "Der Zug kam gar nicht an, also fuhren wir mit dem Bus zurück in die Stadt.",
)
FRENCH = "La gare était pleine. Devant la gare, encore la gare du Nord, et la gare de l'Est plus loin.\n"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("journal")
    for n, text in enumerate(GERMAN, start=1):
        (src / f"2024-03-0{n}.md").write_text(f"{text}\n", encoding="utf-8")
    (src / "2024-03-20.md").write_text(FRENCH, encoding="utf-8")  # the newest and the strongest by BM25
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return out


def _entries(out: Path, query: str) -> list[str]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "-k", "5", "--json"])
    assert res.exit_code == 0, res.output
    return [h["source_path"] for h in json.loads(res.output) if not h["source_path"].startswith("digests/")]


@pytest.mark.parametrize("query", ["gar", "GAR"])
def test_an_own_stem_word_as_written_ranks_first(out: Path, query: str) -> None:
    entries = _entries(out, query)
    assert set(entries[:2]) == {"2024-03-01.md", "2024-03-02.md"}, entries
    assert "2024-03-20.md" in entries[2:], entries  # the French entry stays a hit, below them


def test_the_other_word_of_the_stem_still_ranks_first_for_itself(out: Path) -> None:
    assert _entries(out, "gare")[0] == "2024-03-20.md"
