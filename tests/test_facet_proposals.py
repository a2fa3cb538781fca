"""A decision says what was chosen: "the fix is verified" says a fact of a fix, and a sentence whose main
clause is "let's ..." proposes ("Now that the fix is verified, let's submit our changes." had been an
agent session's only decision)."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.facets import extract_facets

SESSION = (
    "### user\n\nThe total that `report.py` prints is off by one cent; it should read 10.00.\n\n"
    "### assistant\n\nEach line is rounded before the sum, so the plan is to round the total once at the end.\n\n"
    "```\nedit 3:3\n```\n\n"
    "### user\n\n[File: /app/report.py (12 lines total)]\n\n"
    "### assistant\n\nThe total prints 10.00 now, so the fix is verified.\n\n```\npython report.py\n```\n\n"
    "### user\n\nTotal: 10.00\n\n"
    "### assistant\n\nNow that the fix is verified, let's submit our changes.\n\n```\nsubmit\n```\n"
)


def test_an_agent_sessions_proposal_and_a_fact_of_its_fix_are_no_decisions(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "s.md").write_text(SESSION, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    final = (out / "s.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    decisions = yaml.safe_load(final.split("---\n", 2)[1]).get("decisions", [])
    assert not [d for d in decisions if "let's" in d or d.endswith("the fix is verified.")], decisions
    assert any("the plan is to round the total" in d for d in decisions), decisions  # what was chosen stays


def test_a_decision_noun_counts_when_what_follows_says_what_was_chosen() -> None:
    for said, decided in [
        ("The plan is to move the launch to March.", True),
        ("The decision was made to start on the fifteenth of May.", True),
        ("Our fix is that the parser skips empty rows.", True),
        ("The fix is applied to the release branch.", False),
        ("The solution was simple, it only took an hour.", False),
        ("Now that the fix is verified, let's submit our changes.", False),
        ("Since we agreed on the colour, let's move on to the shape.", False),
        ("Now that we agreed on the colour, we decided to order the samples.", True),
    ]:
        found = extract_facets(f"Ana: {said}\nBen: Fine by me.\n").decisions
        assert bool(found) is decided, (said, found)
