"""The execute stage of a run: the changed files read, planned and summarized on an executor.

Everything a run needs only when some file changed lives behind this module (the event loop, the
executors, the backends, the tokenizer, planning), so an unchanged nightly re-run never loads it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from batchsum.backends.registry import check_llm_server, make_backends
from batchsum.config import RunConfig
from batchsum.digests import aupdate_digests
from batchsum.engine.committer import Committer
from batchsum.engine.driver import LazyTokenizer, RunDriver
from batchsum.engine.executor import EmbedsAhead, ExecutorFactory
from batchsum.engine.executor_choice import executor_for
from batchsum.engine.index_feed import IndexFeed
from batchsum.engine.ledger import Ledger
from batchsum.engine.plans import plan_stream
from batchsum.engine.process_executor import ProcessExecutor
from batchsum.engine.progress import Progress
from batchsum.engine.stopping import BY_CTRL_C, BY_SIGTERM, SUMMARIZING
from batchsum.errors import AbortRun, Interrupted, LLMUnavailable
from batchsum.metrics.usage_journal import UsageJournal
from batchsum.walk import SourceRef

log = logging.getLogger(__name__)


@dataclass
class Executed:
    """What the execute stage hands to the end of the run."""

    feed: IndexFeed  # the trees written, for the search index
    tokenizer: str  # the tokenizer's name ("" when none was needed)
    digests: Any = None  # the DigestRun made on the run's executor before it closed (or what failed), if any


def execute(
    cfg: RunConfig,
    refs: list[SourceRef],
    factory: ExecutorFactory | None,
    committer: Committer,
    ledger: Ledger,
    progress: Progress,
    journal: UsageJournal,
) -> Executed:
    """Prepare and execute the changed files ``refs`` on the executor ``factory`` builds (default:
    :func:`executor_for`); every file ends in ``ledger``, every write goes through ``committer``."""
    tokenizer = LazyTokenizer(cfg, ledger)
    feed = IndexFeed(cfg)
    if not _server_usable(cfg, ledger, progress):
        return Executed(feed, tokenizer.name)
    driver = RunDriver(cfg, committer, ledger, feed, progress, tokenizer, journal)
    # The executor first: worker processes start while this one loads the backend.
    factory = factory or executor_for(cfg, refs)
    backend, fallback = make_backends(cfg, tokenizer())
    executor = factory(backend, fallback)
    driver.journal_requests(backend, executor)

    digests: Any = None
    if cfg.llm.enabled:
        # The event loop waits for answers and sends requests; the files are written beside it.
        committer.start_writer()

    async def go() -> None:
        nonlocal digests
        SUMMARIZING.loop, SUMMARIZING.task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            if SUMMARIZING.requested:  # SIGTERM before the run began summarizing
                raise asyncio.CancelledError
            await executor.execute(plan_stream(refs, executor, driver), driver)
            await driver.drain()  # the digests read the trees and entries just written
            if cfg.digests and (cfg.llm.enabled or isinstance(executor, ProcessExecutor)):
                # The digests' requests share the run's backend and limits (Ray: the cluster's limiter),
                # or its worker processes: an extractive run's digests are otherwise summarized one by one
                # in this process after the files (~10% of a first run, make bench).
                if not cfg.llm.enabled:
                    committer.start_flush()  # the trees' flush goes on meanwhile (an LLM's spend waits)
                try:
                    digests = await aupdate_digests(cfg, committer.manifest, committer.state, tokenizer(),
                                                    ledger.run_id, executor.compute,  # type: ignore[attr-defined]
                                                    committer.finals)  # fmt: skip
                except Exception as exc:  # a digest never fails the run: the orchestrator reports it
                    digests = exc
        except AbortRun as exc:
            ledger.aborted = exc
        except asyncio.CancelledError:  # Ctrl-C (asyncio.run cancels this task) or request_stop (SIGTERM)
            ledger.aborted = Interrupted(BY_SIGTERM if SUMMARIZING.requested else BY_CTRL_C)
        finally:
            SUMMARIZING.loop = SUMMARIZING.task = None
            try:
                await driver.drain()  # the files that finished are committed, even when the run stops
            finally:
                await executor.aclose()

    try:
        asyncio.run(go())
    finally:
        committer.stop_writer()
    for note in executor.notes():
        ledger.warn(note.message, note.event, reason=note.message)
    if isinstance(executor, EmbedsAhead):
        feed.embedded = executor.embeddings()
    return Executed(feed, tokenizer.name, digests)


def _server_usable(cfg: RunConfig, ledger: Ledger, progress: Progress) -> bool:
    """Before any work: a server that refuses connections or rejects the key stops the run."""
    if not cfg.llm.enabled:
        return True
    try:
        check_llm_server(cfg.llm)
    except LLMUnavailable as exc:
        ledger.aborted = exc
        log.debug("%s", exc)  # the caller reports it (RunResult.stopped_by)
        progress.event("run_stopped", reason=str(exc), level="error")
        return False
    return True
