"""A refused connection during LLM compaction is said once: ``batchsum compact`` prints its warning line
and no logged ERROR beside it, and the library's Conversation hands it over in its result (``llm_error``)
without also printing it. Real processes, a loopback port nobody listens on."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import FakeLLMServer

REPO = Path(__file__).resolve().parent.parent
REFUSED = "cannot connect to the LLM server"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _session(count: int = 30) -> list[dict[str, str]]:
    msgs = []
    for i in range(count):
        msgs.append({"role": "user", "content": f"Question {i}: what about the harbour ferries on day {i}? " * 5})
        msgs.append({"role": "assistant", "content": f"Answer {i}: the ferries came in and Maria logged it. " * 5})
    return msgs


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_compact_prints_a_refused_connection_once(tmp_path: Path) -> None:
    session = tmp_path / "chat.json"
    session.write_text(json.dumps(_session()), encoding="utf-8")
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    res = _python("-m", "batchsum", "compact", str(session), "--context-window", "1024", "--preserve-recent", "2",
                  "--base-url", url, "--model", "m", "--max-attempts", "1")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stderr.count(REFUSED) == 1, res.stderr
    assert "warning: the LLM summary failed (cannot connect" in res.stderr


@pytest.mark.parametrize(
    ("setup", "said"),
    [({"require_key": "right-key"}, "rejected the credentials"), ({"models": ["other"]}, "has no model m")],
)
def test_compact_prints_a_server_that_cannot_be_used_once(tmp_path: Path, setup: dict[str, Any], said: str) -> None:
    """A rejected key or a missing model stops the LLM client as a refused connection does: said once too."""
    session = tmp_path / "chat.json"
    session.write_text(json.dumps(_session()), encoding="utf-8")
    with FakeLLMServer() as server:
        server.configure(**setup)
        res = _python("-m", "batchsum", "compact", str(session), "--context-window", "1024", "--preserve-recent",
                      "2", "--base-url", server.base_url, "--model", "m", "--api-key", "wrong-key")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stderr.count(said) == 1 and "warning: the LLM summary failed" in res.stderr, res.stderr


def test_a_conversation_hands_a_refused_connection_over_without_printing_it(tmp_path: Path) -> None:
    script = (
        "import json, sys\n"
        "from batchsum.compact import Conversation\n"
        "from batchsum.compact.llm import LLMSummarizer\n"
        "llm = LLMSummarizer(base_url=sys.argv[1], model='m', max_attempts=1)\n"
        "convo = Conversation(context_window=2048, backend=llm)\n"
        "for message in json.loads(sys.argv[2]):\n"
        "    result = convo.append(message)\n"
        "    if result is not None:\n"
        "        print(result.mode, '|', result.llm_error)\n"
        "        break\n"
    )
    res = _python("-c", script, f"http://127.0.0.1:{_closed_port()}/v1", json.dumps(_session()))
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("rule-based (LLM failed) | " + REFUSED), res.stdout
    assert REFUSED not in res.stderr, res.stderr
