"""A journal written as one file whose entries open with their day in-line ("June 18th.--A walk ...",
"Salem, June 15, 1835.--...", a dateline paragraph "Trient, den 10. September, abends.", a Japanese
"〔八月〕二十七日" line) is a journal whose lines carry their entries' days, as a journal of dated headings is
(a reviewer's find: Hawthorne's notebooks were a document with no dated line, Goethe's datelines were
picked as summary sentences, Akutagawa's diary a document)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.datelines import dated_entries, dateline
from batchsum.tree import read_node

NOTEBOOK = """NOTES OF A WALKER

Salem, June 15, 1835.--A walk down to the Juniper with my brother. The shore of the cove was strewn with \
seaweed, and the fishermen were mending their nets beside the old wharf. We found a drowned sheep on the sand.

June 18th.--A walk in North Salem in the decline of yesterday afternoon. The orchards were in blossom, and \
an old farmer told me of the witch trials his grandmother had seen.

_July_ 14, ABBOTSFORD.--Arrived here yesterday before five o'clock. The river ran high after the rain, and \
the masons had finished the new tower of the house.

Maine, July 5th, 1837.--Here I am, settled in a small town by the Kennebec. The mill dam roars all night, \
and the Irish labourers live in shanties along the river bank.

July 9th.--Went to pay a visit to the shanties of the Irish. The children ran barefoot, and a woman \
offered us milk from a cracked jug.
"""

GERMAN = """Trient, den 10. September, abends.

Ich bin in Trient den ganzen Abend in der Stadt herumgegangen, die uralt ist. In Trient hängt in der Kirche \
ein Bild vom Konzil. Der Abend in Trient war mild, und der September zeigte sich von seiner besten Seite.

Ein alter Mann in Trient zeigte mir am Abend das Haus des Teufels. Die Leute in Trient sprechen schon halb \
italienisch.

Rovereto, den 11. September, abends.

Hier in Rovereto schneidet sich die Sprache ab, am Abend hörte ich nur noch Italienisch. Der Postillon in \
Rovereto sprach kein Wort Deutsch, und im September sind die Wege staubig.

Torbole, den 12. September, nach Tische.

In Torbole am Gardasee habe ich nach Tische den ganzen Abend geschrieben. Der See bei Torbole glänzte im \
September wie Silber, und die Fischer von Torbole kamen am Abend heim.
"""

JAPANESE = """〔八月〕二十七日
　朝は六時に起きて、書斎で本を読んだ。昼から雨が降り出したので、散歩には出なかった。
　夕方に友人が来て、小説の話をして帰った。
　二十八日
　朝から暑い。庭の朝顔がたくさん咲いた。午後は手紙を三通書いた。
　二十九日
　東京へ出て、本屋で古い本を二冊買った。帰りの電車はひどく混んでいた。
"""


def _final(out: Path, relpath: str) -> tuple[dict[str, Any], str]:
    return read_node(out / relpath / "summaries" / "L3" / "final.md")


def _run(src: Path, out: Path, *extra: str) -> None:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q", *extra])
    assert res.exit_code == 0, res.output


def test_a_diary_whose_entries_open_with_their_day_is_a_journal_whose_lines_carry_those_days(tmp_path: Path) -> None:
    src = tmp_path / "src" / "books"  # a folder whose name says nothing of journals
    src.mkdir(parents=True)
    (src / "notebook.txt").write_text(NOTEBOOK, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "src", out, "--thresholds", "50,100,2000,15000")  # a standard summary: its lines labelled
    meta, body = _final(out, "books/notebook.txt")
    assert (meta["content_type"], meta["content_type_reason"]) == ("journal", "dated entries (5)")
    lines = [line for line in body.strip().split("\n") if line.strip()]
    labels = [re.match(r"(\d{4}-\d{2}-\d{2}): ", line) for line in lines]
    assert lines and all(labels), body
    days = {m.group(1) for m in labels if m}
    assert days <= {"1835-06-15", "1835-06-18", "1835-07-14", "1837-07-05", "1837-07-09"}, days


def test_a_diary_dated_in_line_dates_its_sentences_by_their_entries_the_year_carried() -> None:
    units = units_from_text(NOTEBOOK, "journal")
    # The year of "June 18th" is 1835's, carried from the last full date; "July 9th" is 1837's.
    day_of = {u.text.split(".")[0][:30]: u.date for u in units}
    assert day_of["Salem, June 15, 1835"] == "1835-06-15"
    assert day_of["June 18th"] == "1835-06-18"
    assert day_of["_July_ 14, ABBOTSFORD"] == "1835-07-14"
    assert day_of["Maine, July 5th, 1837"] == "1837-07-05"
    assert day_of["July 9th"] == "1837-07-09"
    assert next(u.date for u in units if u.text.startswith("The children ran barefoot")) == "1837-07-09"


def test_a_dateline_paragraph_makes_a_journal_and_is_never_a_summary_sentence(tmp_path: Path) -> None:
    src = tmp_path / "src" / "reise"
    src.mkdir(parents=True)
    (src / "tagebuch.txt").write_text(GERMAN, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "src", out)
    meta, body = _final(out, "reise/tagebuch.txt")
    assert meta["content_type"] == "journal"
    assert meta["content_type_reason"] == "dated entries (3)"
    assert "September, abends" not in body and "nach Tische." not in body, body
    assert "Trient" in body  # the entries' prose is what is summarized


def test_a_japanese_diary_of_day_lines_is_a_journal_and_its_day_lines_are_labels(tmp_path: Path) -> None:
    src = tmp_path / "src" / "nikki"
    src.mkdir(parents=True)
    (src / "tabata.txt").write_text(JAPANESE, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "src", out, "--thresholds", "10,20,30,15000")
    meta, body = _final(out, "nikki/tabata.txt")
    assert (meta["content_type"], meta["content_type_reason"]) == ("journal", "dated entries (3)")
    assert not re.search(r"(?m)^\s*(?:〔八月〕)?二十[七八九]日\s*$", body), body
    assert "二十八日" not in body and "二十九日" not in body, body


def test_dates_inside_sentences_and_letters_datelines_make_no_journal(tmp_path: Path) -> None:
    essay = (
        "The treaty was signed on June 15, 1835, after long talks.\n\nOn 3 May 1850 the bridge opened.\n\n"
        "By July 14 the harvest was in.--It was a good year.\n"
    )
    letters = "".join(
        f"London, May {day}, 1850.\n\nDear Sir,\n\nI thank you for your kind letter of last week.\n\n"
        for day in (3, 10, 17)
    )
    assert dated_entries(essay) == 0
    assert dated_entries(letters) == 0
    assert dateline("September.--The elm-trees have golden branches.") is None  # a month names no day
    src = tmp_path / "src" / "papers"
    src.mkdir(parents=True)
    (src / "essay.txt").write_text(essay * 3, encoding="utf-8")
    (src / "letters.txt").write_text(letters, encoding="utf-8")
    out = tmp_path / "out"
    _run(tmp_path / "src", out)
    assert _final(out, "papers/essay.txt")[0]["content_type"] == "document"
    assert _final(out, "papers/letters.txt")[0]["content_type"] == "document"
