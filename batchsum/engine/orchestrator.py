"""The run: walk, compare with the manifest, hand changed files to the executor, commit each
finished file, then index, record metrics and (optionally) commit to git.

Unchanged files are settled from the manifest without an event loop; only the rest are read,
planned and executed. Each finished node is recorded in the node store at once (crash-safe resume,
incremental reuse); each finished file's tree is written and its manifest entry saved before the
next file finishes; the index, metrics and git commit follow at the end.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.engine import wrapup
from batchsum.engine.changes import backend_identity, config_signature, diff, touched_sha
from batchsum.engine.progress import Progress, show_bars
from batchsum.engine.records import (
    NodeResult,
    RunResult,
    done_file_record,
    entry_file_record,
    node_record,
    ratio,
    run_record,
    utc_now,
)
from batchsum.errors import AbortRun
from batchsum.metrics.usage_journal import UsageJournal, usage_dir
from batchsum.model import FileRecord, NodeRecord, SummaryLevel, SummaryOutput
from batchsum.state import ManifestEntry, StateStore
from batchsum.walk import Problem, SourceRef, require_paths

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.engine.executor import Executor, ExecutorFactory
    from batchsum.engine.nodes import NodeJob
    from batchsum.engine.prepare import Prepared
    from batchsum.index.records import DocUpdate
    from batchsum.model import SummaryOutput
    from batchsum.planning import FilePlan, PlannedNode
    from batchsum.tokens import Tokenizer
    from batchsum.tree import TreeNode

log = logging.getLogger(__name__)

# Exit code of a run that finished but with nodes the configured LLM did not produce (docs/run.md).
EXIT_DEGRADED = 4
# Source text kept in memory for the index until the run's end; past it, the index reads the rest
# back from disk. Bounds the peak memory of a first run over a large corpus (~1 byte per character).
INDEX_SOURCE_CHARS = 32_000_000


def load_tokenizer(cfg: RunConfig, warnings: list[str]) -> Tokenizer:
    """The run's tokenizer; a warning is added when only estimates are available."""
    from batchsum.tokens import get_tokenizer

    tokenizer = get_tokenizer(cfg.encoding)
    if not tokenizer.exact:
        warnings.append(f"tiktoken {cfg.encoding} unavailable offline; token counts are ~4 chars/token estimates")
    return tokenizer


def run(cfg: RunConfig, *, executor: ExecutorFactory | None = None) -> RunResult:
    """Summarize ``cfg.paths`` into ``cfg.out`` under the output's lock; return what was done.

    ``executor`` builds the executor from the backends (default: the local asyncio one). Never raises
    for a single bad file: it is recorded as a problem and the batch goes on.
    """
    from batchsum.lock import RunLock
    from batchsum.settings import validate

    validate(cfg)
    require_paths(cfg.paths)  # before the lock: a mistyped path must not leave an empty output folder behind
    bars = show_bars(cfg.quiet, cfg.progress)
    with Progress(cfg.log_file, cfg.log_format, bars=bars) as progress, RunLock(cfg.out, wait=cfg.wait_lock) as lock:
        if lock.stale:
            progress.event("stale_lock_taken_over", level="warning", previous=lock.stale)
        if cfg.metrics and cfg.metrics_path.exists():
            from batchsum.metrics.store import check_db_header

            # 16 bytes read: a damaged metrics database stops the run before any work (exit 2),
            # instead of every night's metrics being dropped with a warning nobody reads.
            check_db_header(cfg.metrics_path)
        return _Run(cfg, progress, executor).execute()


