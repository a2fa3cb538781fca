"""A source that disappears takes its facts with it, as it takes its summaries: after ``run --facts``, a
deleted conversation's facts are soft-deleted (``deleted/facts/``, out of the memory index) and a renamed
one's facts follow it to the new name (same ids, nothing extracted twice). A reconciliation answer that is
malformed twice says what happens: the new facts are added unreconciled, those the memory holds already kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from batchsum.cli import main
from batchsum.memory.files import Fact, deleted_dir, facts_dir, iter_facts
from tests.fakeserver import FakeLLMServer
from tests.test_facts import ANA, ENGINEER, ENTRY_1, ENTRY_2, PORTO, facts_cli, facts_json, live_texts, script

GREENHOUSE = "The user plans a greenhouse retrofit."
DENTIST = "The user sees a dentist on Friday."
DEV_0 = "Ana: We finally booked the greenhouse retrofit for spring.\nBen: Nice, glass or polycarbonate?\n" * 2
DEV_1 = "Ana: My dentist appointment moved to Friday.\nBen: Good luck with it.\n" * 2


def run_facts(src: Path, out: Path, base_url: str) -> Result:
    argv = ["run", str(src), "--out", str(out), "--facts", "--base-url", base_url, "--model", "fake",
            "--rpm", "0", "--tpm", "0", "--max-attempts", "1"]  # fmt: skip
    return CliRunner().invoke(main, argv, catch_exceptions=False)


def test_facts_of_a_deleted_source_are_retired_and_a_renamed_ones_move(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "dev_0.txt").write_text(DEV_0, encoding="utf-8")
    (src / "dev_1.txt").write_text(DEV_1, encoding="utf-8")
    fake_llm.configure(
        any_model=True,
        rules=[
            {"match": "The conversation turns:\n\nAna: We finally booked", "content": facts_json(GREENHOUSE)},
            {"match": "The conversation turns:\n\nAna: My dentist", "content": facts_json(DENTIST)},
        ],
    )
    first = run_facts(src, out, fake_llm.base_url)
    assert first.exit_code == 0, first.output
    before = {f.text: f for f in iter_facts(out)}
    assert before.keys() == {GREENHOUSE, DENTIST}

    (src / "dev_0.txt").rename(src / "checkup.txt")
    (src / "dev_1.txt").unlink()
    fake_llm.configure(reset_log=True)
    second = run_facts(src, out, fake_llm.base_url)
    assert second.exit_code == 0, second.output
    assert not [e for e in fake_llm.log if "The conversation turns:" in e.prompt_text]  # nothing extracted again

    # The renamed source's fact moved (same id, one copy); the deleted one's fact is a tombstone.
    live = list(iter_facts(out))
    assert [(f.text, f.id, f.source_path, f.scope) for f in live] == [
        (GREENHOUSE, before[GREENHOUSE].id, "checkup.txt", "checkup.txt")
    ]
    assert not list(facts_dir(out, "dev_0.txt").glob("*.md")) and not list(facts_dir(out, "dev_1.txt").glob("*.md"))
    tombstones = [Fact.from_file(p) for p in deleted_dir(out, "dev_1.txt").glob("*.md")]
    assert [(f.text, f.id) for f in tombstones] == [(DENTIST, before[DENTIST].id)] and tombstones[0].deleted_at

    # The memory index follows: every fact found points at a source that exists.
    for query, expected in (("greenhouse retrofit", {GREENHOUSE}), ("dentist appointment", set())):
        found = CliRunner().invoke(
            main, ["search", query, "--out", str(out), "--role", "memory", "--json"], catch_exceptions=False
        )
        assert found.exit_code == 0, found.output
        hits = json.loads(found.output)
        assert expected <= {h["text"] for h in hits} <= {GREENHOUSE}
        assert all((src / h["source_path"]).is_file() for h in hits)

    # A third run changes nothing more.
    third = run_facts(src, out, fake_llm.base_url)
    assert third.exit_code == 0, third.output
    assert [(f.id, f.source_path) for f in iter_facts(out)] == [(before[GREENHOUSE].id, "checkup.txt")]


def test_a_malformed_reconciliation_answer_says_the_facts_are_added_unreconciled(
    fake_llm: FakeLLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    (src / "journal" / "life.md").write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    # Extraction answers well; reconciliation (the second entry against Porto) answers prose, twice.
    fake_llm.configure(
        rules=[
            {"match": "existing_memories", "content": "Sure! Here is what I think about these memories."},
            {"match": "The journal entry:\n\n## 2026-10-01", "content": facts_json(PORTO)},
            # The second entry repeats Porto word for word: kept once, so the warning may not say "all added".
            {"match": "The journal entry:\n\n## 2026-10-03", "content": facts_json(PORTO, ENGINEER)},
        ]
    )
    result = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    assert len(fake_llm.requests(match="existing_memories")) == 2  # asked, then asked again with the error
    assert sorted(f.text for f in iter_facts(out)) == sorted([PORTO, ENGINEER])
    warned = [r.getMessage() for r in caplog.records if "reconcile" in r.getMessage()]
    assert warned and all("its new facts are added unreconciled (one the memory already holds" in w for w in warned)
    assert "all added" not in caplog.text
    assert (json.loads(result.output)["added"], json.loads(result.output)["kept"]) == (2, 1)
    assert "no facts from it" not in caplog.text
    # Its entry is done, so it is not counted among the malformed answers whose entries are asked again.
    assert json.loads(result.output)["malformed"] == 0


def test_facts_of_an_entry_deleted_from_a_journal_are_retired(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    """The journal stays, one entry goes: its facts leave the memory (a tombstone, out of search) as a deleted
    file's do, and the other entries' facts stay; nothing is asked of the model again."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    life = src / "journal" / "life.md"
    life.write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    script(fake_llm)
    first = facts_cli(src, "--out", out, base_url=fake_llm.base_url)
    assert first.exit_code == 0, first.output
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])

    life.write_text(ENTRY_1, encoding="utf-8")  # the entry of 2026-10-03 (the new job) deleted
    fake_llm.configure(reset_log=True)
    second = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert second.exit_code == 0, second.output
    assert json.loads(second.output)["deleted"] == 1
    assert not fake_llm.log
    assert live_texts(out) == sorted([PORTO, ANA])
    assert [Fact.from_file(p).text for p in deleted_dir(out, "journal").glob("*.md")] == [ENGINEER]
    found = CliRunner().invoke(main, ["search", "what is my job", "--role", "memory", "--out", str(out), "--json"])
    assert found.exit_code == 0, found.output
    assert ENGINEER not in found.output and PORTO in found.output


