"""``search --since`` reads a file of many days by the days its entries are of, its day headings and
datelines: a day a sentence mentions is none of them. A July 2024 month file that mentions "am 3. Mai" had
passed ``--since 2025-05-03``, the mention read as the next May (a reviewer's German journal; the same for
a Chinese month file's "5月3日")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.asked_periods import entry_days

JULY = """# Juli 2024

## 1. Juli 2024

Heute habe ich den Garten umgegraben. Die Tomaten wachsen gut. Wie am 3. Mai geplant, kamen die Nachbarn zum Grillen.

## 2. Juli

Regen den ganzen Tag. Die Schnecken fraßen den Salat im Hochbeet.
"""

JULY_ZH = """# 2024年7月

## 7月1日

今天在花园里干活。西红柿长得很好。按照5月3日的计划，邻居们来烧烤了。

## 7月2日

下了一整天的雨。蜗牛吃掉了菜园里的生菜。
"""

# ISO week 1 of 2025 starts on Monday 30 December 2024; its second day heading leaves its year out.
WEEK = """# Woche 1

## Montag, 30. Dezember 2024

Wir packten die Koffer für die Hütte und kauften Proviant.

## Donnerstag, 2. Januar

Die Hütte am Achensee war eiskalt, aber der gefrorene See entschädigte für alles.
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("journal")
    for name, text in (("2024-07.md", JULY), ("2024年7月.md", JULY_ZH), ("2025-W01.md", WEEK)):
        (src / name).write_text(text, encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "-q"])
    assert res.exit_code == 0, res.output
    return out


def _files(out: Path, query: str, since: str) -> list[str]:
    res = CliRunner().invoke(main, ["search", query, "--out", str(out), "--since", since, "--json"])
    assert res.exit_code == 0, res.output
    hits = json.loads(res.output) if res.output.strip().startswith("[") else []
    return [h["source_path"] for h in hits if not h["source_path"].startswith("digests/")]


@pytest.mark.parametrize(("name", "query"), [("2024-07.md", "Nachbarn"), ("2024年7月.md", "邻居")])
def test_a_day_a_sentence_mentions_is_no_day_of_the_file(out: Path, name: str, query: str) -> None:
    for since in ("2024-07-03", "2024-08-01", "2025-05-03"):
        assert name not in _files(out, query, since), since


@pytest.mark.parametrize(("name", "query"), [("2024-07.md", "Nachbarn"), ("2024年7月.md", "邻居")])
def test_a_later_day_heading_widens_the_file(out: Path, name: str, query: str) -> None:
    # "## 2. Juli" and "## 7月2日" leave the year out: it is the month heading's.
    assert name in _files(out, query, "2024-07-02")


def test_a_day_heading_without_its_year_crosses_new_year(out: Path) -> None:
    assert "2025-W01.md" in _files(out, "Achensee", "2025-01-02")
    assert "2025-W01.md" not in _files(out, "Achensee", "2025-01-03")


def test_entry_days_carry_the_year_only_forward_over_new_year() -> None:
    days = [d.isoformat() for d in entry_days(JULY + "\n## 30. Juni\n\nZurückgeblättert.\n", 2024)]
    assert days == ["2024-07-01", "2024-07-02", "2024-06-30"]  # an older day goes back in the same year
    assert [d.isoformat() for d in entry_days(WEEK, 2024)] == ["2024-12-30", "2025-01-02"]
