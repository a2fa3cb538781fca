"""Dated queries in the languages batchsum reads: a request's phrasing is no topic in any of them ("Was ist im März
2024 passiert?" had scored the month's digest 0.686, "qu'est-ce qui s'est passé en mars 2024 ?" 0.242, where the
English scored 1.000); a named day's own file leads the diaries that merely hold an entry of it, and a diary's
snippet shows that day's entry, never running into the next one ("2024-03-12: ...2024-03-15: ...")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import SearchHit, search

GERMAN = (
    "# 12. März 2024\n\nHeute früh fuhr ich mit dem Rad zum Hafen und sah den Fischern beim Flicken der Netze zu. "
    "Der Wind kam kalt von Norden, und die Möwen standen still über dem Wasser.\n"
)
# Dated by its first entry, 12 March; its summary keeps the longer entry of 20 March.
RUSSIAN = (
    "# Март 2024\n\n## 12 марта 2024 г.\n\nУтром сходил на почту.\n\n## 20 марта 2024 г.\n\n"
    "Вечером читал книгу о путешествиях по Сибири до поздней ночи, о том, как экспедиция шла на собаках через "
    "тайгу к Байкалу. Снег за окном шел не переставая, и ветер выл в трубе. Соседка принесла пирог с капустой и "
    "рассказала новости о своем сыне, который служит на флоте во Владивостоке.\n"
)
FRENCH = (
    "# jeudi 14 mars 2024\n\nJ'ai marché le long de la Loire jusqu'au vieux moulin, puis j'ai déjeuné d'une soupe "
    "au marché couvert. Le soir, lettre à ma sœur.\n"
)
_PLACES = [("2024年3月12日", "公园", "柳树发芽"), ("3月15日", "图书馆", "海洋小说"), ("3月18日", "火锅店", "西藏旅行"),
           ("3月22日", "办公室", "产品计划"), ("3月28日", "医院", "体检报告")]  # fmt: skip
# A month's diary long enough for a summary of dated lines, one per entry ("2024-03-12: ...").
CHINESE = "# 2024年3月\n\n" + "".join(
    f"## {day}\n\n"
    + "".join(f"第{k}件事发生在{place}附近，我想起了{thing}的第{k}个细节，心里很久都不能平静。" for k in range(1, 9))
    + "\n\n"
    for day, place, thing in _PLACES
)
_LABEL = re.compile(r"\d{4}-\d\d-\d\d:")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("diaries")
    for rel, text in (("de/2024-03-12.md", GERMAN), ("ru/dnevnik.md", RUSSIAN), ("fr/2024-03-14.md", FRENCH),
                      ("zh/日记.md", CHINESE)):  # fmt: skip
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    target = src.parent / "out"
    batchsum.run([src], out=target, content_type="journal", metrics=False)
    return target


def _search(out: Path, query: str, k: int = 5) -> list[SearchHit]:
    return search(RunConfig(paths=[], out=out), query, k=k)


@pytest.mark.parametrize(
    "query",
    [
        "Was ist im März 2024 passiert?",
        "qu'est-ce qui s'est passé en mars 2024 ?",
        "что было в марте 2024",
        "2024年3月发生了什么",
        "2024年3月に何がありましたか",
    ],
)
def test_what_happened_in_a_month_scores_as_in_english(out: Path, query: str) -> None:
    english = _search(out, "what happened in March 2024?")
    hits = _search(out, query)
    assert english[0].source_path == "digests/2024/2024-03.md"
    assert [h.source_path for h in hits[:1]] == ["digests/2024/2024-03.md"], query
    assert hits[0].score == pytest.approx(english[0].score, abs=0.01), query


@pytest.mark.parametrize("query", ["qu'est-ce qui s'est passé le 14 mars 2024 ?", "Was ist am 14. März 2024 passiert?"])
def test_what_happened_on_a_day_is_the_day_alone(out: Path, query: str) -> None:
    hits = _search(out, query)
    assert hits[0].source_path == "fr/2024-03-14.md"
    assert hits[0].score == pytest.approx(_search(out, "14 March 2024")[0].score, abs=0.01)


def test_a_named_day_leads_with_its_own_file_and_shows_a_diary_by_its_entry(out: Path) -> None:
    hits = _search(out, "12. März 2024", k=8)
    order = [h.source_path for h in hits]
    assert order[0] == "de/2024-03-12.md", order
    assert {"ru/dnevnik.md", "zh/日记.md"} <= set(order[1:]), order
    diary = next(h for h in hits if h.source_path == "ru/dnevnik.md")
    assert "почту" in diary.snippet and "Сибири" not in diary.snippet, diary.snippet


def test_a_snippet_never_runs_into_the_next_dated_line(out: Path) -> None:
    hits = _search(out, "2024年3月に何がありましたか")
    diary = next(h for h in hits if h.source_path == "zh/日记.md")
    assert diary.snippet_from == "summary"
    assert len(_LABEL.findall(diary.snippet)) <= 1, diary.snippet
