"""Reconciliation takes only news from the model: an event for a memory it was not shown, or an ADD
no new fact states, neither revives a deleted fact nor invents one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from batchsum.memory.files import Fact, deleted_dir
from tests.fakeserver import FakeLLMServer
from tests.test_facts import facts_cli, facts_json, live_texts, memory_json

PORTO = "The user lives in Porto."
LISBON_NEW = "The user moved to Lisbon."
LISBON = "The user lives in Lisbon."
BRAGA_NEW = "The user moved to Braga."
BRAGA = "The user lives in Braga."
CAT = "The user adopted a cat named Miso."
BOAT = "The user owns a boat."


def test_events_for_unknown_ids_and_unstated_adds_are_ignored_with_a_warning(
    fake_llm: FakeLLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    life = src / "journal" / "life.md"
    fake_llm.configure(
        rules=[
            {"match": "The journal entry:\n\n## 2026-10-01", "content": facts_json(PORTO)},
            {"match": "The journal entry:\n\n## 2026-10-05", "content": facts_json(LISBON_NEW)},
            {"match": "The journal entry:\n\n## 2026-10-09", "content": facts_json(BRAGA_NEW, CAT)},
            {"match": f'"new_facts": [\n  "{LISBON_NEW}"', "content": memory_json(("0", LISBON, "UPDATE"))},
            # Shown only Lisbon (id 0): a DELETE of an id never shown naming the deleted Porto, an UPDATE of
            # another unknown id and ADDs that no new fact states, besides the real news.
            {"match": f'"new_facts": [\n  "{BRAGA_NEW}"',
             "content": memory_json(("0", BRAGA, "UPDATE"), ("7", PORTO, "DELETE"), ("99", BOAT, "UPDATE"),
                                    ("new", PORTO, "ADD"), ("new", BOAT, "ADD"), ("new", CAT, "ADD"))},
        ]
    )  # fmt: skip
    entries = ["## 2026-10-01\nI live in Porto.\n", "## 2026-10-05\nWe moved to Lisbon.\n"]
    entries.append("## 2026-10-09\nWe moved again, to Braga, and adopted a cat called Miso.\n")
    for n in (1, 2, 3):
        life.write_text("\n".join(entries[:n]), encoding="utf-8")
        result = facts_cli(src, "--out", out, "--json", "--no-index", base_url=fake_llm.base_url)
        assert result.exit_code == 0, result.output
    assert live_texts(out) == sorted([BRAGA, CAT])
    summary = json.loads(result.output)
    assert (summary["added"], summary["updated"], summary["deleted"]) == (1, 1, 0)
    tombstones = sorted(Fact.from_file(p).text for p in deleted_dir(out, "journal").glob("*.md"))
    assert tombstones == sorted([PORTO, LISBON])
    assert "DELETE names memory id '7'" in caplog.text and "UPDATE names memory id '99'" in caplog.text
    assert "added a fact no new fact states ('The user lives in Porto.')" in caplog.text
