"""The changed files, read and planned, as the stream of plans an executor runs.

Each file is read and planned by the executor's workers when it offers to (:class:`ReadsAhead`), else
here. What reading found is settled before the plan goes on: an unreadable file is skipped, as is one
that is no source (an empty file: its earlier summaries, if any, go), a file only touched is recorded
as unchanged, a file short enough is kept whole at once, and a changed file is chained onto its
previous final (or, with a damaged tree, set to restore its recorded nodes).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from batchsum.engine.changes import EDITED, FELL_BACK, REDATED, change_reason, earlier_summarizer, read_anew
from batchsum.engine.driver import RunDriver
from batchsum.engine.executor import Executor, ReadsAhead
from batchsum.engine.prepare import Prepared, attach_prior, prepare_file
from batchsum.planning import FilePlan
from batchsum.state import ManifestEntry
from batchsum.walk import Problem, SourceRef

LLM_FILES_AHEAD = 2  # files an LLM run reads and plans at once (worker threads)


async def plan_stream(refs: list[SourceRef], executor: Executor, driver: RunDriver) -> AsyncIterator[FilePlan]:
    """The plans of ``refs`` that need the executor, in order; the rest are settled on the way."""
    async for ref, prepared in _prepared(refs, executor, driver):
        plan = settle(ref, prepared, driver)
        if plan is None:
            continue
        if plan.kept_whole:
            driver.keep_whole(plan)  # nothing to summarize: written now, without the executor
        else:
            yield plan


async def _prepared(
    refs: list[SourceRef], executor: Executor, driver: RunDriver
) -> AsyncIterator[tuple[SourceRef, Prepared]]:
    """Each changed file read and planned: by the executor's workers when it offers, else here."""
    committer = driver.committer
    if isinstance(executor, ReadsAhead):
        remote = executor.read_ahead([(ref, committer.known(ref)) for ref in refs])
        if remote is not None:
            async for pair in remote:
                yield pair
            return
    cfg = driver.cfg
    if not cfg.llm.enabled:
        for ref in refs:
            yield ref, prepare_file(ref, cfg, driver.tokenizer(), committer.known(ref))
        return
    # Reading and tokenizing happen off the event loop so requests already scheduled keep flowing,
    # two files at a time: tiktoken releases the GIL, and with many requests in flight the pace at
    # which files are planned is the pace at which requests can start.
    pending: deque[tuple[SourceRef, asyncio.Future[Prepared]]] = deque()
    try:
        for ref in refs:
            work = asyncio.to_thread(prepare_file, ref, cfg, driver.tokenizer(), committer.known(ref))
            pending.append((ref, asyncio.ensure_future(work)))
            if len(pending) >= LLM_FILES_AHEAD:
                done, prepared = pending.popleft()
                yield done, await prepared
        while pending:
            done, prepared = pending.popleft()
            yield done, await prepared
    finally:
        for _, prepared in pending:  # a run that stops: the files being read are not waited for
            prepared.cancel()


def settle(ref: SourceRef, prepared: Prepared, driver: RunDriver) -> FilePlan | None:
    """Record what reading a file found; its plan, or None when it cannot be read or was only
    touched (then it is recorded as unchanged)."""
    ledger, committer, progress = driver.ledger, driver.committer, driver.progress
    rel = ref.relpath
    entry = committer.manifest.get(rel)
    doc = prepared.doc
    if isinstance(doc, Problem):
        if not doc.failure and entry is not None:
            doc = driver.forget(entry, doc)
        ledger.skipped(doc, rel)
        progress.file_settled()
        return None
    for warning in doc.warnings:  # text kept despite a problem (bad cue timings, control characters)
        ledger.warn(f"{ref.path}: {warning}", "file_warning", notice=True, path=str(ref.path), warning=warning)
    if doc.decode_note and doc.decode_note.startswith("lossy"):
        ledger.warn(
            f"{ref.path}: {doc.decode_note}", "decode_lossy", notice=True, path=str(ref.path), note=doc.decode_note
        )
    plan = prepared.plan
    if plan is None:
        assert entry is not None  # only a file with a manifest entry is compared by content
        if committer.touched(entry, doc):
            driver.feed.changed.append(rel)  # its nodes name the new bytes' hash now
        ledger.unchanged(entry, driver.cfg.out)
        return None
    ledger.planned += 1
    same_bytes = entry is not None and entry.sha256 == doc.sha256
    # A file read as another text (a new reader version) is summarized from it, never healed from its
    # recorded nodes; an entry from before texts were recorded is taken as read alike.
    same_text = entry is not None and entry.text_sha in ("", doc.text_sha)
    if read_anew(entry, doc.sha256, doc.text_sha, committer.sig):
        ledger.reread += 1
    if entry is not None:  # why a file the user did not edit is planned again, said once for the run
        reason = change_reason(entry, doc, driver.cfg, committer.sig)
        if reason != EDITED and (old := earlier_summarizer(entry, driver.cfg, committer.sig)) is not None:
            ledger.redone[old] += 1
        ledger.redated += reason == REDATED
        if reason == FELL_BACK:
            ledger.fell_back.append(entry.fallback_nodes)
    if not plan.kept_whole:
        if entry is not None and same_bytes and same_text and committer.sig.holds(entry):
            # Same source, same settings, a damaged tree: restore the recorded nodes, no new chain link.
            driver.heal[rel] = entry
            plan.depth, plan.parent_id = entry.depth, entry.parent_id
        else:
            _attach_prior(plan, entry, driver)
        progress.nodes_planned(len(plan.nodes))
    return plan


def _attach_prior(plan: FilePlan, entry: ManifestEntry | None, driver: RunDriver) -> None:
    """Rolling chain: build the new final on the previous one, up to the depth cap."""
    root = driver.committer.roots.get(plan.doc.relpath)

    def reset(depth: int) -> None:
        driver.progress.event("chain_reset", relpath=plan.doc.relpath, depth=depth)

    attach_prior(plan, entry, driver.cfg, root, reset)
