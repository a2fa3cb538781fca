"""A journal's day headings in the other languages batchsum reads date its file and its lines as English ones do:
"## 3 мая 2024", "## 2024年5月3日（金）", "## 5月3日" under "# 2024年5月", "## 3 мая" under "# Май 2024",
"## 3. Mai 2024", "## 3 mai 2024", "## 3 de mayo de 2024" and "## 2024/05/03" had dated nothing (a reviewer's
journals in Chinese, Japanese and Russian): their files were dated by their modification time and their lines
carried no day."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.doc_dates import dated
from batchsum.tree import read_node

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

# Each language's two days: its headings (the second leaves its year to the heading above) and their entries.
JOURNALS = {
    "ru": (
        ("# Май 2024", "## 3 мая", "## 4 мая"),
        "Приехали в Москву поздно вечером. Иван встретил нас на вокзале и отвёз в гостиницу. Номер оказался "
        "тесным, но чистым. Мы долго пили чай и говорили о планах на неделю.",
        "Утром гуляли по Красной площади. Потом зашли в музей и провели там три часа. Обедали в маленьком "
        "кафе у реки. Вечером ужинали с друзьями, и Лена рассказала о своей новой работе.",
    ),
    "ja": (
        ("", "## 2024年5月3日（金）", "## 5月4日（土）"),
        "今日は東京で佐藤さんと会った。新宿のカフェで新しいアプリについて話した。昼は蕎麦を食べた。夜は京都行きの切符を買った。",
        "京都で金閣寺を見た。人がとても多かった。午後は嵐山を歩いた。夜は友達と食事をして、宿で日記を書いた。",
    ),
    "zh": (
        ("# 2024年5月", "## 5月3日", "## 5月4日"),
        "今天去了杭州。西湖很美。中午在湖边吃了醋鱼。下午我们坐船游湖，晚上住在一家小旅馆。",
        "今天回到上海。火车上人很多。下午去公司开会，讨论了新项目的计划。晚上和朋友吃饭。",
    ),
    "de": (
        ("", "## Freitag, 3. Mai 2024", "## 4. Mai"),
        "Wir kamen spät in Moskau an. Iwan holte uns am Bahnhof ab und brachte uns ins Hotel. Das Zimmer "
        "war eng, aber sauber. Wir tranken lange Tee und sprachen über unsere Pläne.",
        "Am Morgen gingen wir über den Roten Platz. Danach verbrachten wir drei Stunden im Museum. Abends "
        "aßen wir mit Freunden, und Lena erzählte von ihrer neuen Arbeit.",
    ),
}
DAYS = ("2024-05-03", "2024-05-04")


def _journal(language: str) -> str:
    (title, first, second), one, two = JOURNALS[language]
    return f"{title}\n\n{first}\n\n{one}\n\n{second}\n\n{two}\n".lstrip()


@pytest.mark.parametrize(
    "opening",
    [
        "## 3 мая 2024",
        "## 3 мая 2024 г.",
        "# Май 2024\n\n## 3 мая",
        "## 2024年5月3日",
        "## 2024年5月3日（金）",
        "## 2024年5月3日 星期五",
        "# 2024年5月\n\n## 5月3日",
        "## 2024/05/03",
        "## 3. Mai 2024",
        "## 3 mai 2024",
        "## 3 de mayo de 2024",
        "## 3 May 2024",
    ],
)
def test_a_day_heading_in_any_language_dates_its_file(tmp_path: Path, opening: str) -> None:
    text = f"{opening}\n\nПриехали поздно. 今日は雨だった。 We came late.\n"
    assert dated(tmp_path / "journal.md", text, COPIED) == ("2024-05-03", "first entry")


@pytest.mark.parametrize(
    "opening",
    ["## Май 2024", "## 30 февраля 2024", "## 2024/13/03", "## Version 2016.3.5", "## 5月3日", "## 3 мая"],
)
def test_a_heading_that_names_no_whole_day_dates_nothing(tmp_path: Path, opening: str) -> None:
    # A month, no such day, a version, and a day whose year no heading above gives.
    text = f"{opening}\n\nПриехали поздно вечером.\n"
    assert dated(tmp_path / "journal.md", text, COPIED)[1] == "mtime"


@pytest.mark.parametrize("language", sorted(JOURNALS))
def test_each_entrys_lines_carry_its_day_the_year_carried_from_a_heading_above(language: str) -> None:
    units = units_from_text(_journal(language), "journal")
    one, two = JOURNALS[language][1], JOURNALS[language][2]
    assert ({u.date for u in units if u.text in one}, {u.date for u in units if u.text in two}) == (
        {DAYS[0]},
        {DAYS[1]},
    )


@pytest.mark.parametrize("language", sorted(JOURNALS))
def test_a_journal_of_day_headings_is_dated_by_its_first_day_in_the_run(tmp_path: Path, language: str) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / f"journal-{language}.md").write_text(_journal(language), encoding="utf-8")
    run = [
        "run",
        str(src),
        "--type",
        "journal",
        "--out",
        str(out),
        "--no-index",
        "-q",
        "--thresholds",
        "10,20,3000,15000",
    ]
    got = CliRunner().invoke(main, run)
    assert got.exit_code == 0, got.output
    meta, body = read_node(out / f"journal-{language}.md" / "summaries" / "L3" / "final.md")
    assert (meta["doc_date"], meta["date_source"]) == (DAYS[0], "first entry")
    assert set(re.findall(r"^(\d{4}-\d{2}-\d{2}): ", body, re.M)) <= set(DAYS), body
    assert "journal-" in (out / "digests" / "2024" / "2024-05.md").read_text(encoding="utf-8")
