"""What serve injects: the source passage the search matched when a summary lacks the question's words, and
a conversation's own summary once (not again among the summary hits)."""

from __future__ import annotations

from pathlib import Path

import openai
from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer
from tests.test_serve import KEY, LONG_MESSAGE, chat_requests, serving, wait_for

RETRO = (
    "# Retro 2026-11-03\n\n"
    "Dana: The vendor for the office coffee machine is Kettleworks and their contract ends in March.\n"
    "Evan: We agreed to move the quarterly offsite to Lisbon in May.\n"
    "Dana: Evan will book the venue for the offsite by Friday.\n"
    "Frank: The flaky test in the payments suite is caused by a timezone bug in the fixture.\n"
    "Evan: Should we drop support for Safari 15?\n"
    "Dana: Decision: we drop Safari 15 support next quarter.\n"
    "Frank: I will fix the timezone fixture by Tuesday.\n"
)


def injected(upstream: FakeLLMServer) -> str:
    """The memories of the last chat request the upstream got."""
    return str(chat_requests(upstream)[-1][0]["content"]).partition("Memories:\n")[2]


def test_a_brief_summary_comes_with_the_passage_that_answers(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src, out = tmp_path / "meetings", tmp_path / "out"
    src.mkdir()
    (src / "retro-2026-11-03.md").write_text(RETRO, encoding="utf-8")
    built = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q", "--no-digests"])
    assert built.exit_code == 0, built.output
    with serving(out, upstream.base_url, "--no-facts", "--no-summaries") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        for question, answer in [("Are we dropping Safari 15 support?", "next quarter"),
                                 ("Who will book the offsite venue?", "by Friday")]:  # fmt: skip
            client.chat.completions.create(model="fake", messages=[{"role": "user", "content": question}])
            lines = [line for line in injected(upstream).splitlines() if "retro" in line or line.startswith("From")]
            assert any(answer in line for line in lines), injected(upstream)
            assert all(len(line) < 700 for line in lines)  # within the summary's room
        # A summary that holds the question's words goes in alone.
        client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "Where is the offsite?"}])
        assert "Lisbon" in injected(upstream) and "From the source" not in injected(upstream)


def test_the_conversations_own_summary_is_not_injected_twice(tmp_path: Path, upstream: FakeLLMServer) -> None:
    out = tmp_path / "out"
    with serving(out, upstream.base_url, "--no-facts") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        client.chat.completions.create(
            model="fake", messages=[{"role": "user", "content": LONG_MESSAGE}], extra_body={"conversation_id": "azores"}
        )
        question = [{"role": "user", "content": "What about the ferry schedule to Pico?"}]

        def indexed() -> bool:  # another conversation finds the azores transcript among the summaries
            client.chat.completions.create(model="fake", messages=question, extra_body={"conversation_id": "other"})
            return "conversations/azores/transcript.md" in injected(upstream)

        wait_for(indexed)
        client.chat.completions.create(model="fake", messages=question, extra_body={"conversation_id": "azores"})
        context = str(chat_requests(upstream)[-1][0]["content"])
        assert "Summary of this conversation so far:" in context
        assert "conversations/azores/transcript.md" not in injected(upstream), context
