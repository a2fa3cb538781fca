"""A query's word as written outranks another language's words of its stem: French "gare" and German "gar" share
the Snowball stem "gar", and three German entries saying "gar nicht" had ranked above the French "à la gare de
Lyon" (a reviewer's journal in four languages). The German entries stay hits, below it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

GERMAN = (
    "Das Wetter war gar nicht schön, und wir blieben gar zu lange im Haus. Der Regen hörte den ganzen Tag nicht auf.",
    "Die Suppe war gar nicht warm, aber das Brot war frisch. Wir haben gar nichts mehr gekauft und sind heimgegangen.",
    "Ich konnte gar nicht schlafen, weil die Nachbarn so laut waren. Am Morgen war ich gar zu müde für die Arbeit.",
)
FRENCH = (
    "Hier je suis allé à la gare de Lyon pour chercher ma sœur, qui arrivait de Marseille. Le train avait une heure "
    "de retard, alors nous avons pris un café dans le hall en regardant les voyageurs pressés passer devant nous."
)


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("journal")
    for n, text in enumerate(GERMAN, start=1):
        (src / f"2024-01-0{n}.md").write_text(f"{text}\n", encoding="utf-8")
    (src / "2024-01-09.md").write_text(f"{FRENCH}\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return out


def _sources(out: Path, query: str, k: int) -> list[str]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "-k", str(k), "--json"])
    assert res.exit_code == 0, res.output
    return [h["source_path"] for h in json.loads(res.output)]


@pytest.mark.parametrize("query", ["gare", "GARE", "Gare"])
def test_the_query_word_as_written_ranks_first(out: Path, query: str) -> None:
    sources = _sources(out, query, 5)
    assert sources[0] == "2024-01-09.md", sources
    assert {"2024-01-01.md", "2024-01-02.md", "2024-01-03.md"} <= set(sources)  # the shared stem still finds them


def test_it_is_a_candidate_when_one_hit_is_asked_for(out: Path) -> None:
    assert _sources(out, "gare", 1) == ["2024-01-09.md"]


def test_the_other_language_word_as_written_ranks_first_too(out: Path) -> None:
    assert _sources(out, "gar", 5)[0] != "2024-01-09.md"
