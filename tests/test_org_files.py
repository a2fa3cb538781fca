"""Emacs Org files (.org) are read as Markdown: an org-journal's days dated as a Markdown journal's "## 2024-03-05"
headings date its entries, TODO headings are tasks (action items), drawers, planning lines, keywords and comments
are no text, and a file Org cannot be read from is skipped with its reason while the batch goes on."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.readers.org import day_title, inline, render_org
from batchsum.walk import SourceRef, read_document

DAYS = {  # day -> (org-journal's heading, the entry's words)
    "2024-03-05": (
        "Tuesday, 03/05/24",
        "Walked to the harbour with Ana and we talked about the boat repairs for the spring season. The mechanic "
        "said the engine needs a new pump before we can sail again.",
    ),
    # Tuesday both as the 12th of March and the 3rd of December: the file's other days fix the order.
    "2024-03-12": (
        "Tuesday, 03/12/24",
        "Long meeting with the landlord about the lease renewal and the rent increase for next year. He wants "
        "eight percent more, and I said I would look at other flats first.",
    ),
    "2024-03-21": (
        "Thursday, 03/21/24",
        "Started the vegetable garden with tomatoes, beans and two rows of lettuce by the shed. Tom came over "
        "with a bag of compost and stayed for a long talk about the boatyard.",
    ),
}


def _org_year() -> str:
    parts = ["#+TITLE: Journal 2024", "#+STARTUP: overview", ""]
    for day, (heading, words) in DAYS.items():
        created = day.replace("-", "")
        parts += [f"* {heading}", ":PROPERTIES:", f":CREATED:  {created}", ":CONTACT: ana@example.org", ":END:"]
        parts += [words, ""]
    return "\n".join(parts)


def _markdown_year() -> str:
    parts = ["# Journal 2024", ""]
    for day, (_, words) in DAYS.items():
        parts += [f"## {day} {_weekday(day)}", "", words, ""]
    return "\n".join(parts)


def _weekday(day: str) -> str:
    return dt.date.fromisoformat(day).strftime("%A")


def _run(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json", *extra])
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def _body(page: Path) -> str:
    """A written page without its front matter and its links to other pages (which name the source file)."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    return text.split("<!-- batchsum:links -->")[0]


