"""How a facts pass reports and stops, alone (``batchsum facts``) and after a run (``run --facts``): its
failures reach --quiet, --json and the event log with the process's exit code; ``plan --facts`` estimates
its requests; SIGTERM, an unreachable server and a server that dies stop it as they stop a run; unusable
answers make it degraded (exit 4); it runs from inside a caller's event loop."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from batchsum.cli import main
from batchsum.engine.ledger import EXIT_DEGRADED
from batchsum.memory.files import iter_facts
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer
from tests.test_facts import ENTRY_1, ENTRY_2, ENTRY_3, script

FACTS_LLM = ["--model", "m", "--rpm", "0", "--max-attempts", "1"]
LLM = [*FACTS_LLM, "--tpm", "0"]


def _journal(tmp_path: Path, *entries: str) -> Path:
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text("\n".join(entries), encoding="utf-8")
    return tmp_path / "src"


def _run_facts(src: Path, out: Path, base_url: str, *args: str) -> Result:
    argv = ["run", str(src), "--out", str(out), "--no-index", "--no-digests", "--facts", "--base-url", base_url]
    return CliRunner().invoke(main, [*argv, *LLM, *args])


def _free_port() -> int:
    with socket.socket() as s:  # a loopback port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_failing_facts_pass_shows_in_quiet_json_and_the_event_log(tmp_path: Path) -> None:
    src = _journal(tmp_path, ENTRY_1, ENTRY_2)
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"match": "The journal entry:", "status": 500}])
        quiet = _run_facts(src, tmp_path / "q", server.base_url, "--quiet")
        log = tmp_path / "events.jsonl"
        as_json = _run_facts(src, tmp_path / "j", server.base_url, "--json", "--log-file", str(log),
                             "--log-format", "json")  # fmt: skip
    assert quiet.exit_code == 1
    assert "journal/life.md" in quiet.stderr and "facts not extracted" in quiet.stderr, quiet.output
    data = json.loads(as_json.stdout)
    assert as_json.exit_code == data["exit_code"] == 1, as_json.output
    assert data["facts"]["status"] == "partial" and data["facts"]["exit_code"] == 1
    assert any("facts not extracted" in p["reason"] for p in data["problems"])
    last = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    assert last["event"] == "facts_finished" and last["exit_code"] == 1 and last["failed"] == 1


def test_run_facts_with_unusable_answers_is_degraded_and_says_so(tmp_path: Path) -> None:
    src = _journal(tmp_path, ENTRY_1, ENTRY_2)
    with FakeLLMServer().start() as server:  # prose for every request: the summaries are fine, no facts JSON
        server.configure(any_model=True)
        res = _run_facts(src, tmp_path / "out", server.base_url)
    assert res.exit_code == EXIT_DEGRADED, res.output
    assert "2 malformed answer(s)" in res.stderr


def test_plan_estimates_the_facts_pass_requests(tmp_path: Path) -> None:
    src = _journal(tmp_path, ENTRY_1, ENTRY_2, ENTRY_3)
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        script(server)
        server.configure(any_model=True)
        argv = [str(src), "--out", str(out), "--no-index", "--no-digests", "--facts", "--base-url", server.base_url]
        plan = CliRunner().invoke(main, ["plan", *argv, *LLM, "--json"])
        estimate = json.loads(plan.stdout)["facts"]
        ran = CliRunner().invoke(main, ["run", *argv, *LLM])
        facts_requests = [
            e for e in server.log if "The journal entry:" in e.prompt_text or "new_facts" in e.prompt_text
        ]
        text = CliRunner().invoke(main, ["plan", *argv, *LLM])
    assert ran.exit_code == 0, ran.output
    assert estimate["units"] == 3 and estimate["extract_requests"] == 3
    # Every scripted answer holds facts: the estimate's upper bound is what the pass sent.
    assert estimate["extract_requests"] + estimate["reconcile_requests"] == len(facts_requests)
    assert "facts pass" in text.stdout and "0 new entries/turns" in text.stdout  # done: nothing left to ask


def test_an_unreachable_server_stops_the_facts_pass_with_one_message(tmp_path: Path) -> None:
    src = _journal(tmp_path, ENTRY_1, ENTRY_2)
    (src / "journal" / "other.md").write_text(ENTRY_3, encoding="utf-8")
    url = f"http://127.0.0.1:{_free_port()}/v1"
    argv = ["facts", str(src), "--out", str(tmp_path / "out"), "--base-url", url, *FACTS_LLM]
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 1, res.output
    assert res.output.count("cannot connect") == 1, res.output
    assert "failed:" not in res.output and "run stopped" not in res.output.lower(), res.output


def test_a_server_gone_mid_run_says_finished_work_is_kept_once(tmp_path: Path) -> None:
    server = FakeLLMServer().start()
    server.configure(any_model=True, rules=[{"latency": 0.2}])
    args = ["run", str(SAMPLE_CORPUS / "logbook"), "--out", str(tmp_path / "out"), "--no-index", "--no-digests",
            "--base-url", server.base_url, "--model", "m", "--max-attempts", "2", "--concurrency", "1",
            "--rpm", "0"]  # fmt: skip
    result: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: result.update(res=CliRunner().invoke(main, args)))
    runner.start()
    deadline = time.monotonic() + 60
    while not server.request_count and time.monotonic() < deadline:  # until the first request arrives
        time.sleep(0.05)
    server.close()
    runner.join(120)
    res = result["res"]
    assert res.exit_code == 1, res.output
    line = next(s for s in res.stdout.splitlines() if "ABORTED" in s)
    assert "stopped accepting connections" in line and line.count("kept") == 1, line


def test_sigterm_stops_the_facts_pass_keeping_what_is_done(tmp_path: Path) -> None:
    """A nightly job's timeout stops ``batchsum facts`` as it stops a run: a line says so, exit 1, the lock is
    released (no stale-lock warning next time) and the next pass asks only for the entries not done."""
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    for i in range(6):
        (src / f"day{i}.md").write_text(f"## 2026-10-0{i + 1}\nI counted {i} boats at the harbour today.\n")
    out = tmp_path / "out"
    root = str(Path(__file__).resolve().parent.parent)
    with FakeLLMServer().start() as server:
        server.configure(
            any_model=True, latency=1.0, rules=[{"match": "The journal entry:", "content": '{"facts": []}'}]
        )
        args = ["facts", str(src.parent), "--out", str(out), "--no-index", "--base-url", server.base_url,
                "--model", "m", "--concurrency", "1", "--rpm", "0"]  # fmt: skip
        proc = subprocess.Popen([sys.executable, "-m", "batchsum", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": root})  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while server.request_count < 2 and time.monotonic() < deadline:  # the first answer is in
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 1, stderr
        assert "interrupted by SIGTERM" in stdout, stdout
        assert "Traceback" not in stderr, stderr
        asked = server.request_count
        server.configure(reset_log=True, latency=0.0)
        again = CliRunner().invoke(main, [*args[:-4], "--rpm", "0", "--json"])
    assert again.exit_code == 0, again.output
    assert "stale" not in again.stderr and "crashed" not in again.stderr, again.stderr
    done = 6 - json.loads(again.stdout)["units"]
    assert 1 <= done < 6 and done <= asked


def test_facts_runs_from_inside_an_event_loop(tmp_path: Path) -> None:
    src = _journal(tmp_path, ENTRY_1, ENTRY_2)
    out = tmp_path / "out"

    async def caller() -> Result:  # a library user's async code
        argv = ["facts", str(src), "--out", str(out), "--no-index", "--base-url", url, *FACTS_LLM]
        return CliRunner().invoke(main, argv)

    with FakeLLMServer().start() as server:
        script(server)
        url = server.base_url
        res = asyncio.run(caller())
    assert res.exit_code == 0, res.output
    assert list(iter_facts(out))
