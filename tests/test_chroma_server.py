"""An output folder indexed on a real Chroma server (``chroma run`` on loopback): an outage and the run
after it, search and ``index --check`` without the host, the same candidates with and without it, the
library's keywords, and ``serve`` while the server is down (real HTTP)."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.config import IndexConfig
from batchsum.index.dense import ChromaVectors, LocalVectors, open_dense
from batchsum.index.embed import get_embedder
from batchsum.index.lexical import LexFilter
from batchsum.index.state import read_state
from batchsum.index.store import check_index
from tests.fakeserver import FakeLLMServer
from tests.test_serve import chat_requests, serving

WORDS = (
    "harbour pier budget ferry lighthouse mooring council storm tide gauge repaint foundry rope anchor crane "
    "dredging permit quay ballast"
).split()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ChromaServer:
    """A ``chroma run`` process on loopback that a test may stop and start again on the same port and data."""

    data: Path
    port: int
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = Path(sys.executable).with_name("chroma")
        if not exe.is_file():
            pytest.skip("the chroma CLI is not installed next to this Python")
        cmd = [str(exe), "run", "--path", str(self.data), "--host", "127.0.0.1", "--port", str(self.port)]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v2/heartbeat", timeout=2).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    pytest.skip("the Chroma server did not start")
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    @property
    def args(self) -> list[str]:
        return ["--chroma-host", "127.0.0.1", "--chroma-port", str(self.port)]


@pytest.fixture()
def chroma(tmp_path: Path) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path / "chroma-data", _free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _corpus(src: Path, files: int = 4) -> None:
    """Notes of one folder, so a run writes a folder digest (level 4) besides their trees."""
    rng = random.Random(7)
    (src / "notes").mkdir(parents=True)
    for i in range(files):
        paras = [" ".join(rng.choice(WORDS) for _ in range(60)).capitalize() + "." for _ in range(8)]
        (src / "notes" / f"n{i}.md").write_text("\n\n".join(paras) + "\n", encoding="utf-8")


def _run(src: Path, out: Path, *extra: str) -> int:
    return CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q", *extra]).exit_code


@pytest.fixture()
def indexed(tmp_path: Path, chroma: ChromaServer) -> tuple[Path, Path, ChromaServer]:
    """(sources, output, server): the output's index is on the server."""
    src, out = tmp_path / "src", tmp_path / "out"
    _corpus(src)
    assert _run(src, out, *chroma.args) == 0
    return src, out, chroma


def test_the_run_after_a_chroma_outage_repairs_every_node_written_during_it(
    indexed: tuple[Path, Path, ChromaServer],
) -> None:
    src, out, chroma = indexed
    remote = IndexConfig(out=out, chroma_host="127.0.0.1", chroma_port=chroma.port)
    chroma.stop()
    with (src / "notes" / "n0.md").open("a", encoding="utf-8") as f:
        f.write("\nThe narwhal antenna was approved by the harbour council.\n")
    assert _run(src, out, *chroma.args) == 1  # summaries written, index not: a partial run
    assert read_state(remote)["complete"] is False  # the outage is on record, not "complete"
    chroma.start()
    assert _run(src, out, *chroma.args) == 0
    check = check_index(remote)
    # The folder digest rewritten during the outage is on the server too (it had stayed stale).
    assert check.ok, (check.missing, check.stale, check.orphans)
    assert read_state(remote)["complete"] is True


def test_search_and_check_without_the_host_read_the_local_files(
    indexed: tuple[Path, Path, ChromaServer],
) -> None:
    _src, out, chroma = indexed
    runner = CliRunner()
    res = runner.invoke(main, ["search", "harbour budget ferry", "--out", str(out), "--strict", "--json"])
    assert res.exit_code == 0, res.output
    assert "incomplete" not in res.stderr and json.loads(res.stdout)  # no false warning, hits found
    res = runner.invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 0, res.output
    assert "no search index" not in res.output and "index OK" in res.output
    assert not (out / ".batchsum" / "chroma").exists()  # no second, embedded Chroma was built
    res = runner.invoke(main, ["index", str(out), "--stats"])
    assert res.exit_code == 0 and f"complete (Chroma records on server 127.0.0.1:{chroma.port})" in res.output
    # The folder remembers the server its index is kept on, and a repair is sent there.
    assert read_state(IndexConfig(out=out))["chroma"] == f"127.0.0.1:{chroma.port}"
    next(out.glob("notes/*/summaries/L3/final.md")).unlink()  # its node is now an orphan of the index
    res = runner.invoke(main, ["index", str(out), "--check"])
    assert res.exit_code == 1 and f"--chroma-host 127.0.0.1 --chroma-port {chroma.port}` to repair" in res.output


