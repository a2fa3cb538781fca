"""``batchsum facts`` against the loopback fake server with scripted answers, the real ONNX embedder
and a real Chroma index: ADD / UPDATE / DELETE / NONE on a journal where a later entry contradicts an
earlier one, incremental extraction, malformed answers, a failing server, search by role."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from batchsum.cli import main
from batchsum.engine.ledger import EXIT_DEGRADED
from batchsum.memory.files import Fact, deleted_dir, facts_dir, iter_facts, read_scope
from batchsum.memory.units import conversation_turns, journal_entries
from batchsum.model import Document
from tests.fakeserver import FakeLLMServer

ENTRY_1 = """## 2026-10-01
I live in Porto with my partner Ana. We walked along the Douro after dinner.
"""
ENTRY_2 = """## 2026-10-03
First week of my new job as a data engineer at a shipping company. Long days.
"""
ENTRY_3 = """## 2026-10-05
We moved to Lisbon last weekend! Boxes everywhere. I also quit the data engineering job on Friday.
"""

PORTO = "The user lives in Porto."
ANA = "The user's partner is named Ana."
ENGINEER = "The user works as a data engineer."
LISBON_NEW = "The user moved to Lisbon."
QUIT = "The user quit the data engineering job."
LISBON = "The user lives in Lisbon."


def facts_json(*facts: str) -> str:
    return json.dumps({"facts": list(facts)})


def memory_json(*events: tuple[str, str, str]) -> str:
    return json.dumps({"memory": [{"id": i, "text": t, "event": e} for i, t, e in events]})


def script(server: FakeLLMServer) -> None:
    """Extraction answers keyed on each entry's heading; reconciliation answers keyed on the new facts."""
    server.configure(
        rules=[
            {"match": "The journal entry:\n\n## 2026-10-01", "content": facts_json(PORTO, ANA)},
            {"match": "The journal entry:\n\n## 2026-10-03", "content": facts_json(ENGINEER)},
            {"match": "The journal entry:\n\n## 2026-10-05", "content": facts_json(LISBON_NEW, QUIT)},
            # Entry 2 against {Porto, Ana}: both unrelated (NONE), the job is new (ADD).
            {"match": f'"new_facts": [\n  "{ENGINEER}"',
             "content": memory_json(("0", PORTO, "NONE"), ("1", ANA, "NONE"), ("new", ENGINEER, "ADD"))},
            # Entry 3 against {Porto, Ana, engineer} (oldest first): Porto is updated, the job deleted, Ana kept.
            {"match": f'"new_facts": [\n  "{LISBON_NEW}"',
             "content": memory_json(("0", LISBON, "UPDATE"), ("1", ANA, "NONE"), ("2", ENGINEER, "DELETE"))},
        ]
    )  # fmt: skip


def facts_cli(*args: str | Path, base_url: str) -> Result:
    argv = ["facts", *map(str, args), "--base-url", base_url, "--model", "fake", "--rpm", "0", "--max-attempts", "1"]
    return CliRunner().invoke(main, argv, catch_exceptions=False)


def live_texts(out: Path) -> list[str]:
    return sorted(f.text for f in iter_facts(out))


def extraction_requests(server: FakeLLMServer) -> list[str]:
    return [e.prompt_text for e in server.log if "The journal entry:" in e.prompt_text]


