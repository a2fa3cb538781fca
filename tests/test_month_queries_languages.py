"""A month is one month in every language a query or an entry writes it: "2024年4月发生了什么" had answered only
April's digest, never its entries headed "3 April 2024" and "17. April 2024", which "what happened in April
2024" finds by their month's name; "im März" had found nothing ("im" a word to match, "März" no "March"), and
"June" no Chinese entry headed "2024年6月2日"."""

from __future__ import annotations

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.analysis import query_groups
from batchsum.index.search import search

ENTRIES = {
    "2024-03-12.md": "# Tuesday, 12 March 2024\n\nWent to the dentist. The filling was replaced.\n",
    "2024-04-03.md": "# Wednesday, 3 April 2024\n\nStarted the new job at the harbour office. Met Karen there.\n",
    "2024-04-17.md": "# Mittwoch, 17. April 2024\n\nMit Tom an die Küste gefahren. Wir haben Fisch gegessen.\n",
    "2024-05-08.md": "# Wednesday, 8 May 2024\n\nPlanted tomatoes and beans. The neighbour lent us a wheelbarrow.\n",
    "2024-06-02.md": "# 2024年6月2日\n\n今天去了杭州。西湖很美，我们在湖边喝了龙井茶。\n",
}
APRIL = {"2024-04-03.md", "2024-04-17.md"}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("out")
    for name, text in ENTRIES.items():
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    return RunConfig(paths=[], out=out)


def _entries(cfg: RunConfig, query: str) -> list[str]:
    return [h.source_path for h in search(cfg, query, k=8) if not h.source_path.startswith("digests/")]


@pytest.mark.parametrize(
    "query",
    [
        "what happened in April 2024",
        "2024年4月发生了什么",
        "2024年4月の出来事",
        "2024年4月",
        "4月",
        "Was geschah im April 2024",
    ],
)
def test_a_month_in_any_language_finds_its_entries_in_any_language(cfg: RunConfig, query: str) -> None:
    found = _entries(cfg, query)
    assert set(found[:2]) == APRIL, (query, found)


def test_a_german_month_without_its_year_finds_that_months_entry(cfg: RunConfig) -> None:
    for query in ("im März", "Was geschah im März"):
        assert _entries(cfg, query)[:1] == ["2024-03-12.md"], (query, _entries(cfg, query))


def test_a_month_name_finds_the_entry_a_cjk_date_heads(cfg: RunConfig) -> None:
    for query in ("June", "Juni"):
        assert _entries(cfg, query)[:1] == ["2024-06-02.md"], (query, _entries(cfg, query))


def test_an_everyday_word_is_a_month_only_beside_a_number() -> None:
    languages = ["english", "german", None]
    assert not any("5月" in g for g in query_groups("what may happen", languages))
    assert not any("3月" in g for g in query_groups("Mars rover", languages))
    assert any("5月" in g for g in query_groups("May 2024", languages))
