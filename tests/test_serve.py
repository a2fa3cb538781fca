"""``batchsum serve`` as a real process, called over HTTP by the OpenAI Python client, with the loopback
fake server as its upstream: context injection, plain and streamed answers, the write path (turns, facts,
search), OpenAI-style errors, the client key, upstream failures and timeouts, a clean SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import openai
import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.lock import read_lock_info
from tests.fakeserver import FakeLLMServer
from tests.test_facts import ENTRY_1, ENTRY_2, script

REPO = Path(__file__).resolve().parent.parent
SISTER = "The user's sister is named Marta."
# The summary run's system prompt: its requests are the writer's, not a chat's.
SUMMARIZER_SYSTEM = (REPO / "batchsum" / "backends" / "prompts" / "system.txt").read_text(encoding="utf-8").strip()
KEY = "serve-test-key"
FLAT_HUNT = (
    "# Flat hunt\n\nAna and I visited four flats in Alfama and Graça this weekend. The one near the Graça "
    "viewpoint has two bedrooms, a small balcony and morning light, but the stairs are steep and the rent is "
    "high. The Alfama flat is cheaper and closer to the river, though noisy on Friday nights. We agreed to "
    "decide by the end of the month, after asking the landlord about the heating and the deposit. Ana prefers "
    "Graça because of the light; I prefer Alfama because it is closer to the ferry to Seixal, where my new "
    "office will be. We also need space for a desk, since both of us work from home on Mondays.\n"
)


@contextmanager
def serving(out: Path, upstream: str, *extra: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``batchsum serve`` on a free loopback port; yields (base URL, process); stops it with SIGTERM."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "BATCHSUM_SERVE_KEY": KEY}
    cmd = [sys.executable, "-m", "batchsum", "serve", "--out", str(out), "--port", "0", "--base-url", upstream,
           "--model", "fake", "--rpm", "0", "--max-attempts", "1", *extra]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # blocks until listening (or the process ended)
        assert "listening on " in line, f"serve did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
        yield line.split("listening on ")[1].split()[0], proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_for(check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {check}")


@pytest.fixture
def known(tmp_path: Path, upstream: FakeLLMServer) -> Path:
    """An output folder that already knows something: a summarized journal and its facts."""
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text(ENTRY_1 + "\n" + ENTRY_2, encoding="utf-8")
    (tmp_path / "src" / "notes").mkdir()
    (tmp_path / "src" / "notes" / "flat-hunt.md").write_text(FLAT_HUNT, encoding="utf-8")
    out = tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(tmp_path / "src"), "--out", str(out), "-q", "--no-digests"]).exit_code == 0
    script(upstream)
    facts = runner.invoke(main, ["facts", str(tmp_path / "src"), "--out", str(out), "--base-url", upstream.base_url,
                                 "--model", "fake", "--rpm", "0"])  # fmt: skip
    assert facts.exit_code == 0, facts.output
    upstream.configure(reset_log=True)
    return out


def chat_requests(server: FakeLLMServer) -> list[list[dict[str, object]]]:
    """Messages of the chat requests the upstream got, not the background writer's own requests.

    The writer extracts facts and summarizes the conversation's transcript whenever a turn lands, so its
    requests may arrive after a chat's: they are told apart by their prompts, never by their order.
    """
    return [
        e.messages
        for e in server.log
        if "durable facts" not in e.prompt_text
        and "manage a memory" not in e.prompt_text
        and SUMMARIZER_SYSTEM not in e.prompt_text
    ]


def test_chat_injects_memory_and_writes_turns_and_facts(known: Path, upstream: FakeLLMServer) -> None:
    upstream.configure(rules=[{"match": "The conversation turns:", "content": json.dumps({"facts": [SISTER]})},
                              {"match": "existing_memories", "content": json.dumps({"memory": [
                                  {"id": "new", "text": SISTER, "event": "ADD"}]})}])  # fmt: skip
    with serving(known, upstream.base_url) as (url, proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        assert [m.id for m in client.models.list().data] == ["fake"]

        # Plain: the upstream receives the memory (and the summaries) before the user's message.
        question = "Where does my partner Ana live with me? My sister Marta visits next week."
        reply = client.chat.completions.create(
            model="anything", messages=[{"role": "user", "content": question}], extra_body={"conversation_id": "trip"}
        )
        assert (
            reply.choices[0].message.content
            == "Where does my partner Ana live with me? My sister Marta visits next week."
        )
        sent = chat_requests(upstream)[-1]
        assert [m["role"] for m in sent] == ["system", "user"] and sent[-1]["content"] == question
        context = str(sent[0]["content"])
        assert "[memory] The user's partner is named Ana." in context
        assert "[summary] notes/flat-hunt.md:" in context
        assert upstream.log[-1].model == "fake"  # the configured upstream model, whatever the client asked

        # Streamed: chunks relayed as they come, the whole answer assembled by the client.
        stream = client.chat.completions.create(
            model="fake",
            stream=True,
            messages=[{"role": "user", "content": "Any ideas for a day trip with Marta?"}],
            extra_body={"conversation_id": "trip"},
        )
        chunks = [c.choices[0].delta.content or "" for c in stream if c.choices]
        assert len([c for c in chunks if c]) > 1
        assert "".join(chunks) == "Any ideas for a day trip with Marta."
        assert [e.stream for e in upstream.log].count(True) == 1  # forwarded as a stream

        # The write path: turns on disk, the fact extracted from the user's turn.
        conv = known / "conversations" / "trip"
        wait_for(lambda: len(list((conv / "turns" / "user").glob("*.md"))) == 2
                 and len(list((conv / "turns" / "assistant").glob("*.md"))) == 2
                 and list((conv / "facts").glob("*.md")))  # fmt: skip
        assistant = sorted((conv / "turns" / "assistant").glob("*.md"))
        texts = {p.read_text(encoding="utf-8").split("---\n", 2)[2].strip() for p in assistant}
        assert "Any ideas for a day trip with Marta." in texts
        fact = next((conv / "facts").glob("*.md")).read_text(encoding="utf-8")
        assert SISTER in fact and "scope: conversations/trip" in fact and "source_turn: 1" in fact

        # A later question gets the conversation's own fact and its earlier user turn.
        client.chat.completions.create(
            model="fake",
            messages=[{"role": "user", "content": "What is my sister's name?"}],
            extra_body={"conversation_id": "trip"},
        )
        context = str(chat_requests(upstream)[-1][0]["content"])
        assert f"[memory] {SISTER}" in context
        assert f"[user] {question}" in context
        wait_for(lambda: len(list((conv / "turns" / "user").glob("*.md"))) == 3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    assert not read_lock_info(known / ".batchsum" / "lock")  # released cleanly
    assert not list((known / ".batchsum" / "memory" / "spool").glob("*.json"))

    # Another process (this one's Chroma client predates the server's writes) finds the new fact.
    found = subprocess.run(
        [sys.executable, "-m", "batchsum", "search", "sister name", "--role", "memory", "--out", str(known), "--json"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120,
    )  # fmt: skip
    assert found.returncode == 0, found.stderr
    assert SISTER in [h["text"] for h in json.loads(found.stdout)]


def test_errors_are_openai_style_and_upstream_failures_are_502(tmp_path: Path, upstream: FakeLLMServer) -> None:
    out = tmp_path / "out"
    secret = "sk-upstream-secret-0123456789"
    serve_args = ("--timeout", "2", "--no-facts", "--no-summaries", "--api-key", secret, "-v")
    with serving(out, upstream.base_url, *serve_args) as (url, proc):
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx.Client(base_url=url, timeout=30) as http:
            r = http.post("/chat/completions", json={"messages": []})
            assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
            r = http.post("/chat/completions", content=b"{not json", headers=headers)
            assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
            r = http.post("/chat/completions", json={"model": "fake"}, headers=headers)
            assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
            r = http.post("/chat/completions", json={"messages": [{"role": "robot", "content": "hi"}]}, headers=headers)
            assert r.status_code == 400 and "role" in r.json()["error"]["message"]
            bad_id = {"messages": [{"role": "user", "content": "hi"}], "conversation_id": "../etc"}
            assert http.post("/chat/completions", json=bad_id, headers=headers).status_code == 400
            assert http.get("/nope", headers=headers).status_code == 404
            assert http.get("/nope", headers=headers).json()["error"]["message"]

            ok = {"messages": [{"role": "user", "content": "Hello there"}]}
            r = http.post("/chat/completions", json=ok, headers=headers)
            assert r.status_code == 200 and "retrieval;dur=" in r.headers["Server-Timing"]
            assert upstream.log[-1].authorized  # the upstream key goes to the upstream ...

            upstream.configure(rules=[{"status": 500, "times": 1}])
            r = http.post("/chat/completions", json=ok, headers=headers)
            assert r.status_code == 502 and "HTTP 500" in r.json()["error"]["message"]

            deep = b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
            r = http.post("/chat/completions", content=deep, headers=headers)
            assert r.status_code == 400 and "nested deeper than" in r.json()["error"]["message"]

            upstream.configure(rules=[{"bad_body": True, "times": 1}])  # a JSON body where SSE was asked for
            r = http.post("/chat/completions", json={**ok, "stream": True}, headers=headers)
            assert r.status_code == 502 and "without server-sent events" in r.json()["error"]["message"]

            upstream.configure(rules=[{"hang": 10, "times": 1}])
            t0 = time.monotonic()
            r = http.post("/chat/completions", json={**ok, "stream": True}, headers=headers)
            assert r.status_code == 502 and "no answer within 2 s" in r.json()["error"]["message"]
            assert time.monotonic() - t0 < 8

        upstream.close()  # nothing listens there any more
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=30)
        with pytest.raises(openai.APIStatusError) as err:
            client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "Hello?"}])
        assert err.value.status_code == 502 and "upstream server" in str(err.value)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None
        logged = proc.stderr.read()
    assert "upstream server answered HTTP 500" in logged  # failures are logged, ...
    assert secret not in logged  # ... and never the key
    assert not any(secret in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_refuses_to_listen_beyond_loopback_without_a_key(tmp_path: Path) -> None:
    argv = ["serve", "--out", str(tmp_path), "--host", "0.0.0.0", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    result = CliRunner().invoke(main, argv, env={"BATCHSUM_SERVE_KEY": ""})
    assert result.exit_code == 2 and "--serve-key" in result.output


BOAT = (
    "# Boat\n\nWe finally bought the old wooden sailboat from the harbour master in Seixal. Her name is Gaivota, "
    "she is eight metres long and needs new sails, a fresh coat of varnish and a working outboard engine before "
    "the summer. Ana wants to repaint the hull blue; I would rather keep the original white. The mooring costs "
    "ninety euros a month and the first trip is planned for April, weather permitting, along the Tagus estuary. "
    "The previous owner left us a box of old charts, a brass compass and a logbook from 1974 in which someone "
    "recorded every crossing to Cascais, with the wind, the tide and the number of fish caught on the way."
)
LONG_MESSAGE = (
    "Let me tell you about the plan for the summer. We want to spend two weeks in the Azores, first on São "
    "Miguel to see the crater lakes and the tea plantations, then a ferry to Pico to climb the mountain if the "
    "weather allows it. My partner Ana is worried about the ferry schedule, which changes in July, and about "
    "the price of renting a car on both islands. I would like to stay in small guest houses rather than hotels, "
    "and to spend at least one day whale watching from Lajes. Can you help me plan the days?"
)


def test_conversation_summary_and_runs_of_other_processes(known: Path, upstream: FakeLLMServer) -> None:
    with serving(known, upstream.base_url, "--no-facts") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        # A long enough conversation gets a summary tree, and later requests get that summary first.
        client.chat.completions.create(
            model="fake", messages=[{"role": "user", "content": LONG_MESSAGE}], extra_body={"conversation_id": "azores"}
        )
        final = known / "conversations" / "azores" / "transcript.md" / "summaries" / "L3" / "final.md"
        wait_for(final.is_file)
        client.chat.completions.create(
            model="fake",
            messages=[{"role": "user", "content": "And the ferry?"}],
            extra_body={"conversation_id": "azores"},
        )
        context = str(chat_requests(upstream)[-1][0]["content"])
        summary = context.split("Summary of this conversation so far:\n")[1].split("Memories:")[0]
        assert "the plan for the summer" in summary  # the fake upstream summarizes by quoting the start

        # A run by another process (a nightly one) while serving: its new summaries are retrieved.
        notes = known.parent / "src" / "notes"
        (notes / "boat.md").write_text(BOAT, encoding="utf-8")
        nightly = subprocess.run(
            [sys.executable, "-m", "batchsum", "run", str(known.parent / "src"), "--out", str(known), "-q", "--wait",
             "--no-digests"],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300,
        )  # fmt: skip
        assert nightly.returncode == 0, nightly.stderr
        client.chat.completions.create(
            model="fake", messages=[{"role": "user", "content": "What is the name of our sailboat?"}]
        )
        context = str(chat_requests(upstream)[-1][0]["content"])
        assert "[summary] notes/boat.md: " in context, context


def test_serve_watch_summarizes_changed_sources(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    with serving(out, upstream.base_url, "--watch", str(src), "--debounce", "200ms", "--no-facts") as (url, _proc):
        (src / "boat.md").write_text(BOAT, encoding="utf-8")
        final = out / "boat.md" / "summaries" / "L3" / "final.md"
        wait_for(final.is_file)
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)

        def retrieved() -> bool:  # the tree is written before the run indexes it: ask until it has
            client.chat.completions.create(
                model="fake", messages=[{"role": "user", "content": "Tell me about the sailboat"}]
            )
            return "[summary] boat.md: " in str(chat_requests(upstream)[-1][0]["content"])

        wait_for(retrieved)


def test_redact_masks_secrets_in_the_injected_summaries(tmp_path: Path, upstream: FakeLLMServer) -> None:
    """A note summarized without redaction still quotes its key; serve --redact masks it in what goes upstream."""
    key = "sk-proj-" + "Q7x" * 12
    src = tmp_path / "src" / "notes"
    src.mkdir(parents=True)
    (src / "deploy.md").write_text(
        "# Deploy notes\n\nThe staging deploy of the billing service failed twice this week because the "
        f"payment gateway rejected the staging key {key} of the billing database "
        "postgres://admin:Sup3rS3cret@db.internal:5432/billing. We rolled back on Thursday.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    ran = CliRunner().invoke(main, ["run", str(tmp_path / "src"), "--out", str(out), "-q", "--no-redact"])
    assert ran.exit_code == 0, ran.output
    assert any(key in p.read_text(encoding="utf-8") for p in out.rglob("*.md") if p.is_file())  # quoted
    question = "Why did the staging deploy of the billing service fail?"
    for flag, leaked in (("--no-redact", True), ("--redact", False)):
        upstream.configure(reset_log=True)
        with serving(out, upstream.base_url, flag, "--no-facts", "--no-summaries") as (url, _proc):
            client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
            client.chat.completions.create(model="fake", messages=[{"role": "user", "content": question}])
        context = str(chat_requests(upstream)[-1][0]["content"])
        assert "[summary] notes/deploy.md:" in context
        assert (key in context) is leaked and ("Sup3rS3cret" in context) is leaked
        if not leaked:
            assert "[REDACTED:openai_key]" in context


def test_serve_redacts_by_default_when_the_upstream_is_not_loopback() -> None:
    from batchsum.cli._schema_options import build_config

    remote = build_config([], Path("out"), {"base_url": "https://llm.example.com/v1"})
    local = build_config([], Path("out"), {"base_url": "http://127.0.0.1:8080/v1"})
    forced = build_config([], Path("out"), {"base_url": "https://llm.example.com/v1", "redact": False})
    assert remote.redact_secrets and not local.redact_secrets and not forced.redact_secrets
