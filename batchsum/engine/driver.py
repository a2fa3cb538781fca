"""The run's side of the executor seam: what happens to each node and each file as it finishes.

:class:`RunDriver` implements :class:`~batchsum.engine.executor.Driver`. It builds each node's job,
hands back stored outputs, records computed ones (node store, usage journal), and settles each file:
the committer writes its tree and manifest entry, the ledger counts it, the index feed keeps it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace

from batchsum.config import RunConfig
from batchsum.engine.changes import backend_identity
from batchsum.engine.committer import Committed, Committer
from batchsum.engine.index_feed import IndexFeed
from batchsum.engine.kept_whole import kept_whole_output
from batchsum.engine.ledger import Ledger
from batchsum.engine.nodes import NodeJob, make_job
from batchsum.engine.progress import Progress
from batchsum.engine.records import NodeResult, node_record
from batchsum.errors import describe_os_error
from batchsum.metrics.usage_journal import UsageJournal
from batchsum.model import SummaryOutput
from batchsum.planning import FilePlan, PlannedNode
from batchsum.state import ManifestEntry
from batchsum.tokens import Tokenizer, get_tokenizer
from batchsum.walk import Problem


class LazyTokenizer:
    """The run's tokenizer, loaded on first use: an unchanged re-run needs none."""

    def __init__(self, cfg: RunConfig, ledger: Ledger) -> None:
        self.encoding = cfg.encoding
        self.ledger = ledger
        self.loaded: Tokenizer | None = None

    def __call__(self) -> Tokenizer:
        if self.loaded is None:
            self.loaded = get_tokenizer(self.encoding)
            if not self.loaded.exact:
                self.ledger.warn(
                    f"tiktoken {self.encoding} unavailable offline; token counts are ~4 chars/token estimates"
                )
        return self.loaded

    @property
    def name(self) -> str:
        """The tokenizer's name, or "" when the run needed none."""
        return self.loaded.name if self.loaded is not None else ""


