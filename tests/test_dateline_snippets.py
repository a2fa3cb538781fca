"""A dateline standing alone on its line ("2024年6月30日（星期日）", "30 июня 2024 года") is its entry's label,
never one of its sentences: a month's query ("июнь 2024", whose "6月" the label holds) had shown an entry by
its dateline alone, nothing of what the day's text says (a reviewer's Chinese and Russian journal)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from batchsum.cli import main

FILES = {
    "日记0630.md": "2024年6月30日（星期日）\n\n上午整理了书架，下午去超市买菜。晚上给妈妈打了电话。\n",
    "diary.md": "# 日记\n\n2024年6月28日（星期五）\n上午开会。下午写报告，晚上看电影。\n\n"
    "2024年6月30日（星期日）\n上午整理了书架，下午去超市买菜。\n",
    "титул.md": "# 2024年6月29日（星期六）\n\n上午去公园散步，下午在家写信。\n",
    "дневник.md": "30 июня 2024 года\n\nВесь день читал книгу о Петре Первом. Вечером гуляли у реки с собакой.\n",
}
LABELS = ("2024年6月", "июня 2024")  # a title that is a date alone is a label as well


@pytest.fixture(scope="module")
def hits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    src = tmp_path_factory.mktemp("journal")
    for name, text in FILES.items():
        (src / name).write_text(text, encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "-q"])
    assert res.exit_code == 0, res.output
    shown: dict[str, str] = {}
    # The month alone too: a one-entry file is otherwise a copy of its month's digest, which is kept instead.
    for query in ("июнь 2024", "июнь"):
        res = CliRunner().invoke(main, ["search", query, "--out", str(out), "--json", "-k", "10"])
        assert res.exit_code == 0, res.output
        shown |= {h["source_path"]: h["snippet"] for h in json.loads(res.output)}
    return shown


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_dateline_alone_is_no_sentence_of_the_snippet(hits: dict[str, str], name: str) -> None:
    snippet = hits[name]
    assert not any(label in snippet for label in LABELS), snippet
    assert any(word in snippet for word in ("书架", "开会", "Петре", "散步")), snippet  # the entry's own words
