"""The worker side of :mod:`batchsum.engine.process_executor`: what each worker process runs.

The fork server imports this module once, with the summarizer, numpy, the default tokenizer's ranks
and the language model loaded at import, so every worker forked from it starts ready (a tokenizer load
per worker was a tenth of a second each). Nothing here writes to the output folder: workers compute,
the run's own process commits.
"""

from __future__ import annotations

import signal

# First: the fork server imports this module for its workers, and Ctrl-C reaches the whole process group
# while it does (a second or more on a loaded machine): the run's own process handles it and stops the
# pool, so a fork server or worker stopped mid-import had only printed a KeyboardInterrupt traceback.
signal.signal(signal.SIGINT, signal.SIG_IGN)

from batchsum.blas import single_threaded_blas  # noqa: E402

# Before numpy loads. Only worker processes import this module, so the run's own process (a library
# caller's) keeps its settings.
single_threaded_blas()

import logging  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

from batchsum.backends.extractive import ExtractiveBackend  # noqa: E402
from batchsum.engine.changes import backend_identity  # noqa: E402
from batchsum.engine.nodes import make_job  # noqa: E402
from batchsum.engine.prepare import prepare_file  # noqa: E402
from batchsum.language import detect_language  # noqa: E402
from batchsum.tokens import DEFAULT_ENCODING, get_tokenizer  # noqa: E402

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.engine.changes import Known
    from batchsum.engine.prepare import Prepared
    from batchsum.engine.process_executor import Ahead
    from batchsum.model import SummaryOutput, SummaryRequest
    from batchsum.tokens import Tokenizer
    from batchsum.walk import SourceRef

# Loaded here once, in the fork server, for every worker forked from it: the tokenizer with its table of
# token lengths (built by the first token_starts) and the language model (by the first detection), each
# ~25-40 ms that every worker spent again on its first file (make bench profile).
get_tokenizer(DEFAULT_ENCODING).token_starts("Warm up.")
detect_language("The fork server loads the language model once for all its workers.")


class _Held(logging.Handler):
    """The warnings a worker logs, held until its next result takes them to the run
    (:func:`batchsum.engine.workers.in_worker`), which logs them as its own."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        # Flat, so it pickles: the arguments may be any object, a traceback none.
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        self.records.append(record)


def _detach_from_callers_streams() -> None:
    """Point this process's stdout and stderr at /dev/null, its warnings at :data:`_held`.

    The fork server and its workers inherit the run's fds 1 and 2: after a kill -9 of the run, a caller
    that reads its output until EOF (cron, ``communicate()``) waited for them too. Done in the fork
    server, before any worker is forked from it."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    root = logging.getLogger()
    root.addHandler(_held)
    root.setLevel(min(root.level or logging.WARNING, logging.WARNING))


_held = _Held()
_detach_from_callers_streams()

_cfg: RunConfig | None = None
_tokenizer: Tokenizer | None = None
_backend: ExtractiveBackend | None = None


def init_worker(cfg: RunConfig, run_pid: int | None = None) -> None:
    """Set up one worker for a run with settings ``cfg``, by the process ``run_pid``."""
    global _cfg, _tokenizer, _backend
    # What the fork server logged while importing was said before this worker existed (the run warns
    # about its own tokenizer): not repeated by every worker.
    _held.records.clear()
    # Ctrl-C reaches the whole process group; the run's own process handles it and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if run_pid is not None:
        threading.Thread(target=_end_with, args=(run_pid,), name="batchsum-run-watch", daemon=True).start()
    _cfg = cfg
    _tokenizer = get_tokenizer(cfg.encoding)
    _backend = ExtractiveBackend(_tokenizer, final_words=cfg.final_words)


def _end_with(run_pid: int) -> None:
    """Exit once the run's process is gone. A run killed with SIGKILL stops nothing: its workers (and the
    fork server) hold their own pipes' write ends, wait for work forever and keep ~225 MB."""
    while True:
        time.sleep(RUN_WATCH_S)
        if not _alive(run_pid):
            os._exit(0)


RUN_WATCH_S = 1.0  # how often a worker looks for its run (a read of /proc, or a kill signal 0: microseconds)
_PROC = os.path.isdir("/proc/self")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs. A killed run is a zombie until its caller reaps it, and a
    caller that reads its output to EOF first reaps it only after its workers exit: a kill signal 0
    succeeds on a zombie, so on Linux its state in /proc decides."""
    if _PROC:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                # "pid (comm) S ...": the state follows the last ")" (comm may hold spaces and parentheses)
                return fh.read().rpartition(b")")[2].split()[:1] not in ([b"Z"], [b"X"], [])
        except OSError:  # gone (reaped)
            return False
    try:  # no /proc (not Linux): is any process of that pid there?
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or its pid is another user's process now
        return False
    return True


def take_warnings() -> list[logging.LogRecord]:
    """The warnings logged since the last call, for the run."""
    records, _held.records[:] = list(_held.records), []
    return records


def warm_up() -> None:
    """Nothing: submitted once per worker so the pool starts its processes before the work arrives."""


def prepare(ref: SourceRef, known: Known | None) -> tuple[Prepared, Ahead | None]:
    """``prepare_file`` of one changed file, with this worker's tokenizer; for a file planned as one
    node, also that node's request and summary, computed ahead (one trip to a worker, not two)."""
    assert _cfg is not None and _tokenizer is not None and _backend is not None, "worker not initialized"
    prepared = prepare_file(ref, _cfg, _tokenizer, known)
    plan = prepared.plan
    if plan is None or len(plan.nodes) != 1 or plan.nodes[0].kind == "source":
        return prepared, None
    # The request the run will make unless it builds on a previous final (then this one is unused).
    request = make_job(backend_identity(_cfg), _cfg.llm, plan, plan.nodes[0], [], 1, _cfg.final_words).request
    return prepared, (request, _backend.summarize_now(request))


def summarize(request: SummaryRequest) -> SummaryOutput:
    """The extractive summary of one node."""
    assert _backend is not None, "worker not initialized"
    return _backend.summarize_now(request)
