"""A CJK date phrase is read as the period or day it names, never as the words 月, 日 or 年 that every dated
CJK heading holds ("7月" had found a June file at 1.000, "5月" ranked it first); a day query finds the entry
that writes the day in any language, and no entry of another month with the same day number ("11 July" had
found an August file's "11 August" at 1.000, and the Chinese "## 7月11日" never)."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.analysis import analyze, query_groups
from batchsum.index.search import search

MAY = "---\ndate: 2024-05-03\n---\n## 5月3日\n\n今天在北京下雨。下午和张伟在星巴克讨论了新的应用。\n"
JUNE = (
    "# 2024年6月\n\n## 6月1日\n\n今天去了杭州。西湖很美，我们在湖边喝了龙井茶。\n\n"
    "## 6月2日\n\n在家用Obsidian写笔记。晚上给妈妈打了电话。\n"
)
JULY = (
    "# 2024年7月\n\n## 7月10日\n\n今天去了杭州。西湖很美，我们在湖边喝了龙井茶。\n\n"
    "## 7月11日\n\n在家用Obsidian写笔记。学习了Rust语言的所有权概念，觉得很难。\n"
)
AUGUST = "# August 2024\n\n## 10 August\n\nWe drove to the lake. The water was cold.\n\n## 11 August\n\nRain all day.\n"


def _run(tmp_path: Path, files: dict[str, str]) -> RunConfig:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    return RunConfig(paths=[], out=out)


def test_a_cjk_date_phrase_is_no_word_month_day_or_year() -> None:
    for query in ("7月", "12月", "2023年7月", "5月3日", "2024년 7월 11일", "7月11日に何をしましたか"):
        terms = {t for g in query_groups(query, [None]) for t in g}
        assert not terms & {"月", "日", "年", "월", "일", "년"}, (query, terms)
    assert {t for g in query_groups("7月", [None]) for t in g} != {t for g in query_groups("5月", [None]) for t in g}
    # The same day written in two languages is one term of both texts.
    assert set(analyze("## 7月11日 在家")) & set(analyze("## 11 July\nAt home."))


def test_a_month_query_finds_that_months_entries_only(tmp_path: Path) -> None:
    cfg = _run(tmp_path, {"2024-05-03.md": MAY, "2024-06.md": JUNE})
    for query in ("7月", "12月", "2023年7月"):
        assert search(cfg, query, k=3) == [], query
    may = search(cfg, "5月", k=3)
    assert may and may[0].source_path == "2024-05-03.md", [(h.source_path, h.score) for h in may]
    assert all(h.source_path != "2024-06.md" for h in may), [(h.source_path, h.score) for h in may]


def test_a_day_query_finds_the_entry_writing_that_day_in_any_language(tmp_path: Path) -> None:
    cfg = _run(tmp_path, {"2024-07.md": JULY, "2024-08.md": AUGUST})
    for query in ("11 July", "7月11日", "2024年7月11日"):
        hits = search(cfg, query, k=3)
        assert hits and hits[0].source_path == "2024-07.md", (query, [(h.source_path, h.score) for h in hits])
        assert all(h.source_path != "2024-08.md" for h in hits), (query, [(h.source_path, h.score) for h in hits])
    august = search(cfg, "10 August", k=3)
    assert august and august[0].source_path == "2024-08.md", [(h.source_path, h.score) for h in august]
    # No entry writes these days: nothing answers them, by their words or by their meaning.
    for query in ("3 August", "11 July 2023"):
        assert search(cfg, query, k=3) == [], (query, [(h.source_path, h.score) for h in search(cfg, query, k=3)])
