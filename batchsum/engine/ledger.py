"""A run's tallies and the rules that turn them into its status and exit code.

The ledger only counts: every file of the run ends in it exactly once (done, unchanged, failed, skipped
or deleted), with the problems and warnings the run met; :meth:`Ledger.result` then decides the run's
status and exit code. It writes nothing to disk.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from batchsum.engine import RUN_LOGGER
from batchsum.engine.changes import (
    fell_back_note,
    moved_note,
    moved_sources,
    redated_note,
    redone_note,
    reread_note,
    source_path,
)
from batchsum.engine.progress import Progress
from batchsum.engine.records import NodeResult, RunResult, doc_file_record, done_file_record, entry_file_record, ratio
from batchsum.engine.records import node_record as make_node_record
from batchsum.errors import AbortRun
from batchsum.model import NODE_ID_SEP, FileRecord, NodeRecord, RunRecord, doc_id_of
from batchsum.state import ManifestEntry
from batchsum.summary_files import final_tokens
from batchsum.walk import Problem, SourceRef

if TYPE_CHECKING:
    from batchsum.planning import FilePlan  # a type only: planning loads the tokenizer's modules

log = logging.getLogger(RUN_LOGGER)  # README: "Warnings go to the `batchsum` logger"

# Exit code of a run that finished but with nodes the configured LLM did not produce (docs/run.md).
EXIT_DEGRADED = 4


def worst_exit(*codes: int) -> int:
    """The exit code of a command whose parts (a run, then its ``--facts`` pass) ended with ``codes``:
    the most severe, as the exit-code table ranks them (docs/run.md): a failure (1, or any other
    error) before degraded (4, everything finished) before 0. Not the largest: 4 over 1 had hidden
    failed files from a cron line that treats 1 as the unit failed."""
    return max(codes, key=lambda code: (code not in (0, EXIT_DEGRADED), code != 0, code))


@dataclass
class Ledger:
    """Files, nodes, problems and warnings of one run, as they are settled."""

    run_id: str
    progress: Progress
    files: list[FileRecord] = field(default_factory=list)
    nodes: list[NodeRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    levels: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    # Warnings about the input or a choice the run made (a file's control characters, a lossy decode,
    # changed settings), not about a failed step: --quiet leaves them to the event log.
    notices: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)  # trees moved aside: vanished sources, emptied files
    added: int = 0
    modified: int = 0
    planned: int = 0  # files read and planned this run
    reread: int = 0  # of those, files unchanged but read as another text by a new reader version
    redone: Counter[int] = field(default_factory=Counter)  # of those, files an earlier summarizer made, by version
    redated: int = 0  # of those, files a new reader version dates otherwise (their summaries restored)
    fell_back: list[int] = field(default_factory=list)  # of those, unedited files' nodes that had fallen back
    # The deleted sources' files where they are now, and the new files', by relpath: the same file under both is
    # a summary that moved (changes.moved_sources), which the run names.
    gone: dict[str, str] = field(default_factory=dict)
    arrived: dict[str, str] = field(default_factory=dict)
    aborted: AbortRun | None = None
    # The metrics rows of the requests sent for files the stopped run left unfinished, by relpath (stopped).
    stopped_spend: dict[str, list[NodeRecord]] = field(default_factory=dict)
    digest_fallbacks: int = 0  # digests the fallback made instead of the configured LLM
    index_failed: bool = False
    metrics_failed: bool = False
    computed: set[str] = field(default_factory=set)  # keys of the nodes this run summarized
    same_text: int = 0  # files whose every node another file of this run had just summarized
    # Called with each finished file's record before its file_done event (the run's usage journal): a
    # run killed later is recorded with the files it finished.
    file_journal: Callable[[FileRecord], None] | None = None

    def warn(self, message: str, event: str | None = None, *, notice: bool = False, **fields: object) -> None:
        """A warning for the closing summary (and, with ``event``, the event log); ``notice``: about the
        input or a choice, not a failure (:attr:`notices`)."""
        self.warnings.append(message)
        log.warning("%s", message)
        if notice:
            self.notices.append(message)
        if event is not None:
            self.progress.event(event, level="warning", **fields)

    def say_reread(self) -> None:
        """One notice each for the unedited files planned again because this batchsum changed: a new reader
        version read them as another text or dated them otherwise, an earlier summarizer version made them."""
        n = self.reread
        if n:
            self.warn(
                reread_note(n),
                "files_reread",
                notice=True,
                files=n,
            )
        if self.redone:
            versions = {str(v): n for v, n in sorted(self.redone.items())}
            self.warn(
                redone_note(self.redone), "files_redone", notice=True, files=self.redone.total(), versions=versions
            )
        if self.redated:
            self.warn(redated_note(self.redated), "files_redated", notice=True, files=self.redated)
        if self.fell_back:
            files, nodes = len(self.fell_back), sum(self.fell_back)
            self.warn(fell_back_note(files, nodes), "fallbacks_redone", notice=True, files=files, nodes=nodes)
        if moved := moved_sources(self.gone, self.arrived):
            self.warn(moved_note(moved), "files_moved", notice=True, files=len(moved))

    def skipped(self, problem: Problem, rel: str | None) -> None:
        """A file that could not be read (``rel`` None: not even found as a source), or that is no source
        (``problem.failure`` False, an export's metadata): counted as skipped, but only the first is a
        problem of the run."""
        if problem.failure:
            self.problems.append(problem)
            log.warning("%s: %s", problem.path, problem.reason)
        elif problem.notice:
            self.warn(f"{problem.path}: {problem.reason}", notice=True)
        level = "warning" if problem.failure else "info"
        self.progress.event("file_skipped", path=problem.path, reason=problem.reason, level=level)
        if rel is not None:
            self.files.append(FileRecord(run_id=self.run_id, relpath=rel, status="skipped", error=problem.reason))

    def unchanged(self, entry: ManifestEntry, out: Path) -> None:
        """A file whose summaries are current; it keeps the output size of its existing final."""
        self.levels[entry.level] += 1
        rec = entry_file_record(self.run_id, entry, "unchanged")
        if entry.final_id is not None:
            rec.output_tokens = entry.final_tokens or final_tokens(out, entry.relpath)
            rec.compression_ratio = ratio(rec.output_tokens, rec.input_tokens)
        self.files.append(rec)
        self.progress.file_settled()

    def deleted_source(self, entry: ManifestEntry) -> None:
        """A source that disappeared (its tree was moved aside)."""
        self.deleted.append(entry.relpath)
        if (path := source_path(entry)) is not None:
            self.gone[entry.relpath] = path
        self.files.append(entry_file_record(self.run_id, entry, "deleted"))
        self.progress.event("file_deleted", relpath=entry.relpath)

    def done(self, plan: FilePlan, results: list[NodeResult], *, existed: bool, final_out: int, wall_ms: float) -> None:
        """A file whose tree and manifest entry are written."""
        doc = plan.doc
        if existed:
            self.modified += 1
        else:
            self.added += 1
        if self.gone and not existed:  # a file summarized before is no summary moved to its path
            self.arrived[doc.relpath] = str(doc.path)
        self.levels[plan.level.value] += 1
        if results and all(r.reused for r in results) and any(r.key in self.computed for r in results):
            self.same_text += 1  # a file with another's text: its nodes were stored, but by this run
        recs = [make_node_record(self.run_id, plan, r) for r in results]
        self.nodes.extend(recs)
        self.files.append(done_file_record(self.run_id, plan, results, recs, final_out, wall_ms))
        if self.file_journal is not None:
            self.file_journal(self.files[-1])
        self.progress.event(
            "file_done",
            relpath=doc.relpath,
            summary_level=plan.level.value,
            content_type=doc.content_type,
            input_tokens=doc.tokens,
            output_tokens=final_out,
            nodes=len(results),
            recomputed=sum(1 for r in results if not r.reused),
        )
        self.progress.file_settled()

    def failed(self, plan: FilePlan, reason: str, wall_ms: float, spent: list[NodeResult] | None = None) -> None:
        """A file whose summaries could not be made or written; the batch goes on. ``spent``: its nodes
        computed before it failed, and the failed ones, whose requests were sent all the same: their rows
        (a failed node's with its error) and their requests count in the file's and the run's."""
        doc = plan.doc
        self.problems.append(problem := Problem(str(doc.path), f"summarization failed: {reason}", doc.relpath))
        log.warning("%s: %s", problem.path, problem.reason)
        recs = [make_node_record(self.run_id, plan, r) for r in spent or () if not r.reused]
        self.nodes.extend(recs)
        self.files.append(
            doc_file_record(
                self.run_id, doc, level=doc.level.value, status="failed", error=reason, wall_ms=wall_ms,
                llm_calls=sum(n.llm_calls for n in recs), prompt_tokens=sum(n.prompt_tokens for n in recs),
                completion_tokens=sum(n.completion_tokens for n in recs),
            )
        )  # fmt: skip
        self.progress.event("file_failed", relpath=doc.relpath, error=reason, level="error")
        self.progress.file_settled()

    def stopped(self, plan: FilePlan, spent: list[NodeResult]) -> None:
        """A file the run stopped in (``--on-error abort``): the nodes it computed and the requests its
        failed ones sent are the run's spend (as a failed file's); its record is made with the others
        the run left (:meth:`unreached`), once the run knows what stopped it."""
        recs = [make_node_record(self.run_id, plan, r) for r in spent if not r.reused]
        self.nodes.extend(recs)
        self.stopped_spend[plan.doc.relpath] = recs

    def unreached(self, todo: list[SourceRef]) -> None:
        """Files an aborted run never got to are counted (skipped, with the cause), not forgotten; the file
        whose node stopped it (a node that failed under ``--on-error abort``, a rejected key) failed."""
        if self.aborted is None:
            return
        seen = {f.relpath for f in self.files}
        reason = f"not summarized: the run stopped ({_cause(self.aborted)})"
        stopper = doc_id_of(self.aborted.node_id) if self.aborted.node_id else None
        for ref in todo:
            if ref.relpath not in seen:
                status = "failed" if ref.relpath == stopper else "skipped"
                why = _cause(self.aborted) if status == "failed" else reason
                recs = self.stopped_spend.get(ref.relpath, [])
                self.files.append(
                    FileRecord(
                        run_id=self.run_id, relpath=ref.relpath, status=status, error=why,
                        llm_calls=sum(n.llm_calls for n in recs), prompt_tokens=sum(n.prompt_tokens for n in recs),
                        completion_tokens=sum(n.completion_tokens for n in recs),
                    )
                )  # fmt: skip

    def status(self) -> str:
        """``aborted``, ``partial`` (some files failed or were skipped), ``degraded`` (finished, but
        some nodes fell back from the configured backend) or ``ok``."""
        if self.aborted is not None:
            return "aborted"
        if self.problems or self.index_failed or any(f.status == "failed" for f in self.files):
            return "partial"  # (an index that could not be updated: a search would miss the run's files)
        if self.digest_fallbacks or any(f.fallback_nodes for f in self.files if f.status == "done"):
            return "degraded"
        return "ok"

    def exit_code(self, status: str) -> int:
        """1 when anything failed (a file, the index, the metrics) or the run stopped; 4 when degraded."""
        if status in ("aborted", "partial") or self.index_failed or self.metrics_failed:
            return 1
        return EXIT_DEGRADED if status == "degraded" else 0

    def result(self, run: RunRecord, out: Path, tokenizer: str) -> RunResult:
        """What the run did, with its exit code."""
        exit_code = self.exit_code(run.status)
        stopped_by = _cause(self.aborted) if self.aborted is not None else None
        # Why a run stopped is in its last event too: a log shipper keeps that one line (docs/nightly.md).
        why = {"stopped_by": stopped_by} if stopped_by is not None else {}
        self.progress.event(
            "run_finished", run_id=self.run_id, status=run.status, exit_code=exit_code, wall_ms=run.wall_ms, **why
        )
        return RunResult(
            run=run,
            files=self.files,
            nodes=self.nodes,
            problems=self.problems,
            levels=self.levels,
            exit_code=exit_code,
            out=out,
            warnings=self.warnings,
            notices=self.notices,
            tokenizer=tokenizer,
            stopped_by=stopped_by,
            same_text=self.same_text,
        )


def _cause(exc: AbortRun) -> str:
    """Which file's summary stopped the run and why, in one line."""
    message = str(exc)
    if exc.node_id and message.startswith(f"{exc.node_id}: "):  # the backend's message names it already
        message = message[len(exc.node_id) + 2 :]
    where = f"{_summary_name(exc.node_id)}: " if exc.node_id else ""
    cause = f" ({exc.cause})" if exc.cause is not None and str(exc.cause) not in message else ""
    return f"{where}{message}{cause}"


def _summary_name(nid: str) -> str:
    """A node id as a user knows the summary: its file and which of its summaries (an id's
    ``:summary:L1:3`` means nothing to someone reading why the run stopped)."""
    if NODE_ID_SEP not in nid:
        return nid
    level, _, index = nid.rsplit(NODE_ID_SEP, 1)[1].partition(":")
    what = {"L1": f"chunk {index}", "L2": f"group {index}", "L4": "digest"}.get(level, "final summary")
    return f"{doc_id_of(nid)} ({what})"
