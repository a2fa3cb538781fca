"""A word that spells a month is no month unless its place says so: Italian "mai" is "never" and Mai a given
name, so "non ho mai riparato" had listed May's entry and the year's digest above the only entry that repaired
anything, and "dinner with Mai" searched every language's May ("maggio", "mayo", "5月")."""

from __future__ import annotations

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.analysis import query_groups, term_languages
from batchsum.index.search import search
from batchsum.periods import months_named, periods_named

ENTRIES = {
    "2024-05-03.md": "# 3 maggio 2024\n\nSiamo andati al mare con i bambini. Abbiamo mangiato il gelato.\n",
    "2024-06-10.md": "# 10 giugno 2024\n\nOggi ho riparato la bicicletta. La catena era rotta.\n",
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("out")
    for name, text in ENTRIES.items():
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    return RunConfig(paths=[], out=out)


def _sources(cfg: RunConfig, query: str) -> list[str]:
    return [h.source_path for h in search(cfg, query, k=8)]


def test_a_word_spelling_a_month_searches_no_month() -> None:
    languages = ["italian", "english", None]
    for query in ("dinner with Mai", "non ho mai riparato", "Meeting with June", "what may happen"):
        assert not months_named(query), query
        assert not any(t.endswith("月") for g in query_groups(query, languages) for t in g), query


def test_a_month_word_beside_a_year_after_in_or_alone_is_its_month() -> None:
    for query in ("Mai 2024", "im Mai", "what happened in June", "mai", "le 3 mai", "in May"):
        assert months_named(query) == ({6} if "June" in query else {5}), query
    assert periods_named("Mai 2024") == ["2024-05"]
    # A false month joins no year: the query names the year, not May of it (whose entries would be candidates).
    assert periods_named("non ho mai riparato nel 2024") == ["2024"]


def test_never_is_no_may(cfg: RunConfig) -> None:
    found = _sources(cfg, "non ho mai riparato")
    assert "2024-05-03.md" not in found, found
    assert not any(path.startswith("digests/") for path in found), found


def test_a_month_name_counts_only_in_texts_of_its_languages() -> None:
    # "Mai" of "Mai 2024" is German or French May: an Italian text's "mai" (never) is no May, while its
    # "maggio" is.
    made = term_languages("Mai 2024", ["italian", "german", None])
    assert "italian" not in made["mai"] and "german" in made["mai"], made
    assert any("italian" in made[t] for t in made if t.startswith("magg")), made
