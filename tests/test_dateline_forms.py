"""Common Russian, German, Chinese and Japanese ways of writing a journal's day date its entries (a user's review):
"## 3 мая 2024 года", a day-first dotted "## 03.05.2024", a Japanese diary's "2024年5月3日（金）　晴" (date,
weekday, weather), "2024年5月3日 星期五", "## 5月3日 星期五 晴" under "# 2024年5月", and Terada's
"八月二十五日　晴" (Chinese numerals) had dated nothing: such files were dated by their modification time, got
no month digest and were listed as "Undated". A sentence that merely holds a date is still no dateline."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.datelines import cjk_dateline, dateline, is_dateline
from batchsum.day_words import heading_day
from batchsum.doc_dates import dated
from batchsum.tree import read_node

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written
PROSE = "Приехали поздно. 今日は雨だった。 Wir kamen spät an."


@pytest.mark.parametrize(
    "opening",
    [
        "## 3 мая 2024 года",
        "3 мая 2024 года",
        "## 3.05.2024",
        "## 03.05.2024",
        "## 3.5.2024",
        "3.5.2024",
        "## Freitag, 03.05.2024",
        "## 3. Mai 2024 (Freitag)",
        "2024年5月3日（金）\u3000晴",
        "2024年5月3日（星期五）晴",
        "2024年5月3日 星期五",
        "## 2024年5月3日 星期五 晴",
        "# 2024年5月\n\n## 5月3日 星期五 晴",
        "# 2024年\n\n## 五月三日\u3000曇、夕方雷雨",
        "令和6年5月3日（金）\u3000晴",
        "二〇二四年五月三日",
    ],
)
def test_a_day_written_as_its_language_writes_it_dates_its_file(tmp_path: Path, opening: str) -> None:
    assert dated(tmp_path / "journal.md", f"{opening}\n\n{PROSE}\n", COPIED) == ("2024-05-03", "first entry")


@pytest.mark.parametrize(
    "opening",
    [
        "Am 3.5.2024 war ich in Berlin.",
        "## Am 3.5.2024 war ich in Berlin.",
        "## 31.02.2024",  # no such day
        "## 05.13.2024",  # day first: no month 13
        "5月3日に東京へ行った。",
        "2024年5月3日、東京へ行った。",
        "## 2024年5月3日 北京 晴 热 风",  # more words than a dateline's weather or place
    ],
)
def test_a_sentence_holding_a_date_or_no_day_dates_nothing(tmp_path: Path, opening: str) -> None:
    assert dated(tmp_path / "journal.md", f"{opening}\n\n{PROSE}\n", COPIED)[1] == "mtime"


def test_a_dateline_is_a_label_a_sentence_with_a_date_is_a_sentence() -> None:
    assert is_dateline("3.5.2024") and is_dateline("2024年5月3日（金）\u3000晴") and is_dateline("3 мая 2024 года")
    assert not is_dateline("Am 3.5.2024 war ich in Berlin.")
    assert not is_dateline("三月三日\u3000東京に着く。")  # words after the day closed by a full stop


def test_a_diarys_datelines_in_chinese_numerals_date_the_lines_under_them() -> None:
    # Terada's diary: a dateline a line, its weather after it, the year given once (as an era's).
    text = (
        "大正十二年八月二十四日\u3000曇、後驟雨\n\u3000子供等と志村の家へ行った。植物を沢山採集した。\n\n"
        "八月二十五日\u3000晴\n\u3000日本橋で散弾二斤買う。ランプの台に入れるため。\n"
    )
    units = units_from_text(text, "journal")
    assert {u.date for u in units if "散弾" in u.text} == {"1923-08-25"}
    assert not any("晴" in u.text or "曇" in u.text for u in units)  # the datelines are labels


def test_a_date_inside_a_sentence_stays_a_sentence_of_its_entry() -> None:
    text = "## 03.05.2024\n\nAm 3.5.2024 war ich in Berlin. Das Wetter war schön und wir gingen spazieren.\n"
    units = units_from_text(text, "journal")
    assert any("Am 3.5.2024 war ich in Berlin." in u.text for u in units)
    assert {u.date for u in units} == {"2024-05-03"}


# Month files as the review's journals keep them: each day's heading or dateline, two days a file.
MONTH_FILES = {
    "ru.md": "## 3 мая 2024 года\n\n{a}\n\n## 4 мая 2024 года\n\n{b}\n",
    "de.md": "## 03.05.2024\n\n{a}\n\n## 04.05.2024\n\n{b}\n",
    "zh.md": "# 2024年5月\n\n## 5月3日 星期五 晴\n\n{a}\n\n## 5月4日 星期六 多云\n\n{b}\n",
    "ja.md": "2024年5月3日（金）\u3000晴\n\n{a}\n\n2024年5月4日（土）\u3000雨\n\n{b}\n",
}
ENTRIES = {
    "ru.md": ("Утром гуляли по Красной площади. Потом зашли в музей.", "Вечером ужинали с друзьями у реки."),
    "de.md": ("Am Morgen gingen wir über den Platz. Danach ins Museum.", "Abends aßen wir mit Freunden am Fluss."),
    "zh.md": ("今天去了杭州。西湖很美。中午在湖边吃了醋鱼。", "今天回到上海。火车上人很多。晚上和朋友吃饭。"),
    "ja.md": ("今日は東京で佐藤さんと会った。昼は蕎麦を食べた。", "京都で金閣寺を見た。人がとても多かった。"),
}


def test_month_files_of_each_language_get_their_month_digest(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, form in MONTH_FILES.items():
        a, b = ENTRIES[name]
        (src / name).write_text(form.format(a=a, b=b), encoding="utf-8")
    run = ["run", str(src), "--type", "journal", "--out", str(out), "--no-index", "-q"]
    got = CliRunner().invoke(main, [*run, "--thresholds", "10,20,3000,15000"])
    assert got.exit_code == 0, got.output
    digest = (out / "digests" / "2024" / "2024-05.md").read_text(encoding="utf-8")
    for name in MONTH_FILES:
        meta, _ = read_node(out / name / "summaries" / "L3" / "final.md")
        assert (meta["doc_date"], meta["date_source"]) == ("2024-05-03", "first entry"), name
        assert name in digest, name
    assert "Undated" not in (out / "index.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("heading", ["2024年\u30005月\u30003日", "2024\u3000年5月3日", "2024年 5月\u20033日（金）"])
def test_any_space_between_year_month_and_day_still_reads_the_day(heading: str) -> None:
    # A Japanese keyboard's full-width space (U+3000) between the parts, as the old whitespace-stripping read it.
    assert heading_day(heading) == "2024-05-03"


def test_a_cjk_date_and_a_short_sentence_without_its_full_stop_stays_a_sentence() -> None:
    # A chat-style diary leaves the 。 out: only weather words after the day make the line a label.
    for line in ("5月3日 今天很累", "三日\u3000彼は来た", "2024年5月3日（金）\u3000東京へ"):
        assert cjk_dateline(line) is None and not is_dateline(line), line
    for line in (
        "八月二十五日\u3000晴",
        "5月3日 星期五 晴转多云",
        "三月三日\u3000晴のち曇",
        "2024年5月4日（土）\u3000雨",
    ):
        assert is_dateline(line), line
    units = units_from_text("5月3日 今天很累\n我去了公园。\n\n5月4日 多云\n去公园散步了。", "journal")
    assert any("今天很累" in u.text for u in units)  # the entry's words reach the summary
    assert not any("多云" in u.text for u in units)  # the weather dateline is a label


@pytest.mark.parametrize(
    "opening",
    ["## 03.05.2024 (Fr.)", "## 3. Mai 2024 (Fr)", "## 3 мая 2024 (пт)", "## 3 May 2024 (Fri.)", "3 mai 2024 (ven.)"],
)
def test_a_bracketed_short_weekday_dates_its_file(tmp_path: Path, opening: str) -> None:
    assert dated(tmp_path / "journal.md", f"{opening}\n\n{PROSE}\n", COPIED) == ("2024-05-03", "first entry")


def test_a_short_weekday_is_read_in_brackets_only() -> None:
    assert dateline("3. Mai 2024 (Di.)") is not None and dateline("03.05.2024 (Fr.)") is not None
    assert dateline("Mo 3. Mai 2024") is None  # bare, "Mo" is as likely a name or a word