@pytest.fixture
def journal(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    return tmp_path / "src", tmp_path / "out"


def test_add_update_delete_none_on_a_contradicting_journal(fake_llm: FakeLLMServer, journal: tuple[Path, Path]) -> None:
    src, out = journal
    script(fake_llm)

    first = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.output)
    assert (summary["units"], summary["added"], summary["kept"]) == (2, 3, 2)
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])
    # The first entry had no neighbours: added without a reconciliation request; the second had one.
    assert len(fake_llm.requests(match="existing_memories")) == 1
    porto = next(f for f in read_scope(out, "journal") if f.text == PORTO)
    assert porto.source_path == "journal/life.md" and porto.source_line == 1 and porto.doc_date == "2026-10-01"
    meta_text = porto.path.read_text(encoding="utf-8") if porto.path else ""
    assert meta_text.startswith("---\n") and "role: memory" in meta_text and "scope: journal" in meta_text

    # A later entry contradicts the first: only it is sent for extraction.
    with (src / "journal" / "life.md").open("a", encoding="utf-8") as fh:
        fh.write("\n" + ENTRY_3)
    fake_llm.configure(reset_log=True)
    second = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert second.exit_code == 0, second.output
    sent = extraction_requests(fake_llm)
    assert len(sent) == 1 and "2026-10-05" in sent[0] and "2026-10-01" not in sent[0] and "2026-10-03" not in sent[0]
    summary = json.loads(second.output)
    assert (summary["units"], summary["updated"], summary["deleted"], summary["added"]) == (1, 1, 1, 0)

    # UPDATE: Porto's tombstone names the fact that replaced it; DELETE: the job is soft-deleted.
    assert live_texts(out) == sorted([LISBON, ANA])
    lisbon = next(f for f in read_scope(out, "journal") if f.text == LISBON)
    assert lisbon.event == "UPDATE" and lisbon.replaces == porto.id and lisbon.doc_date == "2026-10-05"
    tombstones = {f.text: f for f in (Fact.from_file(p) for p in deleted_dir(out, "journal").glob("*.md"))}
    assert tombstones[PORTO].replaced_by == lisbon.id and tombstones[PORTO].deleted_at
    assert tombstones[ENGINEER].replaced_by is None and tombstones[ENGINEER].deleted_at
    assert not list(facts_dir(out, "journal").glob(f"*{porto.id}*"))

    # The index follows: search --role memory finds Lisbon, never the deleted facts.
    found = CliRunner().invoke(main, ["search", "where does the user live", "--out", str(out), "--role", "memory",
                                      "--json"], catch_exceptions=False)  # fmt: skip
    assert found.exit_code == 0, found.output
    hits = json.loads(found.output)
    assert hits and hits[0]["text"] == LISBON
    assert not {PORTO, ENGINEER} & {h["text"] for h in hits}

    # `batchsum index` leaves the facts alone (they are no orphans of the summary tree); a rebuild drops
    # them from the index and the next facts pass puts them back.
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(out), "--check"]).exit_code == 0
    assert runner.invoke(main, ["index", str(out), "--rebuild"]).exit_code == 0

    # Nothing changed: nothing is read or sent.
    fake_llm.configure(reset_log=True)
    third = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert third.exit_code == 0 and json.loads(third.output)["unchanged"] == 1
    assert fake_llm.request_count == 0
    found = CliRunner().invoke(main, ["search", "where does the user live", "--out", str(out), "--role", "memory",
                                      "--json"], catch_exceptions=False)  # fmt: skip
    assert json.loads(found.output)[0]["text"] == LISBON


def test_search_of_facts_the_index_lacks_says_which_command_indexes_them(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path]
) -> None:
    """Facts written with --no-index, then an index rebuilt by `batchsum index` (which leaves facts out):
    `search --role memory` neither advises that rebuild nor answers "No matching facts"; it names the
    facts pass that indexes them, and after it the facts are found."""
    src, out = journal
    script(fake_llm)
    assert facts_cli(src, "--out", out, "--no-index", base_url=fake_llm.base_url).exit_code == 0
    search = ["search", "where does the user live", "--out", str(out), "--role", "memory"]
    hint = f"the facts of {out} are not in its search index"
    for step in ("no index", "rebuilt"):
        res = CliRunner().invoke(main, search)
        assert res.exit_code == 2 and hint in res.output and "batchsum facts SOURCES" in res.output, (step, res.output)
        assert "--rebuild" not in res.output and "No matching facts" not in res.output
        assert CliRunner().invoke(main, ["index", str(out), "--rebuild"]).exit_code == 0
    assert facts_cli(src, "--out", out, base_url=fake_llm.base_url).exit_code == 0
    found = CliRunner().invoke(main, [*search, "--json"])
    assert found.exit_code == 0 and json.loads(found.output)[0]["text"] == PORTO, found.output


