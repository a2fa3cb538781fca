"""An Architecture Decision Record's facets list its Decision's sentences first and its Status as written
("Superseded by ADR 9"): whether the decision still stands. A "Status" heading in a file that records no
decision is no facet."""

from __future__ import annotations

from pathlib import Path

from tests.one_final import final_node

ADR = """# ADR 7: Use advisory locks for the nightly job

## Status

Superseded by ADR 9

## Context

Two replicas of the nightly job picked up the same file twice in January. Every replica already holds a
database connection, and the lease object needs permissions the platform team will not grant.

## Decision

We will take an advisory lock on the file's id before the job processes it. A replica that fails to take
the lock skips the file.

## Consequences

A crashed replica releases its lock when its connection drops. The job now depends on one primary database.
"""

REPORT = """# Warehouse migration

## Status

The copy of the archive tables finished on Tuesday and the checks are green.

## Next week

The team moves the reporting views and measures the nightly load times on the new cluster.
"""


def _final(tmp_path: Path, name: str, text: str) -> tuple[dict, str]:
    return final_node(tmp_path, name, text, "--no-metrics")


def test_a_decision_record_shows_its_status(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, "0007-advisory-locks.md", ADR)
    facets = body.split("Facets (extracted)", 1)[1]
    assert meta["decisions"][0].startswith("We will take an advisory lock")
    assert meta["decision_status"] == "Superseded by ADR 9"
    status = [line for line in facets.splitlines() if line.startswith("**Status:**")]
    assert status == ["**Status:** Superseded by ADR 9"]
    assert facets.index("We will take an advisory lock") < facets.index("**Status:**")


def test_a_status_heading_without_decisions_is_no_facet(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, "migration.md", REPORT)
    assert "decision_status" not in meta
    assert "**Status:**" not in body


def test_a_tasks_status_line_is_not_the_decisions_status(tmp_path: Path) -> None:
    # An action item's indented "Status:" is the task's, not the record's (review).
    note = (
        "# Weekly sync\n\n## Decisions\n- We will move the launch to April.\n\n"
        "## Action items\n- Priya: update the vendor contract by Friday.\n  Status: waiting on legal\n"
    )
    meta, body = _final(tmp_path, "sync.md", note)
    assert "decision_status" not in meta
    assert "**Status:**" not in body
