"""Offline facets of a typed chat's unended messages, of several named owners, of a thanking lead-in with a
name, and of weekday due dates in a dated note (each had given no item, one owner, a kept lead-in, or a bare
weekday or "for Thursday" as the due date)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.facets import extract_facets, render_facets_markdown
from batchsum.tree import read_node


def _final(tmp_path: Path, name: str, text: str) -> tuple[dict[str, Any], str]:
    corpus = tmp_path / "corpus"
    (corpus / name).parent.mkdir(parents=True, exist_ok=True)
    (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    (final,) = (out / name / "summaries").glob("L*/final.md")
    meta, body = read_node(final)
    return meta, body


# Most messages end with a stop, as people who type them whole write: the one that does not is still whole.
WHATSAPP = """12/03/2024, 09:15 - Ana Silva: Wayne Enterprises reported double billing on invoice 8812.
12/03/2024, 09:16 - Ben Okafor: I will issue the credit note by Friday
12/03/2024, 09:17 - Ana Silva: Thanks, that was quick.
12/03/2024, 09:19 - Ana Silva: Great.
"""


def test_a_typed_chats_message_without_a_stop_is_a_whole_sentence(tmp_path: Path) -> None:
    meta, _ = _final(tmp_path, "chat.txt", WHATSAPP)
    items = meta.get("action_items", [])
    assert [(a["owner"], a.get("due")) for a in items] == [("Ben Okafor", "Friday")]
    assert "credit note" in items[0]["task"]


def test_a_transcripts_turn_without_a_stop_is_still_broken_off() -> None:
    # Not a chat export: most turns end with a stop, so the one that does not was cut by the next speaker.
    text = (
        "Ana Silva: Wayne Enterprises reported double billing on invoice 8812.\n"
        "Ben Okafor: I will issue the credit note by Friday\n"
        "Ana Silva: Thanks, that was quick.\n"
        "Ben Okafor: Great.\n"
    )
    assert extract_facets(text).action_items == []


SEVERAL = """Ana Silva: The refund script keeps failing on partial refunds.
Ben Okafor: Ben and Priya will pair on the refund script next week.
Priya Raman: Sounds good.
Ana Silva: Ana, Ben and Priya will review the refund runbook by Friday.
"""


def test_several_named_owners_are_all_owners() -> None:
    facets = extract_facets(SEVERAL)
    owners = {a.task.split()[0]: a.owner for a in facets.action_items}
    assert owners == {"Ben": "Ben Okafor, Priya Raman", "Ana,": "Ana Silva, Ben Okafor, Priya Raman"}
    section = render_facets_markdown(facets)
    assert "owners: Ben Okafor, Priya Raman; due: next week" in section


def test_a_thanking_lead_in_with_a_name_goes() -> None:
    text = (
        "Ana Silva: The mirror in Frankfurt is too slow for the Lisbon office.\n"
        "Ben Okafor: Thanks ben, we decided to move the mirror to the Lisbon region.\n"
        "Priya Raman: Thanks everyone, we agreed to keep the old mirror until May.\n"
        "Ana Silva: Thanks Ben, that's settled then.\n"
    )
    decisions = extract_facets(text).decisions
    assert len(decisions) == 2
    assert all(d.startswith("We ") for d in decisions), decisions


DAILY = """# Tuesday

- [ ] Book the boat for Thursday
- [ ] Call the marina by Thursday
- [ ] Pay the deposit (due Friday)
"""


def test_weekday_dues_get_the_dated_notes_date_and_for_is_no_due(tmp_path: Path) -> None:
    meta, _ = _final(tmp_path / "dated", "2024-03-12.md", DAILY)
    dues = {a["task"].split()[0]: a.get("due") for a in meta["action_items"]}
    assert dues == {"Book": None, "Call": "Thursday 2024-03-14", "Pay": "Friday 2024-03-15"}
    meta, _ = _final(tmp_path / "undated", "boat.md", DAILY)
    dues = {a["task"].split()[0]: a.get("due") for a in meta["action_items"]}
    assert dues == {"Book": None, "Call": "Thursday", "Pay": "Friday"}
