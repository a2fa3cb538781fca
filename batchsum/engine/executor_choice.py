"""Which executor a run uses: Ray when asked for, else the local one, with worker processes when
they pay (see :mod:`batchsum.engine.workers`).

Light to import: a run chooses its executor as soon as it knows its changed files, so its worker
processes start before it loads the event loop, the executors and the summarizer."""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING

from batchsum.config import RunConfig
from batchsum.engine.ray_probe import check_gcs
from batchsum.engine.workers import start_workers
from batchsum.errors import ConfigError
from batchsum.lazy import load
from batchsum.walk import SourceRef

if TYPE_CHECKING:
    from batchsum.engine.executor import ExecutorFactory

# The executors, loaded once chosen: Ray's module imports the LLM backend and its HTTP client's rate
# limiter, ~30 ms of every plain run's start-up (make bench) for nothing; the local ones the event loop.
RAY = "batchsum.engine.ray_executor:configured"
PROCESSES = "batchsum.engine.process_executor:process_executor"
LOCAL = "batchsum.engine.executor:LocalExecutor"


def executor_for(cfg: RunConfig, todo: Sequence[SourceRef] = ()) -> ExecutorFactory:
    """The executor a run's settings ask for (``--executor``) for reading the changed files of
    ``todo``. Ray is imported only when chosen: it is the heaviest import of all."""
    if cfg.executor == "ray":
        factory: ExecutorFactory = load(RAY)(cfg)
        return factory
    workers = start_workers(cfg, todo)  # first: the fork server starts while the executor's modules load
    factory = load(PROCESSES)(cfg, todo, workers) if workers is not None else load(LOCAL)
    return factory


def require_ray(address: str | None = None) -> None:
    """ConfigError naming the extra to install when Ray is not installed (``--executor ray``), or naming
    ``address`` (``--ray-address``; ``auto``: ``RAY_ADDRESS``, which must be set) when nothing there accepts
    a connection, or what does is no Ray head that takes this machine (:func:`~batchsum.engine.ray_probe.check_gcs`).
    Checked without importing Ray, so the command can check before it touches the output folder and an
    unchanged re-run never loads Ray; Ray itself waits minutes, or for ever, for a head that is not there."""
    if importlib.util.find_spec("ray") is None:
        raise ConfigError("--executor ray needs Ray: pip install 'batchsum[ray]'")
    target = os.environ.get("RAY_ADDRESS") if address == "auto" else address
    if address == "auto" and not target:
        raise ConfigError(AUTO_NEEDS_ADDRESS)
    if not target or target == "local":
        return
    host, _, port = target.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # Ray's own parser says what is wrong with it
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_PROBE_S):
            pass
    except OSError as exc:
        reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else (exc.strerror or str(exc))
        raise ConfigError(
            f"cannot reach Ray at {target} ({reason}); is the head node up (`ray start --head`)? "
            "Without --ray-address a run starts a Ray of its own"
        ) from None
    if not target.startswith("ray://"):  # a Ray Client server is no GCS: ray.init checks it
        check_gcs(target)


RAY_PROBE_S = 5.0  # a head node answers a connect at once; an unroutable address times out here
AUTO_NEEDS_ADDRESS = "--ray-address auto needs RAY_ADDRESS (the address of a running Ray cluster)"
