"""`batchsum report` over real runs (made through the library) of a small Chinese journal: its period digests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

# Sentences of a diary; each entry takes eight of them, so a day reads ~220 characters without a space.
SENTENCES = (
    "今天早上下了一场大雨，我们在港口边的小咖啡馆里等了很久。",
    "老王说渔船要到下个星期才能出海，因为北边的风浪太大了。",
    "下午我去图书馆借了三本关于城市历史的书，准备周末慢慢看。",
    "晚上和妹妹通了电话，她说新工作很忙，但是同事都很友好。",
    "市政府决定明年春天修建一座新的石头防波堤，预算大约两百万元。",
    "我在市场上买了新鲜的鱼和蔬菜，做了一顿简单的晚饭。",
    "邻居李阿姨送来一盒自己做的月饼，味道非常好。",
    "公司开会讨论了下个季度的计划，经理希望我们提前完成报告。",
    "傍晚的时候天终于晴了，海边的夕阳特别美丽。",
    "我决定从下个月开始每天早上跑步半小时，锻炼身体。",
    "孩子们在学校举办了一场音乐会，小明弹了一首钢琴曲。",
    "火车站附近新开了一家书店，里面有很多外文书籍。",
)
HAN = re.compile(r"[\u4e00-\u9fff]")


def report_json(out: Path, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--json", *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


@pytest.fixture()
def journal(tmp_path: Path) -> Path:
    """A month of a Chinese diary (2024-03-01 .. 2024-03-12), summarized through the library."""
    src = tmp_path / "journal"
    src.mkdir()
    for day in range(1, 13):
        text = "".join(SENTENCES[(day + i) % len(SENTENCES)] for i in range(8))
        (src / f"2024-03-{day:02d}.md").write_text(text + "\n", encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run(src, out=out, index=False, quiet=True)
    return out


def test_chinese_digests_count_words_as_their_budget_does(journal: Path) -> None:
    periods = {p["period"]: p for p in report_json(journal)["periods"]}
    month = periods["month"]
    assert month["digests"] == 1 and month["files"] == 12
    page = (journal / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8")
    text = page.split("\n# ", 1)[1].split("<!-- batchsum:links -->")[0]  # title and text, not the entries' lines
    han, spaced = len(HAN.findall(text)), len(text.split())
    # A Chinese word is two characters (language.CJK_CHARS_PER_WORD), not a run between spaces.
    assert han > 4 * spaced
    assert han // 2 <= month["words_max"] <= han // 2 + spaced
    assert month["vs_budget"] == pytest.approx(month["words_mean"] / month["budget_words"], abs=1e-3)


def test_type_filter_leaves_out_the_period_digests(journal: Path) -> None:
    # A digest covers its month's files whatever their type: its figures are no one type's.
    assert report_json(journal)["periods"]
    for ctype in ("journal", "conversation"):
        assert report_json(journal, "--type", ctype)["periods"] == []
    table = CliRunner().invoke(main, ["report", "--out", str(journal), "--type", "journal"]).stdout
    assert "Compression by level" in table and "Period digests" not in table


def test_a_library_run_shows_no_blank_command_line(journal: Path) -> None:
    (run,) = report_json(journal)["runs"]
    assert run["command"] == ""  # batchsum.run has no command line to record
    for fmt in ("table", "md"):
        res = CliRunner().invoke(main, ["report", "--out", str(journal), "--format", fmt])
        overview = res.stdout.split("Compression by level")[0]
        assert "wall time" in overview and "command" not in overview, fmt


def test_a_journal_in_two_languages_is_reported_by_language(journal: Path) -> None:
    """The files' languages are recorded: with several, the report compares their compression."""
    src = journal.parent / "journal"
    english = (
        "We walked along the harbour at dawn and counted the fishing boats before the storm came in. "
        "The harbour master said the north wind would keep them in port until Thursday at least. "
    ) * 6
    (src / "2024-03-20.md").write_text(english + "\n", encoding="utf-8")
    batchsum.run(src, out=journal, index=False, quiet=True)
    data = report_json(journal)
    assert {g["language"]: g["files"] for g in data["by_language"]} == {"zh": 12, "en": 1}
    table = CliRunner().invoke(main, ["report", "--out", str(journal)], catch_exceptions=False).output
    assert "Compression by language" in table
