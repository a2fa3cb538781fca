"""What a run does with servers that answer wrongly: a completion cut at max_tokens, one without a choice,
a --base-url without its /v1, a mistyped --model, credentials in the URL, a rejected key. Real HTTP on
loopback (the fake server, or a one-answer server below for bodies it cannot send)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.config import LLMConfig, RunConfig
from batchsum.secrets import scrub_text
from tests.fakeserver import FakeLLMServer

CUT = "The team agreed to move the offsite to Porto. Ana will book the venue by Friday and Marco will send the"
MEETING = " ".join(
    f"Ana: Item {i}, we agreed to move the offsite to Porto and book the venue by Friday. "
    f"Marco: I will send the agenda for item {i} to everyone before the weekend, as we discussed."
    for i in range(30)
)


class OneAnswer:
    """A loopback server that answers every chat request with one body (and lists model ``m``)."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = json.dumps(body).encode()
        self.chats = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, b'{"object": "list", "data": [{"id": "m"}]}')

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.chats += 1
                self._send(200, owner.body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "meeting.txt").write_text(MEETING, encoding="utf-8")
    (folder / "standup.txt").write_text(MEETING.replace("Porto", "Lisbon"), encoding="utf-8")
    return folder


def _serve(body: dict[str, Any]) -> Iterator[OneAnswer]:
    server = OneAnswer(body)
    try:
        yield server
    finally:
        server.close()


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, ["run", *args, "--no-index", "--no-digests", "--rpm", "0"])


def _finals(out: Path) -> list[str]:
    return [p.read_text(encoding="utf-8").split("---", 2)[2] for p in out.rglob("summaries/L3/final.md")]


