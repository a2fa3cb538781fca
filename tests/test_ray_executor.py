"""`--executor ray` on a real local Ray (``num_cpus=2``), against the loopback LLM server.

One Ray for the whole module (it takes seconds to start): the executor joins it and leaves it
running. What is compared with the local executor is what a run commits: node files (timestamps
aside), manifest node keys and the node store.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from batchsum.config import LLMConfig, RunConfig
from batchsum.engine.orchestrator import run
from batchsum.engine.ray_executor import RayExecutor, RayOptions
from batchsum.state import StateStore
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer
from tests.test_index import chroma_server as _chroma_server

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]

_STAMPS = re.compile(r"^(created_at|generated_at): .*$", re.M)  # front matter timestamps
chroma_server = _chroma_server  # a real Chroma server on loopback (fixture of test_index)


def committed(out: Path) -> tuple[dict[str, str], dict[str, dict[str, str]], set[str]]:
    """(node file -> text without its timestamp, relpath -> node keys, keys in the node store)."""
    files = {
        str(p.relative_to(out)): _STAMPS.sub("", p.read_text(encoding="utf-8"))
        for p in sorted(out.rglob("*.md"))
        if p.is_file() and ".batchsum" not in p.parts
    }
    manifest = {rel: e.node_keys for rel, e in StateStore(out / ".batchsum").load_manifest().items()}
    store = {p.stem for p in (out / ".batchsum" / "nodes").glob("*/*.json")}
    return files, manifest, store


class Recording:
    """An executor factory that keeps the executor it built (to reach its workers and limiter)."""

    def __init__(self, cfg: RunConfig, options: RayOptions) -> None:
        self.cfg, self.options = cfg, options
        self.executor: RayExecutor | None = None
        self.built = threading.Event()

    def __call__(self, backend: Any, fallback: Any) -> RayExecutor:
        self.executor = RayExecutor(self.cfg, self.options, backend, fallback)
        self.built.set()
        return self.executor


def llm_config(url: str, **kw: Any) -> LLMConfig:
    settings: dict[str, Any] = {"base_url": url, "model": "fake", "rpm": None, "tpm": None, "concurrency": 8}
    return LLMConfig(**{**settings, **kw})


def test_extractive_run_commits_what_the_local_executor_commits(tmp_path: Path) -> None:
    outs = {}
    for name in ("local", "ray"):
        cfg = RunConfig(
            paths=[SAMPLE_CORPUS], out=tmp_path / name, index=False, metrics=False, quiet=True, digests=False
        )
        factory = Recording(cfg, RayOptions(workers=2)) if name == "ray" else None
        result = run(cfg, executor=factory)
        assert result.exit_code == 0, result.problems
        assert result.run.files_done == 26
        outs[name] = committed(cfg.out)
    local, on_ray = outs["local"], outs["ray"]
    assert factory is not None and factory.executor is not None
    assert factory.executor.prepared_remotely == 26, "every file read, tokenized and planned by a worker"
    assert len(local[0]) > 26 and local[0] == on_ray[0], "the same node files, byte for byte but the timestamp"
    assert local[1] == on_ray[1], "the same manifest node keys"
    assert local[2] == on_ray[2] and local[2], "the same node store"
    # The nightly re-run after a Ray run changes nothing, whichever executor it uses.
    again = run(
        RunConfig(paths=[SAMPLE_CORPUS], out=tmp_path / "ray", index=False, metrics=False, quiet=True, digests=False)
    )
    assert again.run.files_unchanged == 26 and again.run.nodes_computed == 0


def test_workers_embed_what_the_driver_indexes(tmp_path: Path) -> None:
    import json

    from batchsum.index.store import open_client

    vectors = {}
    for name in ("local", "ray"):
        log = tmp_path / f"{name}.jsonl"
        cfg = RunConfig(paths=[SAMPLE_CORPUS], out=tmp_path / name, metrics=False, quiet=True, digests=False,
                        log_file=log, log_format="json")  # fmt: skip
        factory = Recording(cfg, RayOptions(workers=2)) if name == "ray" else None
        result = run(cfg, executor=factory)
        assert result.exit_code == 0, result.problems
        synced = [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "index_synced"]
        col = open_client(cfg, create=False).get_collection(cfg.collection, embedding_function=None)
        got = col.get(include=["embeddings"])
        vectors[name] = dict(zip(got["ids"], got["embeddings"], strict=True))
        if name == "ray":
            # Every summary a worker computed was embedded there; kept-whole files (no summary) here.
            assert synced[0]["embedded_by_workers"] == result.run.nodes_computed - result.levels["NONE"] > 0
        else:
            assert synced[0]["embedded_by_workers"] == 0
    assert vectors["ray"].keys() == vectors["local"].keys()
    for node_id, vec in vectors["local"].items():
        assert list(vectors["ray"][node_id]) == pytest.approx(list(vec), abs=1e-6), node_id


def test_a_file_the_workers_cannot_read_gets_the_local_message(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    (corpus / "blob.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    problems = {}
    for name in ("local", "ray"):
        cfg = RunConfig(paths=[corpus], out=tmp_path / name, index=False, metrics=False, quiet=True, digests=False)
        factory = Recording(cfg, RayOptions(workers=2)) if name == "ray" else None
        result = run(cfg, executor=factory)
        assert result.exit_code == 1 and result.run.files_done == 26
        problems[name] = [(Path(p.path).name, p.reason) for p in result.problems]
    assert problems["ray"] == problems["local"] and problems["local"][0][0] == "blob.txt"
    assert factory is not None and factory.executor is not None
    assert factory.executor.prepared_remotely == 26  # the bad file was read again by the driver


@pytest.fixture(scope="module")
def local_llm_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """What the local executor commits for the sample corpus against a fault-free server."""
    out = tmp_path_factory.mktemp("llm") / "local"
    with FakeLLMServer() as server:
        cfg = RunConfig(paths=[SAMPLE_CORPUS], out=out, index=False, metrics=False, quiet=True, digests=False)
        cfg.llm = llm_config(server.base_url)
        result = run(cfg)
    assert result.exit_code == 0 and result.run.llm_calls > 20
    files, manifest, _ = committed(out)
    return files, manifest


def test_llm_run_through_429s_keeps_the_global_concurrency(
    tmp_path: Path, local_llm_tree: tuple[dict[str, str], dict[str, dict[str, str]]]
) -> None:
    rules = [{"status": 429, "retry_after": "0", "fraction": 0.2}]
    with FakeLLMServer(latency=0.05, rules=rules) as server:
        cfg = RunConfig(
            paths=[SAMPLE_CORPUS], out=tmp_path / "out", index=False, metrics=False, quiet=True, digests=False
        )
        cfg.llm = llm_config(server.base_url, concurrency=8)
        factory = Recording(cfg, RayOptions(workers=2))
        result = run(cfg, executor=factory)
        log = server.log
    assert result.exit_code == 0, result.problems
    assert result.run.files_done == 26
    assert all(n.error is None and "fallback" not in (n.backend or "") for n in result.nodes), "no node fell back"
    throttled = sum(1 for e in log if e.status == 429)
    assert throttled >= 3, "the server must have throttled some requests for this test to mean anything"
    assert server.peak_inflight <= 8
    assert max(e.inflight_at_arrival for e in log) <= 8
    assert factory.executor is not None and factory.executor.limiter_stats is not None
    stats = factory.executor.limiter_stats
    assert stats["granted"] == len(log), "every request the server saw went through the limiter"
    assert stats["peak_inflight"] <= 8 and stats["inflight"] == 0
    files, manifest, _ = committed(cfg.out)
    assert (files, manifest) == local_llm_tree, "retries change nothing in what is committed"


def test_two_workers_share_one_requests_per_window_budget(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(10):
        words = " ".join(f"word{i}x{j}" for j in range(150))
        (corpus / f"note{i}.md").write_text(f"# Note {i}\n\nThe note number {i} says this. {words}.\n")
    # 4 per 2-second window (the minute, scaled down): one start every 0.5 s across both workers.
    rpm, period = 4, 2.0
    with FakeLLMServer() as server:
        cfg = RunConfig(paths=[corpus], out=tmp_path / "out", index=False, metrics=False, quiet=True, digests=False)
        cfg.llm = llm_config(server.base_url, rpm=rpm, concurrency=8)
        factory = Recording(cfg, RayOptions(workers=2, rate_period=period))
        result = run(cfg, executor=factory)
        arrivals = sorted(e.arrival for e in server.log)
    assert result.run.files_done == 10 and len(arrivals) == 10
    assert factory.executor is not None and factory.executor.limiter_stats is not None
    assert factory.executor.limiter_stats["granted"] == 10
    # The shared limiter never granted more than rpm starts in one period. (Arrivals at the server are no
    # measure: the delay between a grant and its request reaching the server varies with the machine's load.)
    assert 0 < factory.executor.limiter_stats["peak_window"] <= rpm


def test_a_worker_killed_mid_run_loses_no_finished_node(
    tmp_path: Path, local_llm_tree: tuple[dict[str, str], dict[str, dict[str, str]]]
) -> None:
    with FakeLLMServer(latency=0.2) as server:
        cfg = RunConfig(
            paths=[SAMPLE_CORPUS], out=tmp_path / "out", index=False, metrics=False, quiet=True, digests=False
        )
        cfg.llm = llm_config(server.base_url, concurrency=4)
        factory = Recording(cfg, RayOptions(workers=2))
        killed: list[int] = []

        def kill_one_worker() -> None:
            assert factory.built.wait(120)
            assert factory.executor is not None
            pid = ray.get(factory.executor.workers[0].pid.remote())
            deadline = time.monotonic() + 120
            while server.request_count < 8 and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
            killed.append(server.request_count)

        killer = threading.Thread(target=kill_one_worker)
        killer.start()
        result = run(cfg, executor=factory)
        killer.join(timeout=10)
        log = server.log
    assert killed, "the worker was never killed"
    assert len(log) > killed[0], "the run went on after the kill"
    assert result.exit_code == 0, result.problems
    assert result.run.files_done == 26
    assert all("fallback" not in (n.backend or "") for n in result.nodes)
    # Only what was in flight on the dead worker was asked again.
    completed: dict[str, int] = {}
    for e in log:
        if e.status == 200:
            completed[e.prompt_sha256] = completed.get(e.prompt_sha256, 0) + 1
    assert sum(n - 1 for n in completed.values()) <= 4
    files, manifest, _ = committed(cfg.out)
    assert (files, manifest) == local_llm_tree
    shutil.rmtree(cfg.out)


def test_the_driver_writes_the_index_to_a_chroma_server(tmp_path: Path, chroma_server: int) -> None:
    from click.testing import CliRunner

    from batchsum.cli import main
    from batchsum.index.store import chroma_dir

    cfg = RunConfig(paths=[SAMPLE_CORPUS], out=tmp_path / "out", metrics=False, quiet=True, digests=False)
    cfg.chroma_host, cfg.chroma_port, cfg.collection = "127.0.0.1", chroma_server, "cluster"
    result = run(cfg, executor=Recording(cfg, RayOptions(workers=2)))
    assert result.exit_code == 0, (result.problems, result.warnings)
    assert not chroma_dir(cfg).exists(), "the index lives on the server, not in the output folder"
    args = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_server), "--collection", "cluster"]
    res = CliRunner().invoke(main, ["search", "battery field study", "--out", str(cfg.out), *args, "--json"])
    assert res.exit_code == 0, res.output
    assert "docs/battery-field-study-memo.md" in res.output
    res = CliRunner().invoke(main, ["index", str(cfg.out), *args, "--check"])
    assert res.exit_code == 0, res.output


def test_an_abort_with_one_file_admitted_at_a_time_ends_the_run(tmp_path: Path) -> None:
    # A request the server refuses for good, under --on-error abort: the run must stop, not wait for
    # an admission slot that the aborted file never gives back.
    rules = [{"match": "battery", "status": 400}]
    with FakeLLMServer(rules=rules) as server:
        cfg = RunConfig(
            paths=[SAMPLE_CORPUS], out=tmp_path / "out", index=False, metrics=False, quiet=True, digests=False
        )
        cfg.llm = llm_config(server.base_url, on_error="abort", concurrency=2)
        factory = Recording(cfg, RayOptions(workers=2, files_in_flight=1))
        results: list[Any] = []
        runner = threading.Thread(target=lambda: results.append(run(cfg, executor=factory)), daemon=True)
        runner.start()
        runner.join(timeout=300)
    assert not runner.is_alive(), "the run hung after the abort"
    [result] = results
    assert result.run.status == "aborted" and result.exit_code == 1
    assert result.run.files_done < 26


def test_two_runs_naming_one_limiter_share_its_concurrency(tmp_path: Path) -> None:
    from batchsum.engine.limiter import LIMITER_NAMESPACE

    name = f"test-shared-{os.getpid()}"
    results: list[Any] = []
    factories: list[Recording] = []
    with FakeLLMServer(latency=0.1) as server:

        def one_run(i: int) -> None:
            cfg = RunConfig(
                paths=[SAMPLE_CORPUS], out=tmp_path / f"out{i}", index=False, metrics=False, quiet=True, digests=False
            )
            # Each run alone may have 3 in flight; together they still may only have 3.
            cfg.llm = llm_config(server.base_url, concurrency=3)
            factory = Recording(cfg, RayOptions(workers=1, limiter=name))
            factories.append(factory)
            results.append(run(cfg, executor=factory))

        runs = [threading.Thread(target=one_run, args=(i,)) for i in range(2)]
        for t in runs:
            t.start()
        for t in runs:
            t.join(timeout=600)
        peak = server.peak_inflight
    try:
        assert len(results) == 2 and all(r.exit_code == 0 and r.run.files_done == 26 for r in results)
        assert peak <= 3, f"{peak} requests in flight for a shared limit of 3"
        limiter = ray.get_actor(name, namespace=LIMITER_NAMESPACE)
        stats = ray.get(limiter.stats.remote())
        assert stats["granted"] == sum(r.run.llm_calls for r in results), "both runs went through it"
        assert stats["inflight"] == 0
    finally:
        ray.kill(ray.get_actor(name, namespace=LIMITER_NAMESPACE))


def test_without_an_address_ray_starts_its_own_even_where_ray_address_is_set(tmp_path: Path) -> None:
    """`--executor ray` without `--ray-address` is a Ray of this machine's own: RAY_ADDRESS naming a
    cluster (here one nobody answers) had made Ray try to join it and refuse the cores batchsum gives.
    And with `-q` it prints nothing."""
    import subprocess
    import sys

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("Today I walked to the harbour and met Anna at the market to talk about the boats.\n")
    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:1", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.pop("RAY_AUTH_MODE", None)  # unset, Ray's local start announces its token authentication
    cmd = [sys.executable, "-m", "batchsum", "run", str(src), "--out", str(tmp_path / "out"), "--executor", "ray"]
    done = subprocess.run([*cmd, "--no-index", "-q"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "", "--quiet prints errors only (Ray's token banner is none)"
    assert (tmp_path / "out" / "a.md" / "summaries" / "L3" / "final.md").is_file()
