"""`--executor ray --ray-address` on a real two-node Ray cluster with token authentication.

Two nodes on this machine, as on two machines: ``ray start --head`` and ``ray start --address=...``,
one CPU each, on 127.0.0.1 with their own ports and temporary folder, token authentication on
(``RAY_AUTH_MODE=token``, which Ray >= 2.60 turns on whenever the head has a token). The extractive
run's two workers need one CPU each, so each node runs one. The client is given only the token
(``RAY_AUTH_TOKEN``), as the user guide says; without it the run stops with a message naming it.
Every process the nodes start is in the process group of its ``ray start`` (or names the cluster's
temporary folder) and is stopped afterwards by its id; ``ray stop`` would also stop other Rays here.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE_CORPUS

pytest.importorskip("ray")
pytestmark = pytest.mark.ray

RAY = str(Path(sys.executable).with_name("ray"))
START_TIMEOUT_S = 180  # a node start on a loaded two-core machine takes 15-40 s


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:  # every process of the group has exited already
        pass


def _ray_start(args: list[str], env: dict[str, str], tries: int = 1) -> tuple[int, list[str]]:
    """``ray start`` in a new process group: the group's id (the node's daemons stay in it) and the
    arguments it started with. ``args`` may hold ``{port}`` fields: each try fills them with new free
    ports, since one chosen here can be taken by another test before Ray binds it (the suite runs on
    two workers)."""
    output = ""
    for _ in range(tries):
        filled = [a.format(port=_free_port()) if "{port}" in a else a for a in args]
        proc = subprocess.Popen(
            [RAY, "start", "--disable-usage-stats", "--num-cpus=1", "--node-ip-address=127.0.0.1", *filled],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            pytest.fail(f"ray start {' '.join(filled)} did not finish in {START_TIMEOUT_S} s")
        if proc.returncode == 0:
            return proc.pid, filled
        _kill_group(proc.pid)
    pytest.fail(f"ray start {' '.join(args)} failed {tries} time(s); the last said:\n{output[-3000:]}")


def _cluster_pids(groups: list[int], marker: str) -> set[int]:
    """Live processes of the node's process groups, or naming the cluster's temporary folder."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            pgid = os.getpgid(int(entry.name))
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, ProcessLookupError):
            continue
        if pgid in groups or marker in cmdline:
            pids.add(int(entry.name))
    pids.discard(os.getpid())
    return pids


def _stop(groups: list[int], marker: str) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _cluster_pids(groups, marker):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 15
        while _cluster_pids(groups, marker) and time.monotonic() < deadline:
            time.sleep(0.5)
        if not _cluster_pids(groups, marker):
            return


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """(address, environment of a client machine: HOME without a token, no RAY_ variables)."""
    tmp = Path(tempfile.mkdtemp(prefix="bsray", dir="/tmp"))  # short: Ray's socket paths have a length cap
    home = tmp / "home"
    home.mkdir()
    base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    token = secrets.token_hex(32)
    node_env = {**base, "HOME": str(home), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}
    groups: list[int] = []
    try:
        head, started = _ray_start(
            [
                "--head",
                "--port={port}",
                f"--temp-dir={tmp / 'ray'}",
                "--include-dashboard=false",
                "--dashboard-port={port}",
                "--ray-client-server-port={port}",
                "--dashboard-agent-listen-port={port}",
            ],
            node_env,
            tries=3,
        )
        groups.append(head)
        port = next(a.removeprefix("--port=") for a in started if a.startswith("--port="))
        worker, _ = _ray_start(
            [f"--address=127.0.0.1:{port}", f"--temp-dir={tmp / 'ray'}", "--dashboard-agent-listen-port={port}"],
            node_env,
            tries=3,
        )
        groups.append(worker)
        # The second node registers with the head asynchronously after `ray start` returns: ask until the
        # head reports both (two nodes of one CPU each), within a bounded number of tries.
        for _ in range(120):
            status = subprocess.run(
                [RAY, "status", f"--address=127.0.0.1:{port}"], env=node_env, capture_output=True, text=True,
                timeout=120,
            )  # fmt: skip
            if "/2.0 CPU" in status.stdout:
                break
            time.sleep(0.5)
        assert "/2.0 CPU" in status.stdout, status.stdout + status.stderr
        yield f"127.0.0.1:{port}", {**base, "HOME": str(home), "RAY_AUTH_TOKEN": token}
    finally:
        _stop(groups, str(tmp))
        shutil.rmtree(tmp, ignore_errors=True)


def _batchsum(out: Path, address: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**env, "PYTHONPATH": str(REPO), "BATCHSUM_CACHE_DIR": str(out.parent / "cache")}
    args = ["run", str(SAMPLE_CORPUS / "journal"), "--out", str(out), "--no-index", "--json"]
    return subprocess.run(
        [sys.executable, "-m", "batchsum", *args, "--executor", "ray", "--ray-address", address],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_run_on_a_two_node_cluster_with_its_token(cluster: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = cluster
    res = _batchsum(tmp_path / "out", address, env)
    assert res.returncode == 0, res.stderr[-3000:]
    data = json.loads(res.stdout)
    assert data["run"]["files_total"] == 17
    assert {f["status"] for f in data["files"]} == {"done"}
    assert len(list((tmp_path / "out").rglob("final.md"))) == 17


def test_without_the_token_the_run_says_where_to_put_it(cluster: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = cluster
    env = {k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN"}
    res = _batchsum(tmp_path / "out", address, env)
    assert res.returncode == 2
    assert "RAY_AUTH_TOKEN" in res.stderr and "~/.ray/auth_token" in res.stderr


def test_a_wrong_token_is_named_as_refused(cluster: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = cluster
    res = _batchsum(tmp_path / "out", address, {**env, "RAY_AUTH_TOKEN": "0" * 64})
    assert res.returncode == 2
    assert "refused this machine's token" in res.stderr and "ray get-auth-token" in res.stderr, res.stderr[-2000:]
