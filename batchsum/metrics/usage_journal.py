"""LLM spend that survives a crash: one JSON line per request sent and per node that called the LLM.

A run records its metrics at its end; a run killed before that would lose the calls it paid for.
So every request sent is appended to ``<state>/usage/<run_id>.jsonl`` the moment its answer (or
error) arrives (:meth:`UsageJournal.paid`), every node that sent requests the moment it finishes, and
the file is deleted once the run's metrics are stored. A later run folds any journal left behind into
the metrics as an ``interrupted`` run (its calls, tokens and nodes), unless that run did reach the
database. Its calls and tokens are its requests' lines, each request counted once: a node still
waiting for its next request when the run died (a facets answer to ask again behind ``--rpm``) paid
for the first, which the next run takes from the response cache as a hit. A finished node's own line
stands for it when it counts more requests (see :meth:`_Journal.spend`). Only nodes with LLM calls
are written; the run's first line, written as it starts (:meth:`UsageJournal.start`), says what run
it is, so a killed extractive run, which paid for nothing, is still recorded as ``interrupted``. Each
file whose tree is written is appended too (:meth:`UsageJournal.file_done`), before its ``file_done``
event: the interrupted run's row counts the files it finished and their tokens, and the next run finds
them ``unchanged`` as made by it.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from batchsum import jsonio
from batchsum.model import FileRecord, NodeRecord, RunRecord

if TYPE_CHECKING:
    from batchsum.metrics.store import MetricsStore

log = logging.getLogger(__name__)

USAGE_DIR = "usage"


def usage_dir(state_dir: Path) -> Path:
    """Where the journals of one output folder live."""
    return state_dir / USAGE_DIR


class UsageJournal:
    """The append-only journal of one run; the file is created on the first node with LLM calls."""

    def __init__(self, state_dir: Path, run_id: str) -> None:
        self.path = usage_dir(state_dir) / f"{run_id}.jsonl"
        self._fh: IO[bytes] | None = None
        self._failed = False

    def start(self, *, started_at: str, command: str, backend: str, model: str | None) -> None:
        """The journal's first line: the run's start, command and backend (a run killed before its
        metrics is found by it, LLM calls or not)."""
        head = {"run": {"started_at": started_at, "command": command, "backend": backend, "model": model}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(jsonio.dumps(head) + b"\n")

    def append(self, record: NodeRecord) -> None:
        """One node's usage, flushed to the OS at once (a kill -9 cannot lose it; a power cut may)."""
        self._write(dataclasses.asdict(record))

    def paid(self, name: str, model: str | None, prompt_tokens: int, completion_tokens: int) -> None:
        """One request sent for the request named ``name`` (a node's id), its answer (or error) just
        arrived: what the server reported it cost, flushed at once."""
        self._write({"paid": {"name": name, "model": model, "prompt_tokens": prompt_tokens,
                              "completion_tokens": completion_tokens}})  # fmt: skip

    def file_done(self, record: FileRecord) -> None:
        """One finished file's record (its tree and manifest entry are written), flushed at once."""
        self._write({"file": dataclasses.asdict(record)})

    def _write(self, row: dict[str, Any]) -> None:
        # The journal only insures against a kill: a full disk stops it, never the run (whose own writes
        # then say what failed, and whose metrics are still stored at its end).
        if self._failed:
            return
        try:
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "ab")  # noqa: SIM115 - kept open for the run's lifetime
            self._fh.write(jsonio.dumps(row) + b"\n")
            self._fh.flush()
        except OSError as exc:
            self._failed = True
            log.warning("usage journal %s not written (%s): a kill now would lose this run's usage", self.path, exc)

    def close(self, *, recorded: bool) -> None:
        """Close the file; ``recorded``: the run's metrics are stored, so the journal is not needed."""
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:  # what a full disk kept it from writing, said when it failed (_write)
                self._failed = True
            self._fh = None
        if recorded:
            self.path.unlink(missing_ok=True)


def left_behind(state_dir: Path, current_run_id: str) -> bool:
    """Whether journals of other runs than ``current_run_id`` are left (one listing, no database)."""
    folder = usage_dir(state_dir)
    return folder.is_dir() and any(p.stem != current_run_id for p in folder.glob("*.jsonl"))


