"""A journal kept in one file and cut into chunks dates every chunk's lines as the whole text dates them: a
day without its year takes the last full date's, also when that date is in an earlier chunk (a user's find:
under a "1903" line, the L1s after the first had no dated line, and the final put later entries under the
first chunk's date)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.units import entry_dates_at, units_from_text
from batchsum.cli import main
from batchsum.tree import parse_markdown, strip_links

MONTHS = ["January", "February", "March", "April", "May", "June"]
WORDS = "walked harbour rain boat letter mother garden beetles library sea".split()
LABEL = re.compile(r"^(\d{4}-\d\d-\d\d): ", re.MULTILINE)
TAG = re.compile(r"\bEntry (\d+)\b")
SMALL = ("--thresholds", "100,200,300,1000", "--group-size", "2")  # a tree of L1s, L2s and a final


def _entry(k: int) -> str:
    """Entry ``k``'s paragraph: five sentences, each naming its entry, with words that vary by sentence."""
    return " ".join(
        f"Entry {k} sentence {j}: today I saw the {' '.join(WORDS[(k + j + i) % 10] for i in range(0, 10, 2))} "
        "and wrote it down carefully."
        for j in range(1, 6)
    )


def _summaries(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, str]:
    """Every summary node's body (links left out) of a journal run over a folder holding ``name``."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--no-index", "-q", "--type", "journal", *options]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    root = out / name / "summaries"
    return {
        str(p.relative_to(root)): strip_links(parse_markdown(p.read_text(encoding="utf-8"))[1])
        for p in sorted(root.glob("L*/*.md"))
    }


def _dated_tags(body: str) -> list[tuple[str | None, int]]:
    """(the date a line's label gives, entry number) for every entry a summary's sentence names, in order."""
    out: list[tuple[str | None, int]] = []
    date: str | None = None
    for line in body.splitlines():
        if m := LABEL.match(line):
            date = m.group(1)
        out.extend((date, int(k)) for k in TAG.findall(line))
    return out


def test_each_chunk_dates_days_under_a_year_line_above_it(tmp_path: Path) -> None:
    days = {k: f"1903-{k // 4 + 1:02d}-{k + 3:02d}" for k in range(12)}  # "_February_ 7." is 1903-02-07
    text = "1903\n\n" + "".join(f"_{MONTHS[k // 4]}_ {k + 3}.\n\n{_entry(k)}\n\n" for k in range(12))
    nodes = _summaries(tmp_path, "diary.txt", text, "--chunk-size", "400", "--chunk-overlap", "0", *SMALL)
    l1 = [body for name, body in nodes.items() if name.startswith("L1/")]
    assert len(l1) >= 3
    assert all(LABEL.match(body) for body in l1)  # each chunk's first pick is dated
    for name, body in nodes.items():
        tags = _dated_tags(body)
        assert tags, name
        # Entry k's sentence stands under entry k's day: its month and year too, in L1, L2 and the final.
        assert all(date == days[k] for date, k in tags), (name, body)


def test_a_line_takes_the_last_full_date_before_it_in_the_source(tmp_path: Path) -> None:
    # In-line dates of one book, the year given now and then: a day without its year takes the last one
    # given, however many chunks back it was.
    heads = [
        ("Salem, June 15, 1835.--", "1835-06-15"),
        ("June 18th.--", "1835-06-18"),
        ("July 2d.--", "1835-07-02"),
        ("August 31st.--", "1835-08-31"),
        ("Maine, July 5th, 1837.--", "1837-07-05"),
        ("July 9th.--", "1837-07-09"),
        ("July 13th.--", "1837-07-13"),
        ("North Adams, August 1, 1838.--", "1838-08-01"),
        ("August 12th.--", "1838-08-12"),
        ("September 9th.--", "1838-09-09"),
    ]
    text = "NOTES OF A WALKER\n\n" + "".join(f"{head}{_entry(k)}\n\n" for k, (head, _) in enumerate(heads))
    nodes = _summaries(tmp_path, "notes.txt", text, "--chunk-size", "350", "--chunk-overlap", "40", *SMALL)
    assert sum(name.startswith("L1/") for name in nodes) >= 3
    for name, body in nodes.items():
        tags = _dated_tags(body)
        assert tags, name
        assert all(date == heads[k][1] for date, k in tags), (name, body)


def test_the_date_at_a_chunk_start_is_the_whole_texts() -> None:
    text = "1903\n\n" + "".join(f"_{MONTHS[k // 4]}_ {k + 3}.\n\n{_entry(k)}\n\n" for k in range(12))
    text += "1904\n\n_January_ 2.\n\n" + _entry(12)
    starts = [m.start() for m in re.finditer(r"(?<=\n\n)\S", text)]
    chained = entry_dates_at(text, starts)  # each stretch read once, the dates carried over
    # Read alone from where the text starts, each start gets the same dates.
    assert chained == [entry_dates_at(text, [start])[0] for start in starts]
    assert chained[starts.index(text.index("Entry 5 sentence 1"))] == "1903-02-08"
    assert chained[starts.index(text.index("Entry 12 sentence 1"))] == "1904-01-02"
    assert chained[starts.index(text.index("_January_ 2."))] == "1903-03-14\n\n1904"


def test_a_child_summarys_label_dates_the_sentences_after_its_ellipsis() -> None:
    # An L1's line "1915-01-20: ... The man ..." is cut at its "...": the label is still the date of the
    # sentences after it, not the line's before.
    child = (
        "1915-01-19: After a morning of mixed emotions I sat down to lunch with my friend Robert.\n"
        "1915-01-20: ... The timorous man presently took out his cigarette-case and offered one round. "
        "Fortunately the case was silver and he was glad of it."
    )
    dates = {u.body.split()[1]: u.date for u in units_from_text(child, "journal") if u.candidate}
    assert dates == {"a": "1915-01-19", "timorous": "1915-01-20", "the": "1915-01-20"}