def test_an_org_journal_year_file_is_dated_per_day_as_a_markdown_journal(tmp_path: Path) -> None:
    org, md = tmp_path / "org", tmp_path / "md"
    org.mkdir(), md.mkdir()
    (org / "journal.org").write_text(_org_year(), encoding="utf-8")
    (md / "journal.md").write_text(_markdown_year(), encoding="utf-8")
    text = read_document(SourceRef(org / "journal.org", "journal.org", org)).text
    assert text == _markdown_year().rstrip("\n")
    units = units_from_text(text, "journal")
    assert sorted({u.date for u in units if u.date}) == list(DAYS)  # three dated entries

    data = _run(org, tmp_path / "out-org", "--no-index")
    assert data["run"]["files_done"] == 1 and not data["problems"]
    _run(md, tmp_path / "out-md", "--no-index")
    final = (tmp_path / "out-org" / "journal.org" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "content_type: journal" in final and "dated headings (3)" in final
    assert 'doc_date: "2024-03-05"' in final and "date_source: first entry" in final
    assert "CONTACT" not in final and "ana@example.org" not in final and "PROPERTIES" not in final
    month = tmp_path / "out-org" / "digests" / "2024" / "2024-03.md"
    assert _body(month) == _body(tmp_path / "out-md" / "digests" / "2024" / "2024-03.md")


def test_org_journal_daily_files_are_listed_under_their_days_in_the_month(tmp_path: Path) -> None:
    corpus = tmp_path / "journal"
    corpus.mkdir()
    for day, (heading, words) in DAYS.items():
        daily = f"* {heading}\n** 10:30 Morning\n:LOGBOOK:\nCLOCK: [{day} Tue 10:30]--[{day} Tue 11:00] =>  0:30\n"
        (corpus / f"{day.replace('-', '')}.org").write_text(f"{daily}:END:\n{words}\n", encoding="utf-8")
    data = _run(corpus, tmp_path / "out", "--no-index")
    assert data["run"]["files_done"] == 3 and not data["problems"]
    month = _body(tmp_path / "out" / "digests" / "2024" / "2024-03.md")
    labels = [month.index(label) for label in ("**5 March.**", "**12 March.**", "**21 March.**")]
    assert labels == sorted(labels), month
    assert "harbour" in month and "landlord" in month and "compost" in month and "CLOCK" not in month


def test_tasks_are_action_items_and_search_finds_a_headings_words(tmp_path: Path) -> None:
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "house.org").write_text(
        "#+title: House\n#+filetags: :home:\n\n"
        "* Renovation of the greenhouse roof                                  :garden:\n"
        ":PROPERTIES:\n:ID:       4f6c2b1e-9a0d-4d6b-8c3e-secretid\n:END:\n"
        "The old panes leak at every joint, and the frame has started to rot along the south side.\n"
        "** TODO [#A] Call the glazier about new panes [0/1] :calls:\n"
        "DEADLINE: <2024-03-15 Fri> SCHEDULED: <2024-03-11 Mon>\n"
        "** DONE Measure the frame\nCLOSED: [2024-03-04 Mon 18:02]\n"
        "** CANCELLED Order the cheap kit\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    data = _run(corpus, out)
    assert data["run"]["files_done"] == 1 and not data["problems"]
    final = (out / "house.org" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    # The open task is listed once: as the kept note shows it ("☐ ...") or among the facets' action items.
    items = re.search(r"\*\*Action items\*\*\n\n(.*?)\n\n", final, re.S)
    listed = items.group(1) if items else "\n".join(re.findall(r"^- ☐ .*$", final, re.M))
    assert "Call the glazier about new panes" in listed, final
    assert "Measure the frame" not in listed and "cheap kit" not in listed
    assert "2024-03-15" in final  # the DEADLINE is the action item's due date
    for markup in ("secretid", "PROPERTIES", "DEADLINE", "SCHEDULED", "CLOSED", "[#A]", ":calls:", "filetags"):
        assert markup not in final, markup
    r = CliRunner().invoke(main, ["search", "greenhouse renovation", "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert [h["doc_id"] for h in json.loads(r.stdout)][:1] == ["house.org"]


def test_the_renderer_gives_markdown() -> None:
    source = (
        "#+TITLE: Notes\n#+AUTHOR: Ana\n# a comment line\n\n"
        "* Harbour *bold* /italic/ plans :boat:\n"
        "Read [[https://example.com/pump][the pump page]], [[file:boat.org][Boat]], [[Boat log]] and [[id:42]].\n"
        "Keep =verbatim= and ~code~ words, drop +struck+ ones.[fn:1]\n"
        "** Meeting [2024-03-09 Sat 14:00] with Ben\n"
        "Due <2024-03-20 Wed>, then <2024-03-22 Fri>--<2024-03-24 Sun>.\n"
        "#+BEGIN_SRC python\nprint('x')\n#+END_SRC\n"
        "#+begin_example\n  raw lines\n#+end_example\n"
        "#+BEGIN_COMMENT\nprivate aside\n#+END_COMMENT\n"
        "#+begin_quote\nTo sail is necessary.\n#+end_quote\n"
        "| Item | Cost |\n|------+------|\n| Pump | 120 |\n\n"
        "- [X] bought paint\n+ [ ] sand the hull\n  - term :: its meaning\n1) first\n"
        "* COMMENT Drafts\nnever read\n** still hidden\n"
        "* Last\n-----\n[fn:1] A footnote.\n"
    )
    assert render_org(source) == (
        "# Notes\n\n"
        "## Harbour bold italic plans\n\n"
        "Read the pump page, Boat, Boat log and .\n"
        "Keep verbatim and code words, drop ones.\n\n"
        "### 2024-03-09 14:00 Meeting with Ben\n\n"
        "Due 2024-03-20, then 2024-03-22 – 2024-03-24.\n\n"
        "```python\nprint('x')\n```\n\n"
        "```\nraw lines\n```\n\n"
        "> To sail is necessary.\n\n"
        "| Item | Cost |\n|---|---|\n| Pump | 120 |\n\n"
        "- [x] bought paint\n- [ ] sand the hull\n  - term: its meaning\n1. first\n\n"
        "## Last"
    )


def test_headings_tasks_and_day_headings() -> None:
    source = (
        "#+TODO: TODO FEEDBACK(f) | DONE DELEGATED\n"
        "* 2024-03-05 Tuesday\n"
        "** FEEDBACK Review the draft\n** DELEGATED Book the room\n** NEXT Pack [1/3]\n"
        "* Standup <2024-03-06 Wed 09:30>\n"
        "* Friday\n:PROPERTIES:\n:CREATED:  20240308\n:END:\n"
    )
    assert render_org(source) == (
        "# 2024-03-05 Tuesday\n\n"
        "- [ ] Review the draft\n\n- [x] Book the room\n\n- [ ] Pack\n\n"
        "# 2024-03-06 09:30 Standup\n\n"
        "# 2024-03-08 Friday"
    )


@pytest.mark.parametrize(
    ("title", "order", "day"),
    [
        ("Tuesday, 03/05/24", None, "2024-03-05"),  # org-journal's default, month first: the weekday says so
        ("Friday, 03/05/24", None, "2024-05-03"),  # the same digits day first: a Friday
        ("2024-03-05 Tuesday", None, "2024-03-05"),
        ("Tue 05.03.2024", None, "2024-03-05"),
        ("Tuesday, 03/12/24", None, None),  # a Tuesday either way: undated rather than dated wrong
        ("Tuesday, 03/12/24", "mdy", "2024-03-12"),  # unless the file's other days fix the order
        ("03/21/24", None, "2024-03-21"),
        ("Monday, 2024-03-05", None, None),  # a weekday the day is not
        ("Meeting 03/05/24", None, None),
    ],
)
def test_day_headings(title: str, order: str | None, day: str | None) -> None:
    assert day_title(title, order) == day


def test_inline_marks() -> None:
    assert inline("a *b* /c/ _d_ =e= ~f~ +g+ h") == "a b c d e f h"
    assert inline("2*3*4 and a/b/c and snake_case_name") == "2*3*4 and a/b/c and snake_case_name"
    assert inline("[[roam:Page]] [[*Heading]] [[https://x.org]]") == "Page Heading https://x.org"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"-----BEGIN PGP MESSAGE-----\n\nhQEMA1234\n-----END PGP MESSAGE-----\n", "encrypted file (PGP message)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary file"),  # a picture renamed
        (bytes(range(128, 256)) * 8, "binary or undecodable"),  # no NUL, no text in any encoding either
    ],
)
def test_bad_input_is_a_one_line_reason_and_the_batch_goes_on(tmp_path: Path, content: bytes, reason: str) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "bad.org").write_bytes(content)
    (corpus / "good.org").write_text("* Notes\nThe ferry leaves at nine and the crossing takes two hours.\n")
    data = _run(corpus, tmp_path / "out", "--no-index")
    (problem,) = data["problems"]
    assert problem["path"].endswith("bad.org") and reason in problem["reason"] and "\n" not in problem["reason"]
    assert data["run"]["files_done"] == 1


