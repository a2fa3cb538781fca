"""What the facts pass asks about whom, and when: a group chat's or a meeting's turns are asked about
their named speakers (never "the user"), a journal and an assistant chat about "the user" as before, and
every request carries the day its text was written, when the entry or file says it."""

from __future__ import annotations

from pathlib import Path

from batchsum.memory.llm import FACT_SYSTEM_PROMPT, MAX_FACTS_PER_UNIT
from tests.fakeserver import FakeLLMServer, LogEntry
from tests.test_facts import facts_cli, facts_json

GROUP_DAY = (
    "Ana Silva: The refund queue for Acme Corp is at 140 tickets.\n\n"
    "Ben Okafor: I'll triage the Acme refunds by Thursday.\n\n"
    "Priya Raman: We decided to pause the macro rollout until the billing bug is fixed.\n"
)
JOURNAL = "## 2024-03-12\nI promised to call the plumber by Thursday.\n"
ASSISTANT_CHAT = "User: I moved to Lisbon last month.\n\nAssistant: Congratulations on the move!\n"


def extractions(server: FakeLLMServer, marker: str) -> list[LogEntry]:
    return [e for e in server.log if marker in e.messages[-1]["content"] and "durable facts" in e.prompt_text]


def facts_pass(server: FakeLLMServer, tmp_path: Path) -> tuple[Path, Path]:
    """A group chat's day, an assistant chat and a journal, through one facts pass: (sources, output)."""
    src = tmp_path / "src"
    (src / "chat").mkdir(parents=True)
    (src / "journal").mkdir()
    (src / "chat" / "2024-03-12.txt").write_text(GROUP_DAY, encoding="utf-8")
    (src / "chat" / "assistant.txt").write_text(ASSISTANT_CHAT, encoding="utf-8")
    (src / "journal" / "life.md").write_text(JOURNAL, encoding="utf-8")
    server.configure(rules=[{"match": "durable facts", "content": facts_json()}])
    out = tmp_path / "out"
    result = facts_cli(src, "--out", out, "--no-index", base_url=server.base_url)
    assert result.exit_code == 0, result.output
    return src, out


def test_group_turns_are_asked_about_their_named_speakers(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = facts_pass(fake_llm, tmp_path)
    [group] = extractions(fake_llm, "Ben Okafor: I'll triage")
    system = group.messages[0]["content"]
    assert all(name in system for name in ("Ana Silva", "Ben Okafor", "Priya Raman"))
    assert 'never "the user"' in system and '(call them "the user")' not in system

    # A journal and an assistant chat keep the prompt about "the user".
    prompt = FACT_SYSTEM_PROMPT.format(max_facts=MAX_FACTS_PER_UNIT)
    [journal] = extractions(fake_llm, "call the plumber")
    [chat] = extractions(fake_llm, "moved to Lisbon")
    assert journal.messages[0]["content"] == prompt and chat.messages[0]["content"] == prompt
    assert chat.messages[-1]["content"].startswith("The conversation turns:")

    # Units stay keyed by their text: a second pass asks only the new turn, in the group's prompt.
    asked = len(fake_llm.log)
    (src / "chat" / "2024-03-12.txt").write_text(GROUP_DAY + "\nBen Okafor: Done, all triaged.\n", encoding="utf-8")
    result = facts_cli(src, "--out", out, "--no-index", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    again = [e.messages for e in fake_llm.log[asked:] if "durable facts" in e.prompt_text]
    assert len(again) == 1 and "Done, all triaged" in again[0][-1]["content"]
    assert "I'll triage" not in again[0][-1]["content"] and "Priya Raman" in again[0][0]["content"]


def test_every_request_carries_the_day_its_text_was_written(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    facts_pass(fake_llm, tmp_path)
    group = extractions(fake_llm, "Ben Okafor: I'll triage")[0].messages[-1]["content"]
    assert "2024-03-12" in group and "Tuesday" in group  # "by Thursday" has a day to count from
    journal = extractions(fake_llm, "call the plumber")[0].messages[-1]["content"]
    assert "Tuesday 2024-03-12" in journal
    # Only its mtime dates the assistant chat: that is when it was copied, so no day is given.
    chat = extractions(fake_llm, "moved to Lisbon")[0].messages[-1]["content"]
    assert "Written on" not in chat
