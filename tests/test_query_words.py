"""The words a query's snippets have found to stem to its terms are one table per query, made with its lexical
result and handed to each snippet (:class:`~batchsum.index.snippets.QueryWords`), not a cache shared by queries."""

from __future__ import annotations

from batchsum.index.lexical import query_tokens
from batchsum.index.search import LexicalResult
from batchsum.index.snippets import QueryWords, day_item, make_snippet, table_row_snippet

BODY = (
    "The team met on Monday. The budget for the remote control was cut to twelve euros.\n\n"
    "Marketing asked for a scroll wheel. Budgets were tight and the designers disagreed."
)
TABLE = "| Part | Cost |\n|---|---|\n| Scroll wheel | 3 euros |\n| Budget case | 2 euros |\n"


def test_a_querys_words_are_filled_by_its_snippets_and_give_what_a_fresh_table_gives() -> None:
    groups = query_tokens("budget scroll wheel")
    words = QueryWords(groups)
    shared = make_snippet(BODY, groups, query_words=words)
    assert shared == make_snippet(BODY, groups)  # the same snippet and words as a table of its own
    known = words.known(None)
    assert known["budget"] is True and known["Budgets"] is True and known["team"] is False
    assert words.known("fr") == {}  # by language: another language stems the same word otherwise
    # The table read, a second text's snippet, row and dated line come out as with tables of their own.
    assert make_snippet(BODY.upper(), groups, query_words=words) == make_snippet(BODY.upper(), groups)
    assert table_row_snippet(TABLE, groups, query_words=words) == table_row_snippet(TABLE, groups)
    dated = "- Order the scroll wheel by 2026-11-20\n- Budget review"
    assert day_item(dated, groups, ["2026-11-20"], query_words=words) == day_item(dated, groups, ["2026-11-20"])


def test_each_lexical_result_has_its_own_words() -> None:
    """One query's snippets share one table; another query (the same words too) has its own."""
    groups = query_tokens("budget")
    first, second = LexicalResult({}, [], 0.0, {}, groups), LexicalResult({}, [], 0.0, {}, groups)
    assert first.words is first.words and first.words is not second.words
    assert first.words.wanted == frozenset(t for g in groups for t in g)
