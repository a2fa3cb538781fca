"""A CJK date in the index is a number written against its unit: "Chapter 2" above "日本の歴史" and the 日 of
"10日本円" are no dates, so 日本 stays a word of the text; Korean's spaced "2024년 7월 11일" still is one."""

from __future__ import annotations

from batchsum.index.analysis import analyze


def test_a_number_above_a_line_is_no_date() -> None:
    assert "日本" in analyze("Chapter 2\n\n日本の歴史")
    assert "日本" in analyze("Chapter 2 日本の歴史")


def test_a_day_unit_that_opens_a_word_is_the_word() -> None:
    terms = analyze("10日本円")
    assert "日本" in terms and "10" in terms, terms


def test_dates_written_together_are_still_dates() -> None:
    assert {"2024", "7月"} <= set(analyze("2024年7月11日に会議"))
    assert {"2024", "7月"} <= set(analyze("2024년 7월 11일에 회의"))
    assert "日" not in "".join(analyze("会議は11日です")), analyze("会議は11日です")