def test_search_gets_the_same_candidates_with_and_without_the_host(
    indexed: tuple[Path, Path, ChromaServer],
) -> None:
    _src, out, chroma = indexed
    local = IndexConfig(out=out)
    remote = replace(local, chroma_host="127.0.0.1", chroma_port=chroma.port)
    embedder = get_embedder(local)
    here, there = open_dense(local, embedder), open_dense(remote, embedder)
    assert isinstance(here, LocalVectors) and isinstance(there, ChromaVectors)
    with closing(here), closing(there):
        for query in ("harbour council budget", "storm tide gauge", "folder digest of the notes"):
            qvec = embedder.embed([query])[0]
            for level in (None, "period", "final"):
                filt = LexFilter(level=level)
                assert set(here.nearest(qvec, 1000, filt)) == set(there.nearest(qvec, 1000, filt)), (query, level)
    for args in ([], chroma.args):  # a huge -k: every hit, the same from both, no server error
        res = CliRunner().invoke(main, ["search", "storm tide", "--out", str(out), "-k", "1000000000000", *args])
        assert res.exit_code == 0, res.output
    hits = [
        [h.node_id for h in batchsum.search(out, "storm tide gauge", k=5, **kw)]
        for kw in ({}, {"chroma_host": "127.0.0.1", "chroma_port": chroma.port})
    ]
    assert hits[0] and hits[0] == hits[1]


def test_library_search_takes_the_index_keywords(indexed: tuple[Path, Path, ChromaServer]) -> None:
    _src, out, chroma = indexed
    hits = batchsum.search(str(out), "harbour budget", chroma_host="127.0.0.1", chroma_port=chroma.port, k=2)
    assert hits and all(h.source_path.startswith("notes/") for h in hits)
    with pytest.raises(batchsum.errors.ConfigError, match="chroma_port"):
        batchsum.search(str(out), "harbour budget", chroma_host="127.0.0.1", chroma_port="x")  # type: ignore[arg-type]


def test_serve_answers_from_the_local_copy_while_the_chroma_server_is_down(
    indexed: tuple[Path, Path, ChromaServer],
) -> None:
    _src, out, chroma = indexed
    upstream = FakeLLMServer().start()
    try:
        with serving(out, upstream.base_url, *chroma.args, "--no-facts", "--no-summaries") as (url, proc):
            chroma.stop()
            headers = {"Authorization": "Bearer serve-test-key"}
            body = {"model": "fake", "messages": [{"role": "user", "content": "what about the storm tide gauge?"}]}
            res = httpx.post(f"{url}/chat/completions", json=body, headers=headers, timeout=60)
            assert res.status_code == 200, res.text
            sent = chat_requests(upstream)[-1]
            assert sent[0]["role"] == "system" and "[summary] notes/" in str(sent[0]["content"])
            health = httpx.get(url.removesuffix("/v1") + "/health", timeout=10).json()
            assert health["status"] == "degraded" and "local copy" in health["retrieval"]
            proc.terminate()
            _, err = proc.communicate(timeout=60)
        assert "summaries retrieved from the local copy of the index" in err
    finally:
        upstream.close()


def test_serve_warns_of_an_output_folder_without_batchsum_output(tmp_path: Path) -> None:
    upstream = FakeLLMServer().start()
    try:
        with serving(tmp_path / "typo", upstream.base_url) as (_url, proc):
            proc.terminate()
            _, err = proc.communicate(timeout=60)
        assert "holds no batchsum output" in err
    finally:
        upstream.close()
