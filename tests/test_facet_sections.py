"""Facets written as prose or as a table under a facet heading: an ADR's "## Decision" paragraph is its
decision, and a post-mortem's "## Action items" table its action items (both had given no facet at all)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.facets import MAX_ITEMS
from batchsum.tree import read_node
from batchsum.written_facets import has_written_facets, written_facets

ADR = """# ADR 3: Queue the exports

## Status

Accepted.

## Context

Exports time out when a customer asks for more than a year of data. Nobody wants to raise the timeout.

## Decision

We will run every export as a background job on the existing queue. The user gets an e-mail with a
link when the file is ready. We will not raise the request timeout.

## Consequences

Exports need the worker fleet to be up.
"""

POSTMORTEM = """# Post-mortem: stale prices

## Action items

| Action | Owner | Due | Status |
|--------|-------|-----|--------|
| Add a cache TTL alarm | Tom | 2024-02-15 | open |
| Rotate the pager key | Maria | 2024-02-20 | Done |
| Write the runbook entry | TBD | - | |

## Lessons learned

Caches need an owner.
"""


def _final(tmp_path: Path, name: str, text: str) -> dict:
    corpus = tmp_path / "corpus"
    corpus.mkdir(parents=True)
    (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    meta, _ = read_node(out / name / "summaries" / "L3" / "final.md")
    return meta


def test_the_prose_under_a_decision_heading_is_its_decisions() -> None:
    facets = written_facets(ADR)
    assert len(facets.decisions) == 3
    assert facets.decisions[0].startswith("We will run every export as a background job")
    assert facets.decisions[-1] == "We will not raise the request timeout."
    assert all(d.endswith(".") for d in facets.decisions)  # whole sentences
    assert not facets.action_items and not facets.unresolved  # context and consequences are no facet
    # At most a kind's cap of sentences; a paragraph saying there is none, or introducing a list, is no item.
    long = "## Decision\n\n" + " ".join(f"We will do step {i}." for i in range(MAX_ITEMS + 3)) + "\n"
    assert len(written_facets(long).decisions) == MAX_ITEMS
    assert written_facets("## Decisions\n\nNo decisions this week.\n").is_empty()
    listed = written_facets("## Decisions\n\nAfter a long debate we settled these.\n\n- Ship in April.\n")
    assert listed.decisions == ["Ship in April."]
    # "Tasks" also heads a description of tasks: only a list under it is read.
    assert written_facets("## Tasks\n\nTasks are units of work the runner schedules.\n").is_empty()
    assert has_written_facets(ADR)


def test_a_table_under_a_facet_heading_is_read_by_its_header() -> None:
    items = [(a.task, a.owner, a.due) for a in written_facets(POSTMORTEM).action_items]
    assert ("Add a cache TTL alarm", "Tom", "2024-02-15") in items
    assert all(task != "Rotate the pager key" for task, _, _ in items)  # done
    assert ("Write the runbook entry", None, None) in items  # "TBD" and "-" name no one and no date
    # The item is the column named like one, wherever it is; an unnamed table's first other column.
    decisions = "## Decisions\n\n| # | Decision | Date |\n|---|---|---|\n| 1 | Use Postgres | 2024-01-01 |\n"
    assert written_facets(decisions).decisions == ["Use Postgres"]
    assert has_written_facets(POSTMORTEM)


def test_a_run_lists_an_adrs_decision_and_a_postmortems_action_items(tmp_path: Path) -> None:
    meta = _final(tmp_path / "adr", "0003-queue-the-exports.md", ADR)
    assert any("background job" in d for d in meta["decisions"])
    meta = _final(tmp_path / "pm", "2024-01-22-stale-prices.md", POSTMORTEM)
    assert {"task": "Add a cache TTL alarm", "owner": "Tom", "due": "2024-02-15"} in meta["action_items"]
