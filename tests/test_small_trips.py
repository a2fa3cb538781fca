"""The smaller things a second night trips over: each says what happened, once, consistently."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.walk import SourceRef, read_document
from tests.conftest import REPO, SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer
from tests.test_compact_cli import _markdown_session

JOURNAL = SAMPLE_CORPUS / "journal"


def test_a_missing_model_lists_the_servers_models(tmp_path: Path) -> None:
    with FakeLLMServer(models=["qwen2.5-7b", "llama3.2:3b"]).start() as server:
        res = CliRunner().invoke(
            main, ["run", str(JOURNAL), "--out", str(tmp_path / "o"), "--base-url", server.base_url]
        )
    assert res.exit_code == 2
    assert (
        f"--base-url needs --model (or BATCHSUM_MODEL); the server at {server.base_url} offers: llama3.2:3b, qwen2.5-7b"
        in res.stderr
    )
    assert not (tmp_path / "o").exists()


def test_search_k_in_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "o"
    assert CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out)]).exit_code == 0
    config = tmp_path / "batchsum.yaml"
    config.write_text("search:\n  k: 1\n")
    monkeypatch.setenv("BATCHSUM_CONFIG", str(config))
    res = CliRunner().invoke(main, ["search", "harbor storm buoy", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)) == 1


def test_a_pipeline_file_reports_every_error(tmp_path: Path) -> None:
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(f"corpora: [{JOURNAL}]\nbackend:\n  rpm: sixty\n  concurency: 4\nchunking:\n  size: -5\n")
    res = CliRunner().invoke(main, ["run", "--pipeline", str(pipeline)])
    assert res.exit_code == 2
    assert "3 errors:" in res.stderr
    assert f"{pipeline}:3: 'backend.rpm' must be a number" in res.stderr
    assert f"{pipeline}:4: unknown key 'concurency' in backend (did you mean 'concurrency'?)" in res.stderr
    assert f"{pipeline}:6: 'chunking.size' must be at least 50" in res.stderr


def test_a_dead_server_is_reported_alike_on_the_terminal_and_in_json(tmp_path: Path) -> None:
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = ["--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--no-index"]
    text = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(tmp_path / "a"), *llm])
    data = json.loads(
        CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(tmp_path / "b"), *llm, "--json"]).stdout
    )
    assert text.exit_code == 1
    assert (data["run"]["files_failed"], data["run"]["files_skipped"]) == (0, 17)
    assert "; 0 failed; 17 skipped;" in text.stdout
    assert "Check --base-url; finished work was kept" in text.stderr and ".;" not in text.stderr


def test_a_failed_llm_compaction_is_reported_once(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(malformed_json=True)
    session = tmp_path / "s.md"
    session.write_text(_markdown_session())
    res = CliRunner().invoke(
        main,
        ["compact", str(session), "--context-window", "2048", "--base-url", fake_llm.base_url,
         "--model", "m", "--max-attempts", "1"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert res.stderr.count("not valid summary JSON") == 1, res.stderr  # the cause, once
    assert res.stderr.count("warning: the LLM summary failed") == 1 and "(LLM failed)" in res.stderr


def test_an_agent_session_as_jsonl_is_an_agent_transcript_like_the_markdown(tmp_path: Path) -> None:
    from batchsum.agent_transcript import parse_markdown

    md = _markdown_session()
    (tmp_path / "s.md").write_text(md)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(m) + "\n" for m in parse_markdown(md).messages))
    reasons = [read_document(SourceRef(tmp_path / n, n, tmp_path)).type_reason for n in ("s.md", "s.jsonl")]
    assert reasons[0] == reasons[1] and reasons[0].startswith("agent transcript")
    # A plain chat as .jsonl stays a plain conversation.
    chat = [{"role": "user", "content": "Lunch at noon?"}, {"role": "assistant", "content": "Yes, at the pier."}] * 3
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(m) + "\n" for m in chat))
    assert read_document(SourceRef(tmp_path / "c.jsonl", "c.jsonl", tmp_path)).type_reason == "extension .jsonl"


def test_the_llm_example_pipeline_writes_outside_the_checkout() -> None:
    assert "batchsum-llm-out/" in (REPO / ".gitignore").read_text().splitlines()
    text = (REPO / "pipelines" / "nightly-llm.yaml").read_text()
    assert "output: ~/" in text and "file: ~/" in text