class _Run:
    """One run's state; also the executor's :class:`~batchsum.engine.executor.Driver`."""

    def __init__(self, cfg: RunConfig, progress: Progress, executor: ExecutorFactory | None) -> None:
        self.cfg = cfg
        self.progress = progress
        self.executor_factory = executor
        self.identity = backend_identity(cfg)
        self.run_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + os.urandom(3).hex()
        self.stamp = self.run_id.split("-")[0]
        self.started = utc_now()
        self.t0 = time.perf_counter()
        self.sig = config_signature(cfg)
        self.state = StateStore(cfg.state_dir)
        self.manifest: dict[str, ManifestEntry] = {}
        self.roots: dict[str, str] = {}
        self.files: list[FileRecord] = []
        self.nodes: list[NodeRecord] = []
        self.problems: list[Problem] = []
        self.levels: Counter[str] = Counter()
        self.warnings: list[str] = []
        self.to_index: list[str] = []  # relpaths whose trees were written (or must be re-indexed)
        self.index_docs: dict[str, DocUpdate] = {}  # trees this run wrote, handed to the index in memory
        self.index_chars = 0  # source characters held in index_docs
        self.embedded: Mapping[str, Any] = {}  # summary vectors the executor's workers computed
        self.deleted: list[str] = []
        self.added = 0
        self.modified = 0
        self.planned = 0  # files read and planned this run
        self.aborted: AbortRun | None = None
        self.journal = UsageJournal(cfg.state_dir, self.run_id)
        self.heal: dict[str, ManifestEntry] = {}  # relpaths whose unchanged source has a damaged tree
        self.todo: list[SourceRef] = []  # files to read this run (an aborted run counts the ones it missed)
        self.index_failed = False
        self.metrics_failed = False
        self.tokenizer_: Tokenizer | None = None

    @property
    def tokenizer(self) -> Tokenizer:
        # Loaded on first use: an unchanged nightly re-run needs neither it nor the planning modules.
        if self.tokenizer_ is None:
            self.tokenizer_ = load_tokenizer(self.cfg, self.warnings)
        return self.tokenizer_

    # ------------------------------------------------------------------ the run
    def execute(self) -> RunResult:
        cfg = self.cfg
        self.progress.event("run_started", run_id=self.run_id, out=str(cfg.out))
        if cfg.git:
            from batchsum.gitver import ensure_repo

            ensure_repo(cfg.out)
        self.manifest = self.state.load_manifest()
        d = diff(cfg, self.manifest, self.sig)
        if d.todo and cfg.index:
            from batchsum.warmup import start_index_warmup

            start_index_warmup(embed_locally=not cfg.embed_base_url)
        self.roots = d.roots
        for p in d.problems:
            self._skip(p, None)
        self.progress.start(d.files)
        try:
            for entry in d.deleted:
                self._delete(entry)
            self.to_index.extend(d.unindexed)
            for entry in d.unchanged:
                self._unchanged(entry)
            self.todo = d.todo
            if d.todo and self._preflight():
                self._execute(d.todo)
        finally:
            self.progress.stop()
        return self._finish()

    def _preflight(self) -> bool:
        """Before any work: a server that refuses connections or rejects the key stops the run."""
        if not self.cfg.llm.enabled:
            return True
        from batchsum.backends.llm import check_server
        from batchsum.errors import LLMUnavailable

        try:
            check_server(self.cfg.llm)
        except LLMUnavailable as exc:
            self.aborted = exc
            log.debug("%s", exc)  # the caller reports it (RunResult.stopped_by)
            self.progress.event("run_stopped", reason=str(exc), level="error")
            return False
        return True

    def _record_unreached(self) -> None:
        """Files an aborted run never got to are counted (skipped, with the cause), not forgotten."""
        if self.aborted is None:
            return
        seen = {f.relpath for f in self.files}
        for ref in self.todo:
            if ref.relpath not in seen:
                reason = f"not summarized: the run stopped ({self.aborted})"
                self.files.append(FileRecord(run_id=self.run_id, relpath=ref.relpath, status="skipped", error=reason))

    def _execute(self, refs: list[SourceRef]) -> None:
        import asyncio

        from batchsum.backends.registry import make_backends
        from batchsum.engine.executor import EmbedsAhead, executor_for
        from batchsum.engine.process_executor import ProcessExecutor

        # The executor first: worker processes start while this one loads the backend.
        factory = self.executor_factory or executor_for(self.cfg, refs)
        backend, fallback = make_backends(self.cfg, self.tokenizer)
        executor = factory(backend, fallback)

        async def go() -> None:
            try:
                await executor.execute(self._plans(refs, executor), self)
            except AbortRun as exc:
                self.aborted = exc
            finally:
                await executor.aclose()

        asyncio.run(go())
        if isinstance(executor, ProcessExecutor) and executor.broken:
            self.warnings.append(executor.broken)
            self.progress.event("workers_lost", reason=executor.broken, level="warning")
        if isinstance(executor, EmbedsAhead):
            self.embedded = executor.embeddings()

    async def _plans(self, refs: list[SourceRef], executor: Executor) -> AsyncIterator[FilePlan]:
        async for ref, prepared in self._prepared(refs, executor):
            plan = self._settle(ref, prepared)
            if plan is None:
                continue
            if plan.kept_whole:
                # Nothing to summarize: the file is its own final, written now without the executor.
                self.file_finished(plan, [self._kept_whole(plan)], 0.0)
            else:
                yield plan

    async def _prepared(self, refs: list[SourceRef], executor: Executor) -> AsyncIterator[tuple[SourceRef, Prepared]]:
        """Each changed file read and planned: by the executor's workers when it offers, else here."""
        import asyncio

        from batchsum.engine.executor import ReadsAhead
        from batchsum.engine.prepare import prepare_file

        remote = None
        if isinstance(executor, ReadsAhead):
            remote = executor.read_ahead([(ref, self._same_sha(ref)) for ref in refs])
        if remote is not None:
            async for pair in remote:
                yield pair
            return
        for ref in refs:
            if self.cfg.llm.enabled:
                # Reading and tokenizing happen off the event loop so requests already scheduled keep
                # flowing while the next file is prepared.
                prepared = await asyncio.to_thread(prepare_file, ref, self.cfg, self.tokenizer, self._same_sha(ref))
            else:
                prepared = prepare_file(ref, self.cfg, self.tokenizer, self._same_sha(ref))
            yield ref, prepared

    def _same_sha(self, ref: SourceRef) -> str | None:
        return touched_sha(self.manifest.get(ref.relpath), self.sig, self.cfg.out)

    def _settle(self, ref: SourceRef, prepared: Prepared) -> FilePlan | None:
        """Record what reading a file found; its plan, or None when it cannot be read or was only
        touched (then it is recorded as unchanged)."""
        rel = ref.relpath
        entry = self.manifest.get(rel)
        doc = prepared.doc
        if isinstance(doc, Problem):
            self._skip(doc, rel)
            self.progress.file_settled()
            return None
        for warning in doc.warnings:  # text kept despite a problem (bad cue timings, control characters)
            self.warnings.append(f"{ref.path}: {warning}")
            self.progress.event("file_warning", path=str(ref.path), warning=warning, level="warning")
        if doc.decode_note and doc.decode_note.startswith("lossy"):
            self.warnings.append(f"{ref.path}: {doc.decode_note}")
            self.progress.event("decode_lossy", path=str(ref.path), note=doc.decode_note, level="warning")
        plan = prepared.plan
        if plan is None:
            assert entry is not None  # only a file with a manifest entry is compared by content
            # Remember the new stat so the next run skips reading it.
            entry.size, entry.mtime_ns = doc.size, doc.mtime_ns
            self.state.save_entry(entry)
            self._unchanged(entry)
            return None
        self.planned += 1
        if not doc.text.strip():
            self.warnings.append(f"{ref.path}: empty file, nothing to summarize or keep")
            self.progress.event("file_empty", path=str(ref.path))
        if not plan.kept_whole:
            if entry is not None and entry.sha256 == doc.sha256 and entry.config_sig == self.sig:
                # Same source, same settings, a damaged tree: restore the recorded nodes, no new chain link.
                self.heal[rel] = entry
                plan.depth, plan.parent_id = entry.depth, entry.parent_id
            else:
                self._attach_prior(plan, entry)
            self.progress.nodes_planned(len(plan.nodes))
        return plan

    def _kept_whole(self, plan: FilePlan) -> NodeResult:
        """The final of a file short enough to be kept whole: its own text, ratio 1.0."""
        from batchsum.engine.nodes import kept_whole_key

        doc = plan.doc
        output = SummaryOutput(text=doc.text, backend="source", attempts=0)
        return NodeResult(plan.nodes[0], output, kept_whole_key(plan), doc.tokens, doc.tokens, reused=False)

    def _attach_prior(self, plan: FilePlan, entry: ManifestEntry | None) -> None:
        """Rolling chain: build the new final on the previous one, up to the depth cap."""
        if entry is None or entry.final_id is None or plan.final_id is None:
            return
        if entry.level == SummaryLevel.NONE.value:
            return  # the previous final is the old source itself, not a summary to build on
        if plan.level is SummaryLevel.BRIEF:
            return
        depth = entry.depth + 1
        if depth > self.cfg.max_chain_depth:
            self.progress.event("chain_reset", relpath=plan.doc.relpath, depth=entry.depth)
            return  # a fresh summary from the source stops drift
        from batchsum.summary_files import previous_final

        prior = previous_final(self.cfg.out, entry.relpath)
        if prior is None:
            return
        plan.prior_context = prior
        plan.depth = depth
        plan.parent_id = entry.final_key

    # ------------------------------------------------------------------ Driver
    def job(self, plan: FilePlan, node: PlannedNode, children: list[NodeResult], height: int) -> NodeJob:
        from batchsum.engine.nodes import make_job

        job = make_job(self.identity, self.cfg.llm, plan, node, children, height)
        healing = self.heal.get(plan.doc.relpath)
        if healing is not None:
            recorded = healing.node_keys.get(node.node_id)
            # The recorded node (a rolling final's key depends on a prior final no longer at hand).
            if recorded is not None and recorded != job.key and self.state.get_node(recorded) is not None:
                job.key = recorded
        return job

    def stored(self, job: NodeJob) -> SummaryOutput | None:
        return self.state.get_node(job.key)

    def node_finished(self, plan: FilePlan, job: NodeJob, output: SummaryOutput, reused: bool) -> NodeResult:
        result = NodeResult(
            job.node, output, job.key, job.request.input_tokens, self.tokenizer.count(output.text), reused
        )
        if not reused and output.llm_calls and self.cfg.metrics:
            self.journal.append(node_record(self.run_id, plan, result))  # spend survives a kill -9
        if not reused and len(plan.nodes) > 1 and "fallback" not in output.backend:
            # A single-node file is redone whenever it changes and its tree is written at once;
            # only multi-node trees gain from per-node records (resume, incremental reuse).
            self.state.put_node(job.key, output)
        self.progress.node_finished()
        return result

    def file_finished(self, plan: FilePlan, results: list[NodeResult], wall_ms: float) -> None:
        from batchsum.summary_files import write_tree

        doc = plan.doc
        rel = doc.relpath
        created = utc_now()
        try:
            live = write_tree(self.cfg.out, plan, results, self.stamp, created)
        except OSError as exc:
            # A foreign file where a tree folder must go (or a full or read-only disk): this file fails.
            from batchsum.errors import describe_os_error

            where = exc.filename or self.cfg.out / rel
            self.file_failed(plan, f"cannot write its summaries at {where}: {describe_os_error(exc)}", wall_ms)
            return
        final = next((r for r in results if r.node.level == 3), None)
        final_out = final.output_tokens if final is not None else 0
        existed = rel in self.manifest
        if existed:
            self.modified += 1
        else:
            self.added += 1
        entry = ManifestEntry(
            relpath=rel,
            root=self.roots[rel],
            size=doc.size,
            mtime_ns=doc.mtime_ns,
            sha256=doc.sha256,
            content_type=doc.content_type,
            level=plan.level.value,
            tokens=doc.tokens,
            doc_date=doc.doc_date,
            chunks=len(plan.chunks),
            node_ids=[r.node.node_id for r in results],
            node_keys={r.node.node_id: r.key for r in results},
            final_id=plan.final_id,
            final_key=final.key if final is not None else None,
            depth=plan.depth if plan.prior_context else 0,
            parent_id=plan.parent_id if plan.prior_context else None,
            indexed=False,
            updated_at=created,
            config_sig=self.sig,
            final_tokens=final_out,
            fallback_nodes=sum(1 for r in results if "fallback" in r.output.backend),
            final_stat=_final_stat(self.cfg.out, rel) if plan.final_id is not None else [],
        )
        self.state.save_entry(entry)
        self.manifest[rel] = entry
        if plan.final_id is not None or existed:
            self.to_index.append(rel)
            if self.cfg.index:
                self._hand_to_index(plan, live)
        self.levels[plan.level.value] += 1
        recs = [node_record(self.run_id, plan, r) for r in results]
        self.nodes.extend(recs)
        self.files.append(done_file_record(self.run_id, plan, results, recs, final_out, wall_ms))
        self.progress.event(
            "file_done",
            relpath=rel,
            summary_level=plan.level.value,
            content_type=doc.content_type,
            input_tokens=doc.tokens,
            output_tokens=final_out,
            nodes=len(results),
            recomputed=sum(1 for r in results if not r.reused),
        )
        self.progress.file_settled()

    def _hand_to_index(self, plan: FilePlan, live: list[TreeNode]) -> None:
        """Keep what the index needs of a written tree: its records and the text its spans point into."""
        from batchsum.index.records import DocUpdate, node_from_file

        nodes = [node_from_file(self.cfg.out, n.path, n.meta, n.body) for n in live]
        text = plan.doc.text
        source: str | None = None  # None: read back at indexing time, as a repair does
        if self.index_chars + len(text) <= INDEX_SOURCE_CHARS:
            if not self.cfg.redact_secrets:
                from batchsum.secrets import redact

                # Secrets never reach the index or a search snippet, whatever the run sends elsewhere.
                text = redact(text)[0]
            source = text
            self.index_chars += len(text)
        self.index_docs[plan.doc.relpath] = DocUpdate(plan.doc.relpath, nodes, source)

    def file_failed(self, plan: FilePlan, reason: str, wall_ms: float) -> None:
        from batchsum.engine.records import doc_file_record

        doc = plan.doc
        self.problems.append(Problem(str(doc.path), f"summarization failed: {reason}"))
        self.files.append(
            doc_file_record(self.run_id, doc, level=doc.level.value, status="failed", error=reason, wall_ms=wall_ms)
        )
        self.progress.event("file_failed", relpath=doc.relpath, error=reason, level="error")
        self.progress.file_settled()

    # ------------------------------------------------------------------ files not executed
    def _skip(self, problem: Problem, rel: str | None) -> None:
        self.problems.append(problem)
        self.progress.event("file_skipped", path=problem.path, reason=problem.reason, level="warning")
        if rel is not None:
            self.files.append(FileRecord(run_id=self.run_id, relpath=rel, status="skipped", error=problem.reason))

    def _unchanged(self, entry: ManifestEntry) -> None:
        self.levels[entry.level] += 1
        rec = entry_file_record(self.run_id, entry, "unchanged")
        if entry.final_id is not None:  # an unchanged file keeps the output size of its existing final
            if entry.final_tokens:
                rec.output_tokens = entry.final_tokens
            else:
                from batchsum.summary_files import final_tokens

                rec.output_tokens = final_tokens(self.cfg.out, entry.relpath)
            rec.compression_ratio = ratio(rec.output_tokens, rec.input_tokens)
        self.files.append(rec)
        self.progress.file_settled()

    def _delete(self, entry: ManifestEntry) -> None:
        """Soft-delete the tree of a source that disappeared."""
        from batchsum.tree import soft_delete_tree

        soft_delete_tree(self.cfg.out, entry.relpath, self.stamp)
        self.state.remove_entry(entry.relpath)
        self.deleted.append(entry.relpath)
        self.files.append(entry_file_record(self.run_id, entry, "deleted"))
        self.progress.event("file_deleted", relpath=entry.relpath)

    # ------------------------------------------------------------------ end of run
    def _finish(self) -> RunResult:
        cfg = self.cfg
        wrote = bool(self.planned or self.state.writes)
        if wrote:
            from batchsum.tree import flush_to_disk

            # One flush of the output's filesystem for the whole run's trees and manifest.
            flush_to_disk(cfg.out)
        self._sync_index()
        self.progress.end_phase()
        self.state.write_snapshot()
        self._write_index_page(wrote)
        self._record_unreached()
        failed = sum(1 for f in self.files if f.status == "failed")
        fell_back = sum(f.fallback_nodes for f in self.files if f.status == "done")
        status = "aborted" if self.aborted else ("partial" if failed or self.problems else "ok")
        if status == "ok" and fell_back:
            status = "degraded"  # finished, but not with the backend it was configured for
        name, model = self.identity
        run = run_record(
            run_id=self.run_id,
            started_at=self.started,
            command=_scrubbed(cfg.command_line),
            backend=name,
            model=model,
            status=status,
            out=cfg.out,
            files=self.files,
            nodes=self.nodes,
            wall_ms=(time.perf_counter() - self.t0) * 1000,
        )
        if cfg.metrics:
            self.progress.phase("metrics", total=None, unit="table")
            warning = wrapup.record_metrics(cfg, run, self.files, self.nodes)
            self.progress.end_phase()
            self.journal.close(recorded=warning is None)
            if warning:
                self.warnings.append(warning)
                self.metrics_failed = True
            if usage_dir(cfg.state_dir).is_dir():  # one stat: journals of killed runs, if any
                warning = wrapup.fold_interrupted_usage(cfg, self.run_id)
                if warning:
                    self.warnings.append(warning)
        if wrote and not self.aborted:
            wrapup.collect_garbage(cfg, self.state, self.progress)
        if cfg.git:
            from batchsum.gitver import commit_run

            self.progress.phase("git", total=None, unit="commit")
            commit_run(cfg.out, added=self.added, changed=self.modified, deleted=len(self.deleted), run_id=self.run_id)
        self.progress.end_phase()
        exit_code = 1 if (self.aborted or failed or self.problems or self.index_failed or self.metrics_failed) else 0
        if exit_code == 0 and status == "degraded":
            exit_code = EXIT_DEGRADED
        self.progress.event("run_finished", run_id=self.run_id, status=status, exit_code=exit_code, wall_ms=run.wall_ms)
        return RunResult(
            run=run,
            files=self.files,
            nodes=self.nodes,
            problems=self.problems,
            levels=self.levels,
            exit_code=exit_code,
            out=cfg.out,
            warnings=self.warnings,
            tokenizer=self.tokenizer_.name if self.tokenizer_ is not None else "",
            stopped_by=_cause(self.aborted) if self.aborted is not None else None,
        )

    def _write_index_page(self, wrote: bool) -> None:
        """The root index.md, rewritten when the tree changed (or when it is missing)."""
        from batchsum.navigation import IndexRow, index_path, write_index

        if not (wrote or self.deleted) and index_path(self.cfg.out).exists():
            return
        rows = [
            IndexRow(e.relpath, e.content_type, e.level, e.doc_date, e.tokens, e.final_tokens)
            for e in self.manifest.values()
            if e.final_id is not None
        ]
        try:
            write_index(self.cfg.out, rows)
        except OSError as exc:  # a convenience page never fails a run whose trees are written
            self.warnings.append(f"index page not written: {exc}")

    def _sync_index(self) -> None:
        cfg = self.cfg
        if not cfg.index:
            return
        if not self.to_index and not self.deleted:
            # A quiet run still repairs an interrupted, partial or outdated index (a few stats, no Chroma).
            from batchsum.index.state import index_needs_work

            if index_needs_work(cfg) is None:
                return
        changed = sorted(set(self.to_index))
        deleted = sorted(set(self.deleted))
        self.progress.phase("indexing", total=len(changed) + len(deleted), unit="file")
        warning = wrapup.sync_index(cfg, changed, deleted, self.index_docs, self.embedded, self.progress)
        self.index_docs.clear()
        if warning is None:
            self.progress.advance(len(changed) + len(deleted))
        else:
            self.index_failed = True
            self.warnings.append(warning)
            return
        self.state.mark_indexed(changed)
        for rel in changed:
            e = self.manifest.get(rel)
            if e is not None:
                e.indexed = True


def _cause(exc: AbortRun) -> str:
    """Which node stopped the run and why, in one line."""
    node = f"node {exc.node_id}: " if exc.node_id else ""
    cause = f" ({exc.cause})" if exc.cause is not None and str(exc.cause) not in str(exc) else ""
    return f"{node}{exc}{cause}"


def _final_stat(out: Path, relpath: str) -> list[int]:
    """[size, mtime_ns] of a final as this run left it (see changes.tree_intact)."""
    from batchsum.tree import node_path

    try:
        st = node_path(out, relpath, 3, None).stat()
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns]


def _scrubbed(command_line: str) -> str:
    # The secrets module compiles its rule table on import: only a run that records itself pays for it.
    from batchsum.secrets import scrub_command

    return scrub_command(command_line)