def test_an_answer_cut_at_max_tokens_ends_at_its_last_whole_sentence(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """finish_reason "length": the unfinished sentence ("... Marco will send the") is dropped, not kept."""
    choice = {"index": 0, "message": {"role": "assistant", "content": CUT}, "finish_reason": "length"}
    for server in _serve({"object": "chat.completion", "choices": [choice]}):
        out = tmp_path / "out"
        res = _run(str(corpus), "--out", str(out), "--base-url", server.base_url, "--model", "m", "--no-facets")
        assert res.exit_code == 0, res.output
        finals = _finals(out)
        assert finals and all("Porto." in f and "will send the" not in f for f in finals), finals
        assert "finish_reason length" in caplog.text


def test_a_completion_without_a_choice_is_retried_as_a_garbled_body(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``"choices": []`` is a broken answer, retried up to --max-attempts, not an empty summary."""
    for server in _serve({"object": "chat.completion", "choices": []}):
        out = tmp_path / "out"
        args = ["--base-url", server.base_url, "--model", "m", "--no-facets", "--max-attempts", "3"]
        res = _run(str(corpus), "--out", str(out), *args, "--concurrency", "1")
        assert res.exit_code == 4, res.output  # every node fell back after its attempts
        assert server.chats == 3 * len(_finals(out)), server.chats
        assert "without a choice" in caplog.text


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_base_url_without_its_api_path_stops_the_run_naming_base_url(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.configure(any_model=True)
    wrong = fake_llm.base_url.removesuffix("/v1")
    res = _run(str(corpus), "--out", str(tmp_path / "out"), "--base-url", wrong, "--model", "m", "--concurrency", "1")
    assert res.exit_code == 1, res.output
    assert "Check --base-url" in res.stderr and "model m not found" not in res.stderr, res.stderr
    assert len(_errors(caplog)) == 1, _errors(caplog)
    data = _json_run(str(corpus), "--out", str(tmp_path / "o2"), "--base-url", wrong, "--model", "m")
    assert data["files_failed"] == 1 and data["files_skipped"] == 1, data


def _json_run(*args: str) -> dict[str, Any]:
    res = _run(*args, "--json")
    return dict(json.loads(res.stdout)["run"]) if res.stdout.strip() else {}


def test_a_mistyped_model_stops_the_run_with_the_servers_models_and_binds_the_folder_to_nothing(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.configure(models=["realmodel"])
    out = tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--concurrency", "2"]
    res = _run(str(corpus), "--out", str(out), *llm, "--model", "wrongmodel")
    assert res.exit_code == 1, res.output
    assert "has no model wrongmodel (it offers: realmodel)" in res.stderr, res.stderr
    assert len(_errors(caplog)) == 1, _errors(caplog)
    # Nothing was made with the mistyped model: fixing it needs no --yes.
    res = _run(str(corpus), "--out", str(out), *llm, "--model", "realmodel")
    assert res.exit_code == 0, res.output


def test_credentials_in_the_base_url_are_one_configuration_error_never_shown(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    url = fake_llm.base_url.replace("http://", "http://bob:Pw0rdXyzzy42@")
    res = _run(str(corpus), "--out", str(tmp_path / "out"), "--base-url", url, "--model", "fake")
    assert res.exit_code == 2, res.output
    assert "--base-url" in res.stderr and "Pw0rdXyzzy42" not in res.output + res.stderr
    assert fake_llm.request_count == 0


def test_a_remembered_url_keeps_no_password(corpus: Path, tmp_path: Path) -> None:
    """The folder's settings and the settings-changed warning mask a URL's password, as the stored command
    line does (an embedder URL is remembered even when no index is built)."""
    out = tmp_path / "out"
    first = "http://bob:Pw0rdXyzzy42@127.0.0.1:9/v1"
    assert _run(str(corpus), "--out", str(out), "--embed-base-url", first).exit_code == 0
    stored = (out / ".batchsum" / "settings.json").read_text(encoding="utf-8")
    assert "Pw0rdXyzzy42" not in stored and "bob:***@127.0.0.1:9" in stored
    res = _run(str(corpus), "--out", str(out), "--embed-base-url", first.replace(":9/", ":10/"))
    assert "--embed-base-url http://bob:***@127.0.0.1:9/v1 ->" in res.stderr, res.stderr
    assert "Pw0rdXyzzy42" not in res.stderr + (out / ".batchsum" / "settings.json").read_text(encoding="utf-8")


def test_the_library_sends_the_key_from_openai_api_key(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.configure(require_key="sk-from-the-environment-0123")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-0123")
    cfg = RunConfig(
        paths=[corpus], out=tmp_path / "out", index=False, digests=False,
        llm=LLMConfig(base_url=fake_llm.base_url, model="fake", rpm=None, tpm=None),
    )  # fmt: skip
    result = batchsum.run(cfg)
    assert result.exit_code == 0 and fake_llm.request_count > 0


def test_a_rejected_key_is_said_once_with_a_readable_hint_and_its_file_failed(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    # The key passes GET /models (the check before any work) and is rejected on the first summaries.
    fake_llm.configure(rules=[{"status": 401}])
    log = tmp_path / "run.log"
    args = ["--base-url", fake_llm.base_url, "--model", "fake", "--concurrency", "2", "--log-file", str(log)]
    res = _run(str(corpus), "--out", str(tmp_path / "out"), *args)
    assert res.exit_code == 1, res.output
    errors = _errors(caplog)
    assert len(errors) == 1, errors  # one line, however many requests were in flight
    # Worded for every command (compact keeps its rule-based records), and the hint survives the scrub.
    assert "falling back" not in errors[0] and "(OPENAI_API_KEY or --api-key)" in errors[0]
    assert "(OPENAI_API_KEY or --api-key)" in log.read_text(encoding="utf-8")
    data = _json_run(str(corpus), "--out", str(tmp_path / "o2"), *args[:-2])
    assert data["files_failed"] == 1 and data["files_skipped"] == 1, data


def test_prose_after_an_api_key_flag_is_no_value() -> None:
    assert scrub_text("check --api-key / OPENAI_API_KEY") == "check --api-key / OPENAI_API_KEY"
    assert "sk-abc123def" not in scrub_text("batchsum run --api-key sk-abc123def x")


def test_a_model_that_made_no_summary_holds_the_folder_to_nothing(
    corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    """Every node of the first run fell back (its model kept failing): the next run's other --model
    would redo no summary the LLM made, so it needs no --yes (it had stopped with exit 5)."""
    fake_llm.configure(any_model=True, rules=[{"status": 500}])
    out = tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--max-attempts", "1"]
    assert _run(str(corpus), "--out", str(out), *llm, "--model", "first").exit_code == 4
    fake_llm.configure(rules=[])
    res = _run(str(corpus), "--out", str(out), *llm, "--model", "second")
    assert res.exit_code == 0, res.output