def test_malformed_answer_is_retried_once_then_gives_no_facts(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    src, out = journal
    # No rule: the server answers plain prose, which is not JSON - for the first and the corrected request.
    result = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert result.exit_code == EXIT_DEGRADED, result.output  # entries without usable answers: degraded
    summary = json.loads(result.output)
    assert summary["malformed"] == 2 and summary["added"] == 0 and summary["units"] == 2
    assert fake_llm.request_count == 4  # each entry: one request, one correction
    retries = [e for e in fake_llm.log if any("not valid JSON" in str(m.get("content")) for m in e.messages)]
    assert len(retries) == 2
    assert "not valid JSON twice" in caplog.text and "journal/life.md:line 1" in caplog.text
    assert not list(iter_facts(out))
    # Neither entry is done: the next pass asks again, here with another model that answers well.
    fake_llm.configure(reset_log=True)
    script(fake_llm)
    argv = ["facts", str(src), "--out", str(out), "--base-url", fake_llm.base_url, "--model", "other", "--rpm", "0"]
    again = CliRunner().invoke(main, argv, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert len(extraction_requests(fake_llm)) == 2
    assert PORTO in live_texts(out) and ENGINEER in live_texts(out)
    # Then they are done: a third pass asks nothing.
    fake_llm.configure(reset_log=True)
    assert facts_cli(src, "--out", out, base_url=fake_llm.base_url).exit_code == 0
    assert fake_llm.request_count == 0


def test_the_command_says_malformed_entries_are_asked_again(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path]
) -> None:
    src, out = journal
    result = facts_cli(src, "--out", out, "--no-index", base_url=fake_llm.base_url)
    assert result.exit_code == EXIT_DEGRADED, result.output
    assert "2 malformed answer(s): their entries are asked again by the next `batchsum facts`" in result.stderr


def test_second_answer_valid_after_a_malformed_first(fake_llm: FakeLLMServer, journal: tuple[Path, Path]) -> None:
    src, out = journal
    (src / "journal" / "life.md").write_text(ENTRY_1, encoding="utf-8")
    fake_llm.configure(
        rules=[
            {"match": "not valid JSON", "content": facts_json(PORTO)},
            {"match": "The journal entry:", "content": '{"facts": ["unterminated'},
        ]
    )
    result = facts_cli(src, "--out", out, "--json", "--no-index", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["malformed"] == 0
    assert live_texts(out) == [PORTO]
    assert fake_llm.request_count == 2


def test_reconciliation_failure_adds_all(fake_llm: FakeLLMServer, journal: tuple[Path, Path]) -> None:
    src, out = journal
    script(fake_llm)
    fake_llm.configure(rules=[{"match": "existing_memories", "status": 500}, *[r.__dict__ for r in fake_llm.rules]])
    result = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])
    assert fake_llm.requests(match="existing_memories")[0].status == 500


def test_unreachable_server_fails_the_file_and_retries_next_time(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path]
) -> None:
    src, out = journal
    fake_llm.configure(rules=[{"status": 503}])
    failed = facts_cli(src, "--out", out, base_url=fake_llm.base_url)
    assert failed.exit_code == 1
    assert "journal/life.md" in failed.output and "retried next time" in failed.output
    script(fake_llm)
    again = facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url)
    assert again.exit_code == 0, again.output
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])