class RunDriver:
    """The :class:`~batchsum.engine.executor.Driver` of one run."""

    def __init__(
        self,
        cfg: RunConfig,
        committer: Committer,
        ledger: Ledger,
        feed: IndexFeed,
        progress: Progress,
        tokenizer: LazyTokenizer,
        journal: UsageJournal,
    ) -> None:
        self.cfg = cfg
        self.committer = committer
        self.ledger = ledger
        self.feed = feed
        self.progress = progress
        self.tokenizer = tokenizer
        self.identity = backend_identity(cfg)
        self.journal = journal
        self.heal: dict[str, ManifestEntry] = {}  # relpaths whose unchanged source has a damaged tree
        self._commits: set[asyncio.Task[None]] = set()  # files being written by the committer's writer thread
        self._unbuilt: dict[str, int] = {}  # per file, its chunks whose request is not built yet

    def job(self, plan: FilePlan, node: PlannedNode, children: list[NodeResult], height: int) -> NodeJob:
        job = make_job(self.identity, self.cfg.llm, plan, node, children, height, self.cfg.final_words)
        healing = self.heal.get(plan.doc.relpath)
        if healing is not None and all(c.reused for c in children):
            recorded = healing.node_keys.get(node.node_id)
            # The recorded node (a rolling final's key depends on a prior final no longer at hand), unless a
            # child was made again by this run: a node over a redone fallback is made from the new text.
            if recorded is not None and recorded != job.key and self.committer.stored(recorded) is not None:
                job.key = recorded
        if node.chunk is not None:
            self._chunk_built(plan)
        return job

    def _chunk_built(self, plan: FilePlan) -> None:
        """Count a chunk's request built; after the last, the document's text is let go unless the
        index keeps it (the requests carry their own slices)."""
        rel = plan.doc.relpath
        left = self._unbuilt.get(rel, len(plan.chunks)) - 1
        if left > 0:
            self._unbuilt[rel] = left
            return
        self._unbuilt.pop(rel, None)
        if not self.feed.keeps_text(plan):
            plan.release_text()

    def journal_requests(self, *senders: object) -> None:
        """Journal each request the run sends as its answer arrives: ``senders`` are the run's backend
        (an LLM backend's client) and its executor (a Ray executor's workers report through it). A run
        killed while a node waits for its next request (a facets answer to ask again, behind ``--rpm``)
        has paid for the first, which no finished node's line would count."""
        for sender in senders:
            target = getattr(sender, "client", sender)
            if self.cfg.metrics and hasattr(target, "on_request"):
                target.on_request = self.journal.paid

    def stored(self, job: NodeJob) -> SummaryOutput | None:
        return self.committer.stored(job.key)

    def node_finished(self, plan: FilePlan, job: NodeJob, output: SummaryOutput, reused: bool) -> NodeResult:
        count = self.tokenizer().count(output.text)
        result = NodeResult(job.node, output, job.key, job.request.input_tokens, count, reused)
        if not reused:
            self.ledger.computed.add(job.key)
        if not reused and output.llm_calls and self.cfg.metrics:
            self.journal.append(node_record(self.ledger.run_id, plan, result))  # spend survives a kill -9
        if not reused and "fallback" not in output.backend:
            # A single-node file's final too: a settings change that leaves its key as it was (another
            # HIERARCHICAL word cap) reuses it instead of summarizing it again (a paid request with an LLM).
            self.committer.store_node(job.key, output)
        if self.committer.writer is not None and job.node.level < 3 and len(plan.nodes) > 1:
            self.committer.write_node_later(plan, result)  # its file's commit then writes only the rest
        self.progress.node_finished()
        return result

    def file_finished(self, plan: FilePlan, results: list[NodeResult], wall_ms: float) -> None:
        if self.committer.writer is not None:
            # Written on the writer thread; the file is settled here once its tree and entry are on disk.
            task = asyncio.get_running_loop().create_task(self._commit_later(plan, results, wall_ms))
            self._commits.add(task)
            task.add_done_callback(self._commits.discard)
            return
        try:
            committed = self.committer.commit_file(plan, results)
        except OSError as exc:
            self._commit_failed(plan, exc, wall_ms)
            return
        self._committed(plan, results, committed, wall_ms)

    async def _commit_later(self, plan: FilePlan, results: list[NodeResult], wall_ms: float) -> None:
        try:
            committed = await asyncio.wrap_future(self.committer.commit_later(plan, results))
        except OSError as exc:
            self._commit_failed(plan, exc, wall_ms)
            return
        self._committed(plan, results, committed, wall_ms)

    async def drain(self) -> None:
        """Wait until every finished file handed to the writer thread is written and settled."""
        while self._commits:
            await asyncio.gather(*self._commits)

    def _commit_failed(self, plan: FilePlan, exc: OSError, wall_ms: float) -> None:
        # A foreign file where a tree folder must go (or a full or read-only disk): this file fails.
        where = exc.filename or self.cfg.out / plan.doc.relpath
        self.file_failed(plan, f"cannot write its summaries at {where}: {describe_os_error(exc)}", wall_ms)

    def _committed(self, plan: FilePlan, results: list[NodeResult], committed: Committed, wall_ms: float) -> None:
        if plan.final_id is not None or committed.existed:
            self.feed.written(plan, committed.live)
        final_out = committed.entry.final_tokens
        self.ledger.done(plan, results, existed=committed.existed, final_out=final_out, wall_ms=wall_ms)

    def file_failed(self, plan: FilePlan, reason: str, wall_ms: float, spent: Iterable[NodeResult] = ()) -> None:
        self.committer.discard_later(plan)  # what was written of its new tree as its nodes finished
        self.ledger.failed(plan, reason, wall_ms, list(spent))

    def file_stopped(self, plan: FilePlan, spent: Iterable[NodeResult]) -> None:
        self.committer.discard_later(plan)  # as for a failed file: its tree is not committed
        self.ledger.stopped(plan, list(spent))

    def forget(self, entry: ManifestEntry, problem: Problem) -> Problem:
        """A file with summaries that is no source now (emptied): its tree moves to ``deleted/`` and its
        entry goes, as a vanished source's do, so search and the digests stop showing text it no longer
        holds. Returns ``problem`` saying so; a tree that cannot be moved stays, with the reason why."""
        try:
            self.committer.delete(entry)
        except OSError as exc:  # the next run tries again; this one goes on
            return replace(problem, reason=f"{problem.reason}; its summaries stay: {describe_os_error(exc)}")
        if entry.final_id is None:  # nothing was written for it (an empty file an older version recorded)
            return problem
        self.ledger.deleted.append(entry.relpath)  # out of the index; its periods' digests are redone
        return replace(problem, reason=f"{problem.reason}; its earlier summaries moved to deleted/")

    def keep_whole(self, plan: FilePlan) -> None:
        """Commit a file short enough to be its own final: its text, ratio 1.0, no backend."""
        doc = plan.doc
        output, key = kept_whole_output(plan)
        known = self.committer.manifest.get(doc.relpath)
        reused = known is not None and known.final_key == key  # planned again, its final already written
        self.file_finished(plan, [NodeResult(plan.nodes[0], output, key, doc.tokens, doc.tokens, reused)], 0.0)
