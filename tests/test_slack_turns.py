"""A Slack export's messages read as what people wrote: an emoji between two clauses ends the first, a
message opening with a mention addresses that person, and a kept-whole day's one-liner keeps its turns apart."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

USERS = [
    {"id": "U1", "name": "priya", "real_name": "Priya Raman"},
    {"id": "U2", "name": "dev", "real_name": "Dev Patel"},
]
MESSAGES = [
    {
        "type": "message",
        "user": "U1",
        "ts": "1710236040.000100",
        "text": "<@U2> we're going with Postgres for the new service because of the JSON support &amp; the audit log",
    },
    {
        "type": "message",
        "user": "U2",
        "ts": "1710236100.000200",
        "text": "Sounds good :tada: I'll write the migration plan by Thursday",
    },
    {"type": "message", "user": "U1", "ts": "1710236160.000300", "text": "Great, I will review it on Friday :+1:"},
]
FINAL = Path("general", "2024-03-12.json", "summaries", "L3", "final.md")


def _run_slack(tmp_path: Path) -> Path:
    """The output folder of a run over a one-channel, one-day Slack export."""
    export = tmp_path / "slack"
    (export / "general").mkdir(parents=True)
    (export / "users.json").write_text(json.dumps(USERS), encoding="utf-8")
    (export / "general" / "2024-03-12.json").write_text(json.dumps(MESSAGES), encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(export), "--out", str(out), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    return out


def _facet(final: str, heading: str) -> list[str]:
    section = final.split(f"**{heading}**", 1)[1].split("\n\n**", 1)[0].split("<!--", 1)[0]
    return [ln[2:] for ln in section.splitlines() if ln.startswith("- ")]


def test_emoji_between_clauses_and_a_leading_mention_leave_the_facet_rules_their_sentences(tmp_path: Path) -> None:
    final = (_run_slack(tmp_path) / FINAL).read_text(encoding="utf-8")
    actions = _facet(final, "Action items")
    assert any(a.startswith("Dev Patel: I'll write the migration plan") for a in actions), actions
    assert any(a.startswith("Priya Raman: I will review it") for a in actions), actions
    decisions = _facet(final, "Decisions")
    assert any("going with Postgres" in d for d in decisions), final
    assert "good I'll" not in final and "@Dev Patel we're" not in final


def test_a_kept_whole_days_one_liner_ends_at_its_first_turn(tmp_path: Path) -> None:
    out = _run_slack(tmp_path)
    month = (out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8")
    for page in ((out / "index.md").read_text(encoding="utf-8"), month):
        entry = next(ln for ln in page.splitlines() if "2024-03-12.json/summaries" in ln and " — " in ln)
        said = entry.split(" — ", 1)[1]
        # Priya's message has no stop of its own; Dev's turn does not run on from it.
        assert said.startswith("Priya Raman: ") and "Dev Patel:" not in said, entry
        assert "audit log." in said, entry


def test_a_years_digest_keeps_a_chat_days_turns_apart(tmp_path: Path) -> None:
    out = _run_slack(tmp_path)
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8")
    month = (out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8")
    for page in (year, month):
        # Each message is a sentence, though it ends with no stop: the next turn never runs on from it.
        assert "audit log." in page and "audit log Dev" not in page, page
