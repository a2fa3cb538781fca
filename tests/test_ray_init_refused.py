"""`--executor ray`: a `ray.init` that fails after the GCS probe passed refuses the run before it records
anything (the folder's remembered settings untouched, no usage journal for the next run to call an
interrupted run), with one error line naming the address and Ray's reason (exit 2); a SIGTERM while
`ray.init` waits stops the run as a SIGTERM before summarizing does (exit 1, no traceback, nothing lost).

The cluster is a fake at the network boundary: a gRPC server that answers the probe's call as a GCS does
and fails (or stalls) the calls ``ray.init`` makes next. Ray joins a loopback address at the node's own IP,
so the fake listens there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.engine.ray_probe import GCS_METHOD
from tests.conftest import REPO

grpc = pytest.importorskip("grpc")
ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray

HANG_GUARD_S = 180  # only a run that never stops reaches it
STALL_S = 3.0  # how long the stalling fake holds each call past the probe's


@dataclass
class FakeGcs:
    """What the fake saw, and the switch that ends its stalls."""

    address: str = ""
    calls: list[str] = field(default_factory=list)
    joining: threading.Event = field(default_factory=threading.Event)  # a call past the probe's arrived
    done: threading.Event = field(default_factory=threading.Event)


class _Handler(grpc.GenericRpcHandler):  # type: ignore[misc]
    """The probe's call answered as a GCS does; every other call unknown, or held for STALL_S first."""

    def __init__(self, fake: FakeGcs, stall: bool) -> None:
        self.fake, self.stall = fake, stall

    def service(self, details: Any) -> Any:
        self.fake.calls.append(details.method)
        if details.method == GCS_METHOD:
            return grpc.unary_unary_rpc_method_handler(lambda request, context: b"")
        self.fake.joining.set()
        if not self.stall:
            return None  # UNIMPLEMENTED: a head that takes the probe but not what ray.init asks next

        def held(request: bytes, context: Any) -> bytes:
            self.fake.done.wait(STALL_S)
            return b""

        return grpc.unary_unary_rpc_method_handler(held)


def _serve(stall: bool) -> Iterator[FakeGcs]:
    fake = FakeGcs()
    host = ray.util.get_node_ip_address()
    server = grpc.server(futures.ThreadPoolExecutor(4))
    server.add_generic_rpc_handlers((_Handler(fake, stall),))
    fake.address = f"{host}:{server.add_insecure_port(f'{host}:0')}"
    server.start()
    try:
        yield fake
    finally:
        fake.done.set()
        server.stop(grace=None)


@pytest.fixture
def failing_gcs() -> Iterator[FakeGcs]:
    yield from _serve(stall=False)


@pytest.fixture
def stalling_gcs() -> Iterator[FakeGcs]:
    yield from _serve(stall=True)


def _built(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus and its output folder, built once by a local run."""
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "a.md").write_text("Today I walked to the harbour and counted the boats.\n", encoding="utf-8")
    first = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--quiet"])
    assert first.exit_code == 0, first.output
    (corpus / "b.md").write_text("We decided to ship on Friday. Bob writes the docs.\n", encoding="utf-8")
    return corpus, out


def _batchsum(args: list[str], retries: int) -> subprocess.Popen[str]:
    # Ray's own retry count of the calls the fakes fail: the refusal comes in seconds, not minutes.
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_NUM_REDIS_GET_RETRIES": str(retries)}
    return subprocess.Popen(
        [sys.executable, "-m", "batchsum", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def _journals(out: Path) -> list[Path]:
    usage = out / ".batchsum" / "usage"
    return sorted(usage.iterdir()) if usage.is_dir() else []


def test_a_failed_ray_init_refuses_the_run_and_records_nothing(tmp_path: Path, failing_gcs: FakeGcs) -> None:
    corpus, out = _built(tmp_path)
    settings, manifest = ((out / ".batchsum" / name).read_bytes() for name in ("settings.json", "manifest.json"))
    address = failing_gcs.address
    proc = _batchsum(["run", str(corpus), "--out", str(out), "--no-index", "--executor", "ray", "--ray-address",
                      address, "--final-words", "123", "--json"], retries=1)  # fmt: skip
    try:
        stdout, stderr = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert failing_gcs.calls[0] == GCS_METHOD and failing_gcs.joining.is_set()  # probed, then joined
    assert proc.returncode == 2, stderr[-2000:]
    error = json.loads(stdout)
    assert error["kind"] == "RayUnavailable" and error["exit_code"] == 2
    said = error["error"]
    assert "\n" not in said and f"Ray at {address}: " in said
    assert said.split(f"Ray at {address}: ", 1)[1].strip()  # Ray's reason follows the address
    assert (out / ".batchsum" / "settings.json").read_bytes() == settings  # --final-words 123 not remembered
    assert _journals(out) == []  # no run for the next one to record as interrupted
    assert (out / ".batchsum" / "manifest.json").read_bytes() == manifest  # nothing summarized


def test_sigterm_during_ray_init_stops_the_run_cleanly(tmp_path: Path, stalling_gcs: FakeGcs) -> None:
    corpus, out = _built(tmp_path)
    proc = _batchsum(["run", str(corpus), "--out", str(out), "--no-index", "--executor", "ray", "--ray-address",
                      stalling_gcs.address], retries=3)  # fmt: skip
    try:
        assert stalling_gcs.joining.wait(HANG_GUARD_S), "ray.init never called past the probe"
        proc.terminate()
        _, stderr = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    assert "run aborted: interrupted by SIGTERM" in stderr, stderr[-2000:]
    assert _journals(out) == []  # recorded as the run it was (aborted), not left for the next to guess
    again = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    assert again.exit_code == 0, again.output
    run = json.loads(again.output)["run"]
    assert (run["files_done"], run["files_unchanged"]) == (1, 1)  # nothing lost: the new file is done now