def test_an_empty_org_file_or_one_of_only_markup_is_skipped_not_failed(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "empty.org").write_text("")
    (corpus / "markup.org").write_text("#+STARTUP: overview\n:PROPERTIES:\n:ID: 42\n:END:\n# nothing\n")
    (corpus / "good.org").write_text("* Notes\nThe ferry leaves at nine and the crossing takes two hours.\n")
    data = _run(corpus, tmp_path / "out", "--no-index")
    assert data["exit_code"] == 0 and not data["problems"]
    assert data["run"]["files_done"] == 1 and data["run"]["files_skipped"] == 2


def test_encrypted_entries_are_left_out_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "secret.org"
    path.write_text(
        "* Diary :crypt:\n-----BEGIN PGP MESSAGE-----\n\nhQEMA1234abcd\n-----END PGP MESSAGE-----\n"
        "* Public\nThe ferry leaves at nine.\n"
    )
    doc = read_document(SourceRef(path, path.name, tmp_path))
    assert "hQEMA" not in doc.text and "The ferry leaves at nine." in doc.text
    assert "1 encrypted entry (org-crypt) not read" in doc.warnings


def test_a_date_keyword_dates_the_file(tmp_path: Path) -> None:
    path = tmp_path / "talk.org"
    path.write_text("#+title: Talk notes\n#+date: <2023-11-02 Thu>\n\n* Questions\nWho pays for the ferry tickets?\n")
    doc = read_document(SourceRef(path, path.name, tmp_path))
    assert (doc.doc_date, doc.date_source) == ("2023-11-02", "front matter")
    assert doc.text.endswith("# Talk notes\n\n## Questions\n\nWho pays for the ferry tickets?")
