"""Plumbing of ``batchsum facts`` and ``batchsum serve`` against the real local llama.cpp server.

Assertions are about structure (requests accepted, strict JSON parsed or reported, files and
answers well-formed) - never about what a 135M model says. Skipped when ``llama_cpp`` is not
importable, like tests/test_llama_integration.py whose server fixture this reuses.
"""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.memory.files import Fact, iter_facts
from tests.test_facts import ENTRY_1, ENTRY_2
from tests.test_llama_integration import MODEL_ALIAS, llama_server  # noqa: F401 - the fixture
from tests.test_serve import KEY, serving, wait_for

pytestmark = pytest.mark.llama


def test_facts_and_serve_against_llama_cpp(llama_server: str, tmp_path: Path) -> None:  # noqa: F811
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    out = tmp_path / "out"
    args = ["facts", str(tmp_path / "src"), "--out", str(out), "--base-url", llama_server, "--model", MODEL_ALIAS,
            "--json-format", "json_object", "--rpm", "0", "--timeout", "600", "--json"]  # fmt: skip
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["units"] == 2 and summary["problems"] == []
    # Grammar-constrained JSON parses; whatever the model found is a well-formed fact file.
    assert summary["malformed"] == 0
    for fact in iter_facts(out):
        assert (
            isinstance(fact, Fact) and fact.text and fact.scope == "journal" and fact.source_path == "journal/life.md"
        )

    with serving(out, llama_server, "--model", MODEL_ALIAS, "--timeout", "600", "--json-format", "json_object",
                 "--no-summaries") as (url, _proc):  # fmt: skip
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=600)
        # Streamed first: llama-cpp-python interrupts a stream when another request arrives, and the
        # writer's fact requests for an earlier exchange would be one.
        stream = client.chat.completions.create(
            model=MODEL_ALIAS, max_tokens=32, stream=True, messages=[{"role": "user", "content": "Say hello."}]
        )
        chunks = list(stream)  # a 135M model may well answer nothing: the plumbing is what is checked
        assert chunks and chunks[0].choices[0].delta.role == "assistant"
        assert any(c.choices and c.choices[0].finish_reason for c in chunks), [c.model_dump() for c in chunks]
        reply = client.chat.completions.create(
            model=MODEL_ALIAS, max_tokens=32, messages=[{"role": "user", "content": "Where do I live?"}]
        )
        assert reply.choices[0].message.content is not None
        user_turns = out / "conversations" / "default" / "turns" / "user"
        wait_for(lambda: len(list(user_turns.glob("*.md"))) == 2, timeout=600)
    assert (out / "conversations" / "default" / "turns" / "user").is_dir()
