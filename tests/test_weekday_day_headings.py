"""A day heading that opens with its weekday and no comma dates its file and its lines: "## mardi 5 mars 2024"
(French's own form), "## le mardi 5 mars 2024", "## Dienstag 5. März 2024", "## martes 5 de marzo de 2024"
had dated nothing (a reviewer's French journals were undated, their months' digests without day labels). A line
that merely names a day in a sentence still dates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.datelines import is_dateline
from batchsum.doc_dates import dated
from batchsum.tree import read_node

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

HEADINGS = [
    "## mardi 5 mars 2024",
    "## Mardi 5 Mars 2024",
    "## le mardi 5 mars 2024",
    "## Dienstag 5. März 2024",
    "## Dienstag, den 5. März 2024",
    "## martes 5 de marzo de 2024",
    "## martedì 5 marzo 2024",
    "## terça-feira, 5 de março de 2024",
    "## Tuesday 5 March 2024",
]


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_day_heading_that_opens_with_its_weekday_dates_its_file(tmp_path: Path, heading: str) -> None:
    text = f"{heading}\n\nNous sommes allés au marché avec ma sœur.\n"
    assert dated(tmp_path / "journal.md", text, COPIED) == ("2024-03-05", "first entry")


@pytest.mark.parametrize(
    "heading",
    ["## Hier mardi 5 mars 2024", "## Nous avons vu mardi 5 mars 2024", "## Wir trafen uns Dienstag 5. März 2024"],
)
def test_a_sentence_that_names_a_day_dates_nothing(tmp_path: Path, heading: str) -> None:
    text = f"{heading}\n\nNous sommes allés au marché avec ma sœur.\n"
    assert dated(tmp_path / "journal.md", text, COPIED)[1] == "mtime"
    assert not is_dateline(heading.lstrip("# ") + ".")


FIRST = (
    "Ce matin, nous sommes allés au marché du village avec ma sœur. Nous avons acheté des poireaux, des carottes "
    "et du pain chaud."
)
SECOND = "Il a plu toute la journée sur la ville. J'ai lu un roman de Daudet près de la fenêtre en buvant du thé."
JOURNAL = f"## mardi 5 mars 2024\n\n{FIRST}\n\n## jeudi 7 mars 2024\n\n{SECOND}\n"


def test_each_entrys_lines_carry_the_day_of_its_weekday_heading() -> None:
    units = units_from_text(JOURNAL, "journal")
    assert {u.date for u in units if u.text in FIRST} == {"2024-03-05"}
    assert {u.date for u in units if u.text in SECOND} == {"2024-03-07"}


def test_a_french_journal_of_weekday_headings_is_dated_by_its_first_day_in_the_run(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "journal.md").write_text(JOURNAL, encoding="utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "--no-index", "-q"])
    assert got.exit_code == 0, got.output
    meta, _ = read_node(out / "journal.md" / "summaries" / "L3" / "final.md")
    assert (meta["doc_date"], meta["date_source"]) == ("2024-03-05", "first entry")
    assert (out / "digests" / "2024" / "2024-03.md").is_file()