def test_documents_give_no_facts_and_no_llm_call(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src = tmp_path / "docs"
    src.mkdir()
    (src / "memo.md").write_text("# Battery field study\n\nThe cells lost 4% capacity over the winter.\n")
    result = facts_cli(src, "--out", tmp_path / "out", "--json", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["documents_skipped"] == 1
    assert fake_llm.request_count == 0


def test_needs_an_llm(tmp_path: Path) -> None:
    (tmp_path / "j.md").write_text(ENTRY_1)
    result = CliRunner().invoke(main, ["facts", str(tmp_path / "j.md"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "--base-url" in result.output


def _doc(text: str, ctype: Any) -> Document:
    return Document(Path("x.md"), "x.md", text, "0", len(text), 0, ctype, "test", doc_date="2026-01-01")


def test_units_split_entries_and_turns() -> None:
    entries = journal_entries(_doc("---\ntitle: t\n---\nPreamble.\n\n" + ENTRY_1 + "\n" + ENTRY_3, "journal"))
    assert [(u.line, u.date) for u in entries] == [(4, "2026-01-01"), (6, "2026-10-01"), (9, "2026-10-05")]
    appended = journal_entries(_doc("Preamble.\n\n" + ENTRY_1, "journal"))
    assert appended[1].key == entries[1].key  # an entry's key does not depend on what follows it
    turns = conversation_turns(_doc("User: I moved to Lisbon.\nIt is sunny.\n\nAssistant: Nice!\n", "conversation"))
    assert [(u.turn, u.speaker, u.line) for u in turns] == [(1, "User", 1), (2, "Assistant", 4)]
    assert turns[0].text == "User: I moved to Lisbon.\nIt is sunny."


def test_git_commits_the_facts(fake_llm: FakeLLMServer, journal: tuple[Path, Path]) -> None:
    import subprocess

    src, out = journal
    script(fake_llm)
    result = facts_cli(src, "--out", out, "--git", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    log = subprocess.run(["git", "-C", str(out), "log", "--name-only", "--format=%s"], capture_output=True, text=True)
    assert "3 added" in log.stdout
    assert sum(1 for line in log.stdout.splitlines() if line.startswith("journal/facts/")) == 3


def test_429_is_retried_and_a_hung_server_times_out(fake_llm: FakeLLMServer, journal: tuple[Path, Path]) -> None:
    src, out = journal
    script(fake_llm)
    fake_llm.configure(rules=[{"status": 429, "retry_after": "0", "times": 2}, *[r.__dict__ for r in fake_llm.rules]])
    argv = ["facts", str(src), "--out", str(out), "--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0",
            "--max-attempts", "3", "--json"]  # fmt: skip
    result = CliRunner().invoke(main, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert [e.status for e in fake_llm.log].count(429) == 2
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])

    (src / "journal" / "life.md").write_text(ENTRY_1 + "\n" + ENTRY_2 + "\n" + ENTRY_3, encoding="utf-8")
    fake_llm.configure(rules=[{"hang": 5}])
    hung = facts_cli(src, "--out", out, "--timeout", "0.5", base_url=fake_llm.base_url)
    assert hung.exit_code == 1 and "timeout" in hung.output


def test_run_with_facts_summarizes_and_extracts_in_one_command(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path]
) -> None:
    src, out = journal
    script(fake_llm)
    fake_llm.configure(any_model=True)
    argv = ["run", str(src), "--out", str(out), "--facts", "--base-url", fake_llm.base_url, "--model", "fake",
            "--rpm", "0", "--tpm", "0", "--no-index", "--max-attempts", "1"]  # fmt: skip
    res = CliRunner().invoke(main, argv, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert (out / "journal" / "life.md" / "summaries" / "L3" / "final.md").is_file()
    assert live_texts(out) == sorted([PORTO, ANA, ENGINEER])
    assert "facts:" in res.stderr or "facts:" in res.stdout
    # Without an LLM (a new folder: this one remembers its server), --facts is a usage error before any work.
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out.parent / "other-out"), "--facts"])
    assert res.exit_code == 2 and "--facts extracts facts with an LLM" in res.stderr


def test_an_answer_nested_100000_levels_is_malformed_not_a_crash_and_not_cached(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    src, out = journal
    (src / "journal" / "life.md").write_text(ENTRY_1, encoding="utf-8")
    fake_llm.configure(rules=[{"content": '{"facts": ' + "[" * 100_000 + "]" * 100_000 + "}"}])
    result = facts_cli(src, "--out", out, "--json", "--no-index", base_url=fake_llm.base_url)
    assert result.exit_code == EXIT_DEGRADED, result.output
    assert json.loads(result.output)["malformed"] == 1
    assert "nested deeper than" in caplog.text
    fake_llm.configure(reset_log=True)
    again = facts_cli(src, "--out", out, "--json", "--no-index", base_url=fake_llm.base_url)
    assert again.exit_code == EXIT_DEGRADED and fake_llm.request_count == 2  # asked again, not replayed from the cache


def test_a_changed_journal_with_no_new_entry_is_counted_changed_not_unchanged(
    fake_llm: FakeLLMServer, journal: tuple[Path, Path]
) -> None:
    src, out = journal
    script(fake_llm)
    assert facts_cli(src, "--out", out, base_url=fake_llm.base_url).exit_code == 0
    # Blank lines added, no entry: read (its stat changed), nothing sent; "1 unchanged" had said it was not edited.
    (src / "journal" / "life.md").write_text(ENTRY_1 + "\n\n\n" + ENTRY_2 + "\n\n", encoding="utf-8")
    fake_llm.configure(reset_log=True)
    again = facts_cli(src, "--out", out, base_url=fake_llm.base_url)
    assert again.exit_code == 0, again.output
    assert "1 files (0 unchanged, 1 changed with nothing new, 0 documents skipped); 0 new" in again.output
    assert extraction_requests(fake_llm) == []
    summary = json.loads(facts_cli(src, "--out", out, "--json", base_url=fake_llm.base_url).output)
    assert (summary["unchanged"], summary["changed_nothing_new"]) == (1, 0)  # the next pass: unchanged indeed
