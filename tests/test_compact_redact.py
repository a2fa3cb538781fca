"""LLM compaction redacts secrets before the transcript is sent, by the run's rule (on when the server is not
loopback) and with ``--redact`` / ``--no-redact`` (``CompactConfig.redact_secrets``) to force it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.compact import CompactConfig, compact
from batchsum.compact.llm import LLMSummarizer
from tests.fakeserver import FakeLLMServer

SECRETS = (
    "sk-proj-AbCdEf1234567890AbCdEf1234567890AbCd",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_1234567890abcdefghijABCDEFGHIJ123456",
)


def _session() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": f"Fix src/core.py. My key is OPENAI_API_KEY={SECRETS[0]} and AWS {SECRETS[1]}."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c0",
                    "type": "function",
                    "function": {
                        "name": "shell",
                        "arguments": json.dumps({"command": f"git push https://{SECRETS[2]}@x"}),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c0", "content": "done"},
    ]
    tail = " and the harbour gauge was reset by hand" * 8
    msgs += [{"role": "user" if i % 2 else "assistant", "content": f"step {i}{tail}"} for i in range(12)]
    return msgs


def test_the_command_redacts_what_it_sends_when_asked(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(json.dumps(m) for m in _session()) + "\n")
    args = ["compact", str(session), "--context-window", "2048", "--json", "--base-url", fake_llm.base_url]
    res = CliRunner().invoke(main, [*args, "--model", "fake", "--redact"])
    assert res.exit_code == 0, res.output
    (req,) = fake_llm.log
    assert "[REDACTED:" in req.prompt_text
    assert not [s for s in SECRETS if s in req.prompt_text]


def test_redaction_follows_the_server_unless_forced(fake_llm: FakeLLMServer) -> None:
    llm = LLMSummarizer(base_url=fake_llm.base_url, model="fake", max_attempts=1)
    compact(_session(), context_window=2048, backend=llm)  # loopback: the text stays on the machine
    compact(_session(), context_window=2048, backend=llm, config=CompactConfig(redact_secrets=True))
    loopback, forced = (e.prompt_text for e in fake_llm.log)
    assert SECRETS[1] in loopback
    assert not [s for s in SECRETS if s in forced]