@dataclasses.dataclass
class _Journal:
    """What one journal holds."""

    head: dict[str, Any] = dataclasses.field(default_factory=dict)  # empty: an older version's journal
    nodes: list[NodeRecord] = dataclasses.field(default_factory=list)
    files: list[FileRecord] = dataclasses.field(default_factory=list)
    paid: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # one per request sent

    def spend(self) -> tuple[int, int, int]:
        """Requests, prompt and completion tokens, each request once. A finished node's line counts all
        its requests; its request lines may be fewer (a line the kill kept from being written, a Ray
        worker's still on their way) or more (a call retried on a restarted worker): the larger of the
        two stands for the node. Request lines of no finished node (a node still waiting, a digest) count
        as they are."""
        by_name: dict[str, list[dict[str, Any]]] = {}
        for p in self.paid:
            by_name.setdefault(str(p.get("name")), []).append(p)
        total = [0, 0, 0]
        for node in self.nodes:
            own = by_name.pop(node.node_id, [])
            spent = _paid_sum(own) if len(own) > node.llm_calls else (
                node.llm_calls, node.prompt_tokens, node.completion_tokens)  # fmt: skip
            total = [a + b for a, b in zip(total, spent, strict=True)]
        for rest in by_name.values():
            total = [a + b for a, b in zip(total, _paid_sum(rest), strict=True)]
        return total[0], total[1], total[2]


def _paid_sum(paid: list[dict[str, Any]]) -> tuple[int, int, int]:
    return (
        len(paid),
        sum(int(p.get("prompt_tokens") or 0) for p in paid),
        sum(int(p.get("completion_tokens") or 0) for p in paid),
    )


def _read(path: Path) -> _Journal:
    """The run's first line, its requests, its nodes and its finished files."""
    fields = {f.name for f in dataclasses.fields(NodeRecord)}
    file_fields = {f.name for f in dataclasses.fields(FileRecord)}
    got = _Journal()
    for line in path.read_bytes().splitlines():
        try:
            row = jsonio.loads(line)
            if isinstance(row.get("run"), dict):
                got.head = row["run"]
            elif isinstance(row.get("paid"), dict):
                got.paid.append(row["paid"])
            elif isinstance(row.get("file"), dict):
                got.files.append(FileRecord(**{k: v for k, v in row["file"].items() if k in file_fields}))
            else:
                got.nodes.append(NodeRecord(**{k: v for k, v in row.items() if k in fields}))
        except (ValueError, TypeError, AttributeError):
            continue  # the line a kill cut short
    return got


def fold_interrupted(state_dir: Path, store: MetricsStore, current_run_id: str, out_dir: str) -> int:
    """Record the journals of runs that died before their metrics as ``interrupted`` runs.

    Returns how many runs were folded. A journal whose run is already in the database (killed
    between storing its metrics and deleting the journal) is just removed.
    """
    folder = usage_dir(state_dir)
    folded = 0
    for path in sorted(folder.glob("*.jsonl")):
        run_id = path.stem
        if run_id == current_run_id:
            continue
        got = _read(path)
        if (got.head or got.nodes or got.paid) and not store.has_run(run_id):
            store.record_run(_interrupted_run(run_id, got, out_dir), got.files, got.nodes)
            folded += 1
        path.unlink(missing_ok=True)
    return folded


def _interrupted_run(run_id: str, got: _Journal, out_dir: str) -> RunRecord:
    head, nodes, files = got.head, got.nodes, got.files
    calls, prompt_tokens, completion_tokens = got.spend()
    stamp = run_id.split("-", 1)[0]  # 20261122T234544Z
    started = f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]}Z"
    note = "(interrupted before it recorded its metrics; LLM usage from its journal)"
    return RunRecord(
        run_id=run_id,
        started_at=str(head.get("started_at") or started),
        finished_at=None,
        command=f"{head['command']} {note}" if head.get("command") else note,
        backend=str(head.get("backend") or "llm"),  # a journal without its run's line: only LLM runs wrote one
        model=head.get("model")
        or next((n.model for n in nodes if n.model), None)
        or next((p.get("model") for p in got.paid if p.get("model")), None),
        status="interrupted",
        out_dir=out_dir,
        # The files it finished: what else it had read or would have is not known (the next run counts it).
        files_total=len(files),
        files_done=len(files),
        input_tokens=sum(f.input_tokens or 0 for f in files),
        output_tokens=sum(f.output_tokens or 0 for f in files),
        llm_calls=calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        nodes_computed=len(nodes),
    )