def test_another_scope_moves_a_journals_facts_instead_of_extracting_them_again(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """A journal first reconciled in its folder's scope, then with --scope me once a new entry is written:
    its facts move to "me" (same ids, nothing asked again), so the new entry updates them there instead of
    leaving the old scope's stale facts live beside a second extraction of every entry."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "journal").mkdir(parents=True)
    life = src / "journal" / "life.md"
    life.write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    script(fake_llm)
    assert facts_cli(src, "--out", out, base_url=fake_llm.base_url).exit_code == 0
    before = {f.text: f.id for f in iter_facts(out)}
    life.write_text(ENTRY_1 + "\n" + ENTRY_2 + "\n## 2026-10-07\nWe got a cat.\n", encoding="utf-8")
    fake_llm.configure(reset_log=True, add_rules=[{"match": "We got a cat", "content": facts_json()}])
    second = facts_cli(src, "--out", out, "--scope", "me", base_url=fake_llm.base_url)
    assert second.exit_code == 0, second.output
    asked = [e.prompt_text for e in fake_llm.log if "The journal entry:" in e.prompt_text]
    assert len(asked) == 1 and "2026-10-07" in asked[0]
    assert sorted((f.scope, f.text, f.id) for f in iter_facts(out)) == sorted(("me", t, i) for t, i in before.items())
    assert "3 facts moved" in second.output

    # A file unchanged since is read again for a --scope its facts are not in, and they move there too.
    third = facts_cli(src, "--out", out, "--scope", "home", base_url=fake_llm.base_url)
    assert third.exit_code == 0 and "3 facts moved" in third.output, third.output
    assert {f.scope for f in iter_facts(out)} == {"home"}
