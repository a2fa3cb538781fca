"""Digests turned off and on again: a run with --no-digests leaves no digest in the tree or the index, and
the run that turns them on again makes them from the files of now; ``plan`` and an unchanged run decide
which digests are due by one test, so what ``plan`` names the run does, and a run after it does nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digest_state import load_state

ENTRIES = {
    "2023-03-02": "Took the dogs to the vet with Marta; the old one needs new pills for his hips.",
    "2023-03-14": "Finished the garden fence with Tomas after two weekends of digging post holes.",
    "2023-03-18": "Lunch with Ana at the corner cafe, then picked up the new glasses from the optician.",
}
ADDED = ("2023-03-30", "Zebra parade downtown with the kids, who wanted to march behind the band.")
STATE = Path(".batchsum") / "digests.json"
MONTH = Path("digests") / "2023" / "2023-03.md"


def _journal(tmp_path: Path) -> Path:
    src = tmp_path / "journal"
    src.mkdir()
    for day, text in ENTRIES.items():
        (src / f"{day}.md").write_text(f"# {day}\n\n{text}\n", encoding="utf-8")
    return src


def _invoke(*args: str) -> str:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _run(src: Path, out: Path, *extra: str) -> list[dict[str, Any]]:
    """One run; its JSON log events."""
    log = out.parent / f"log-{len(list(out.parent.glob('log-*')))}.jsonl"
    _invoke("run", str(src), "--out", str(out), "--quiet", "--log-format", "json", "--log-file", str(log), *extra)
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _digest_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "digests_updated"]


def _planned(src: Path, out: Path, *extra: str) -> dict[str, Any]:
    plan = json.loads(_invoke("plan", str(src), "--out", str(out), "--json", *extra))
    return plan["periods"] or {"periods": [], "removed": []}


def _search(out: Path, query: str, *extra: str) -> list[str]:
    return [h["doc_id"] for h in json.loads(_invoke("search", query, "--out", str(out), "--json", *extra))]


def _change_the_month(src: Path) -> None:
    (src / "2023-03-02.md").unlink()
    (src / f"{ADDED[0]}.md").write_text(f"# {ADDED[0]}\n\n{ADDED[1]}\n", encoding="utf-8")


def test_no_digests_removes_the_digests_from_the_tree_and_the_index(tmp_path: Path) -> None:
    src, out = _journal(tmp_path), tmp_path / "out"
    _run(src, out, "--type", "journal")
    assert (out / MONTH).is_file() and "digests/2023/2023-03.md" in _search(out, "vet", "--level", "period")
    _change_the_month(src)
    assert set(_planned(src, out, "--no-digests")["removed"]) == {"month:2023-03", "year:2023"}
    events = _run(src, out, "--no-digests")
    # Written digests, or none: no page of a digest is left, nor its record, nor an index entry quoting it.
    assert not (out / "digests").exists() and not (out / STATE).exists()
    assert {*_digest_events(events)[0]["removed"]} == {"digests/2023/2023-03.md", "digests/2023.md"}
    assert _search(out, "vet", "--level", "period") == []
    assert not any(hit.startswith("digests/") for hit in _search(out, "what happened in March 2023?"))
    assert "index OK" in _invoke("index", str(out), "--check")
    assert "digests/" not in (out / "index.md").read_text(encoding="utf-8")
    # The next night, digests still off, has nothing left to remove.
    assert _digest_events(_run(src, out)) == []


def test_digests_turned_on_again_are_made_from_the_files_of_now(tmp_path: Path) -> None:
    src, out = _journal(tmp_path), tmp_path / "out"
    _run(src, out, "--type", "journal", "--no-index")
    _change_the_month(src)
    _run(src, out, "--no-digests")
    planned = _planned(src, out, "--digests")
    events = _run(src, out, "--digests")
    redone = _digest_events(events)[0]["redone"]
    assert sorted(redone) == sorted(planned["periods"]) == ["month:2023-03", "year:2023"]
    month = (out / MONTH).read_text(encoding="utf-8")
    assert "Zebra parade" in month and "vet" not in month
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "digests/2023/2023-03.md" in index and "Zebra parade" in index
    # Now in line: plan names nothing, and the next run redoes nothing.
    assert _planned(src, out)["periods"] == []
    assert _digest_events(_run(src, out)) == []


def test_a_digest_page_not_written_is_written_by_the_next_unchanged_run(tmp_path: Path) -> None:
    src, out = _journal(tmp_path), tmp_path / "out"
    (out / "digests").mkdir(parents=True)
    (out / "digests" / "2023").write_text("in the way of the month's folder\n", encoding="utf-8")
    _run(src, out, "--type", "journal", "--no-index")
    assert "month:2023-03" not in load_state(out / STATE).periods  # its page could not be written
    (out / "digests" / "2023").unlink()
    assert "month:2023-03" in _planned(src, out)["periods"]
    redone = _digest_events(_run(src, out))[0]["redone"]
    assert "month:2023-03" in redone and (out / MONTH).is_file()
    assert _planned(src, out)["periods"] == [] and _digest_events(_run(src, out)) == []
