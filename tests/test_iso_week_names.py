"""A file named for its ISO 8601 week ("2023-W27.md", "2023-W27-notes.md", "2023W27.md") is dated by the week's
Monday and filed in the month of its Thursday, as ISO 8601 places a week: such names had dated nothing, so a
week journal had no month or year digest. A week no year has (W00, W54, a W53 of a 52-week year) dates nothing.
Like a week's file of day headings, it holds many days' entries and is labelled by its name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digest_state import load_state, save_state
from batchsum.doc_dates import name_date
from batchsum.engine.prepare import reading_sha
from batchsum.state import StateStore
from batchsum.tree import read_node, write_node
from batchsum.walk import READER_VERSION

TEXT = (
    "Monday we walked along the river to the old mill and the miller showed us the new wheel. "
    "On Wednesday a box of seeds arrived from Australia, sent by a gardener who once worked here.\n"
)
# name: (its date, the month whose digest lists it); None: undated.
WEEKS = {
    "2023-W27.md": ("2023-07-03", "2023-07"),
    "2023-W27-notes.md": ("2023-07-03", "2023-07"),
    "2023W29.md": ("2023-07-17", "2023-07"),
    "2023-W31.md": ("2023-07-31", "2023-08"),  # 31 July to 6 August: its Thursday is 3 August
    "2026-W01.md": ("2025-12-29", "2026-01"),  # 29 December 2025 to 4 January 2026: in January 2026
    "2023-W54.md": None,
    "2023-W00.md": None,
    "2023-W53.md": None,  # 2023 has 52 weeks
}
ARGS = ["--type", "journal", "--no-index", "--no-metrics", "-q"]


def _run(src: Path, out: Path) -> None:
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(out), *ARGS])
    assert got.exit_code == 0, got.output


def _month_pages(out: Path) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in (out / "digests").glob("*/*.md") if p.stem[:4].isdigit()}


@pytest.mark.parametrize("name", sorted(WEEKS))
def test_an_iso_week_name_dates_its_file_by_its_monday(name: str) -> None:
    assert name_date(Path(name)) == (WEEKS[name] or (None,))[0]


def test_a_week_journal_gets_its_months_and_years_by_iso_8601(tmp_path: Path) -> None:
    src, out = tmp_path / "weeks", tmp_path / "out"
    src.mkdir()
    for name in WEEKS:
        (src / name).write_text(TEXT, encoding="utf-8")
    _run(src, out)
    months = _month_pages(out)
    for name, want in WEEKS.items():
        meta, _ = read_node(out / name / "summaries" / "L3" / "final.md")
        link = f"{name}/summaries/L3/final.md"
        holding = sorted(m for m, page in months.items() if link in page)
        if want is None:
            assert meta["date_source"] == "mtime" and holding == [], (name, meta)
            continue
        assert (meta["doc_date"], meta["date_source"]) == (want[0], "name"), name
        assert holding == [want[1]], (name, holding)
        # Its date is only its week's first day: its paragraph is labelled by its name, not "**3 July.**".
        assert f"**{Path(name).stem}.**" in months[want[1]], months[want[1]]
    assert {"2023", "2026"} <= {p.stem for p in (out / "digests").glob("*.md")}


def test_a_week_file_an_older_reader_left_undated_is_dated_by_the_next_run(tmp_path: Path) -> None:
    """An output written before week names dated a file: its final (the same summary) is rewritten with the
    week's date, and the file goes to its month's digest rather than staying in its folder's."""
    src, out = tmp_path / "weeks", tmp_path / "out"
    src.mkdir()
    (src / "2023-W31.md").write_text(TEXT, encoding="utf-8")
    (src / "notes.md").write_text("A list of the seeds to order before spring, with their prices.\n", encoding="utf-8")
    _run(src, out)
    # As the version before had left it: read undated, its final and its digest facts dated by the mtime.
    store = StateStore(out / ".batchsum")
    entry = store.load_manifest()["2023-W31.md"]
    entry.reader, entry.text_sha = READER_VERSION - 1, reading_sha(TEXT, entry.content_type, "")
    store.save_entry(entry)
    final = out / "2023-W31.md" / "summaries" / "L3" / "final.md"
    meta, _ = read_node(final)
    meta["doc_date"], meta["date_source"] = "2026-01-05", "mtime"
    write_node(final, meta, final.read_text(encoding="utf-8").split("\n---\n", 1)[1])
    state_file = out / ".batchsum" / "digests.json"
    state = load_state(state_file)
    state.files["2023-W31.md"].date, state.files["2023-W31.md"].many_days = None, False
    save_state(state_file, state)
    _run(src, out)
    meta, _ = read_node(final)
    assert (meta["doc_date"], meta["date_source"]) == ("2023-07-31", "name")
    assert "2023-W31.md/summaries/L3/final.md" in _month_pages(out).get("2023-08", "")
    facts = json.loads(state_file.read_text(encoding="utf-8"))["files"]["2023-W31.md"]
    assert facts["date"] == "2023-07-31" and facts["many_days"]
