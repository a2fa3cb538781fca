"""The run as a script: diff -> prepare -> execute -> finish.

* **diff** (:mod:`~batchsum.engine.changes`): walk the corpus and compare it with the manifest; an
  unchanged file is settled from its entry without being read, a deleted one is soft-deleted.
* **prepare** (:mod:`~batchsum.engine.plans`): read and plan each changed file, by the executor's
  workers when it has them, and settle what reading found.
* **execute** (:mod:`~batchsum.engine.executor`): run every plan's node graph; the
  :class:`~batchsum.engine.driver.RunDriver` records each node at once (crash-safe resume) and commits
  each finished file (tree, then manifest entry) before the next one finishes.
* **finish**: flush, index, metrics, old records, git; the
  :class:`~batchsum.engine.ledger.Ledger` turns the tallies into the run's status and exit code.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from batchsum import remembered
from batchsum.config import RunConfig
from batchsum.digest_state import digests_pending, retire_digests
from batchsum.engine import wrapup
from batchsum.engine.changes import Diff, Signature, backend_and_model, backend_identity, diff, passed_over_note
from batchsum.engine.committer import Committer, new_run_id
from batchsum.engine.ledger import Ledger
from batchsum.engine.progress import Progress, show_bars
from batchsum.engine.records import RunResult, run_record, utc_now
from batchsum.engine.stopping import BY_CTRL_C
from batchsum.errors import AbortRun, Interrupted, RunInterrupted, describe_os_error
from batchsum.gitver import commit_run, ensure_repo
from batchsum.index.records import DocUpdate, node_from_file
from batchsum.index.state import index_needs_work
from batchsum.lazy import load
from batchsum.lock import RunLock
from batchsum.metrics.store import check_db_header
from batchsum.metrics.usage_journal import UsageJournal, left_behind
from batchsum.model import NodeRecord, RunRecord
from batchsum.secrets import scrub_command
from batchsum.settings import validate
from batchsum.tokens import get_tokenizer
from batchsum.walk import SourceRef, require_paths
from batchsum.warmup import start_index_warmup, start_tokenizer

if TYPE_CHECKING:
    from batchsum.digests import DigestRun
    from batchsum.engine.execute import Executed
    from batchsum.engine.executor import ExecutorFactory
    from batchsum.state import ManifestEntry

__all__ = ["run"]

# What an unchanged re-run never loads (tests/test_rerun_fast_path.py), loaded when a run has work for it:
# the choice of executor (which starts its worker processes), prepare and execute (the event loop, the
# executors, the backends, the tokenizer), the digests of the periods, the index stack (numpy,
# SQLite, Chroma), and the plan that counts what changed settings would cost before a run refuses them.
_WORK: dict[str, str] = {
    "executor": "batchsum.engine.executor_choice:executor_for",
    "execute": "batchsum.engine.execute:execute",
    "digests": "batchsum.digests:update_digests",
    "index": "batchsum.index.store:sync_index",
    "preview": "batchsum.engine.preview:preview",
}


def run(cfg: RunConfig, *, executor: ExecutorFactory | None = None) -> RunResult:
    """Summarize ``cfg.paths`` into ``cfg.out`` under the output's lock; return what was done.

    ``executor`` builds the executor from the backends (default: :func:`executor_for`). Never raises
    for a single bad file: it is recorded as a problem and the batch goes on.
    """
    validate(cfg)
    if not cfg.skip_missing:  # before the lock: a mistyped path must not leave an empty output folder behind
        require_paths(cfg.paths)
    if cfg.executor == "ray":  # before the lock too: a cluster that is not there, or refuses us, leaves no folder
        load("batchsum.engine.ray_probe:require_ray")(cfg.ray_address)
    bars = show_bars(cfg.quiet, cfg.progress)
    with Progress(cfg.log_file, cfg.log_format, bars=bars) as progress, RunLock(cfg.out, wait=cfg.wait_lock) as lock:
        if lock.stale:
            progress.event("stale_lock_taken_over", level="warning", previous=lock.stale)
        if cfg.metrics and cfg.metrics_path.exists():
            # 16 bytes read: a damaged metrics database stops the run before any work (exit 2),
            # instead of every night's metrics being dropped with a warning nobody reads.
            check_db_header(cfg.metrics_path)
        result = _run(cfg, progress, executor)
    if result.stopped_by == BY_CTRL_C:
        raise RunInterrupted(result)  # recorded and unlocked: now the caller's (a script looping over folders stops)
    return result


def _check_remembered(
    cfg: RunConfig,
    walked: Mapping[str, str],
    manifest: Mapping[str, ManifestEntry],
    sig: Signature,
    ledger: Ledger,
) -> None:
    """Compare the run's settings with the ones the output folder remembers (raises SettingsChanged
    when an LLM would redo files or digests unconfirmed); a change is a warning and a ``settings_changed``
    event. Only the files this run walks count: other corpora in the folder are not redone (their digests
    are, under another backend or model)."""
    mine = [e for e in map(manifest.get, walked) if e is not None]

    def cost() -> remembered.Cost:  # what `plan` with these options counts (stored summaries not asked again)
        plan = load(_WORK["preview"])(cfg)
        return remembered.Cost(int(plan.llm_calls), tuple(plan.periods.remade_names()) if plan.periods else ())

    notice = remembered.check(cfg, mine, sig, confirmed=cfg.yes or cfg.rebuild, cost=cost)
    if notice is not None:
        changes = [str(c) for c in notice.changes]
        ledger.warn(
            notice.message, "settings_changed", notice=True, changes=changes, redo=notice.redo, files=notice.total
        )


@runtime_checkable
class _JoinsFirst(Protocol):
    """An executor factory that joins its cluster before it builds the executor (a Ray run's)."""

    def connect(self) -> None: ...

    def release(self) -> None: ...


def _join_cluster(
    cfg: RunConfig, todo: Sequence[SourceRef], factory: ExecutorFactory | None, ledger: Ledger
) -> ExecutorFactory | None:
    """The run's factory, its Ray joined or started when it has work: before the run records anything (its
    settings, usage journal, sources moved aside), so a ``ray.init`` that fails (Ray versions apart, a head
    gone since ``require_ray``) refuses the run (RayUnavailable) and leaves the next one nothing to resume.
    A SIGTERM meanwhile stops the run before any file (``ledger.aborted``), as one before summarizing does."""
    if not todo or (factory is None and cfg.executor != "ray"):
        return factory
    factory = factory or load(_WORK["executor"])(cfg, todo)
    if isinstance(factory, _JoinsFirst):
        try:
            factory.connect()
        except Interrupted as exc:
            ledger.aborted = exc
    return factory


def _start_work(cfg: RunConfig, todo: Sequence[SourceRef], factory: ExecutorFactory | None) -> ExecutorFactory | None:
    """The executor chosen and the tokenizer and index loading in the background, for a run with ``todo``."""
    if not todo:
        return factory
    if factory is None:
        # Chosen now, so worker processes start (importing the summarizer on another core) while this
        # one loads the run's work: 0.1-0.3 s sooner than from execute (make bench). First: the
        # tokenizer's thread below holds the GIL for tens of milliseconds at a time.
        factory = load(_WORK["executor"])(cfg, todo)
    # Loaded in the background while the changed files are read; an unchanged re-run loads neither.
    start_tokenizer(cfg.encoding)
    if cfg.index:
        start_index_warmup(embed_locally=not cfg.embed_base_url)
    return factory


def _settle(d: Diff, committer: Committer, ledger: Ledger, cfg: RunConfig) -> None:
    """The diff's vanished sources moved aside and its unchanged ones counted, re-homed first where the corpus
    is read from another folder now (their links point there)."""
    for entry in d.deleted:
        committer.delete(entry)
        ledger.deleted_source(entry)
    for entry in d.unchanged:
        if (source := d.rehomed.get(entry.relpath)) is not None:
            committer.rehome(entry, d.roots[entry.relpath], Path(source))
        ledger.unchanged(entry, cfg.out)


def _run(cfg: RunConfig, progress: Progress, factory: ExecutorFactory | None) -> RunResult:
    started, t0 = utc_now(), time.perf_counter()
    run_id = new_run_id()
    ledger = Ledger(run_id, progress)
    progress.event("run_started", run_id=run_id, out=str(cfg.out))
    if cfg.git:
        ensure_repo(cfg.out)
    committer = Committer(cfg, run_id)
    journal = UsageJournal(cfg.state_dir, run_id)  # LLM spend, appended as each node finishes

    # diff: unchanged files are settled from the manifest, deleted ones soft-deleted
    d = diff(cfg, committer.manifest, committer.sig)
    factory = _join_cluster(cfg, d.todo, factory, ledger)
    name, model = backend_and_model(cfg)
    to_index = list(d.unindexed)
    docs: dict[str, DocUpdate] = {}
    embedded: Mapping[str, Any] = {}
    tokenizer = cfg.encoding  # named on a night that loaded none too: --json's key keeps one meaning
    made: Any = None  # digests made on the run's executor (an LLM's, or an extractive run's workers)
    settings = remembered.saved(cfg.out) if cfg.remember else None
    try:
        if cfg.remember:
            _check_remembered(cfg, d.roots, committer.manifest, committer.sig, ledger)
        if cfg.metrics:  # a run killed from here on is recorded by the next one as interrupted (not one refused)
            journal.start(started_at=started, command=scrub_command(cfg.command_line), backend=name, model=model)
            ledger.file_journal = journal.file_done
        factory = _start_work(cfg, d.todo, factory)
        committer.roots, committer.names = d.roots, d.names
        for problem in d.problems:
            ledger.skipped(problem, problem.relpath)  # a source file skipped while walking counts as skipped
        if (note := passed_over_note(d.passed_over)) is not None:
            ledger.warn(note, "passed_over", notice=True, counts=dict(d.passed_over))
        progress.start(d.files)
        _settle(d, committer, ledger, cfg)
        if d.todo and ledger.aborted is None:  # prepare + execute (none after a SIGTERM while Ray started)
            executed: Executed = load(_WORK["execute"])(cfg, d.todo, factory, committer, ledger, progress, journal)
            to_index += executed.feed.changed
            docs, embedded, tokenizer = executed.feed.docs, executed.feed.embedded, executed.tokenizer or tokenizer
            made = executed.digests
    finally:
        progress.stop()
        if isinstance(factory, _JoinsFirst):  # Ray joined for a run that stopped before its executor took it
            factory.release()
    ledger.say_reread()
    if cfg.remember and ledger.aborted is not None and not (committer.wrote or ledger.computed):
        remembered.put_back(cfg.out, settings)  # a run that made nothing holds the folder to nothing

    # finish: flush, index, snapshot, records, metrics, old records, git
    wrote = bool(ledger.planned or committer.wrote)
    if wrote:
        _stored(ledger, committer.flush)
    gone: list[str] = []  # index documents that are not sources: digests of periods with no files left
    pages: dict[str, str] = {}  # the digests redone, by period id, for the index page
    usage = _update_digests(cfg, committer, ledger, wrote, to_index, docs, gone, progress, made, pages)
    if cfg.index:
        _sync_index(cfg, to_index, ledger, committer, docs, embedded, progress, gone)
    progress.end_phase()
    _stored(ledger, committer.write_snapshot)
    # A month's summary is on the index page: digests redone on a night with no file changed rewrite it too.
    # A run stopped before it wrote anything (an LLM server that refused the first request) leaves no page.
    if ledger.aborted is None or committer.wrote:
        warning = committer.write_index_page(wrote or bool(ledger.deleted) or bool(usage[3]), pages)
        if warning is not None:
            ledger.warn(warning)
    ledger.unreached(d.todo)
    record = run_record(
        run_id=run_id,
        started_at=started,
        command=scrub_command(cfg.command_line),
        backend=name,
        model=model,
        status=ledger.status(),
        out=cfg.out,
        files=ledger.files,
        nodes=ledger.nodes,
        wall_ms=(time.perf_counter() - t0) * 1000,
    )
    # The digests' spend is the run's, and so are their fallbacks; their nodes are not counted among the
    # files' nodes.
    record.fallback_nodes += ledger.digest_fallbacks
    record.llm_calls += usage[0]
    record.prompt_tokens += usage[1]
    record.completion_tokens += usage[2]
    if cfg.metrics:
        _record_metrics(cfg, record, ledger, progress, journal)
    if wrote and ledger.aborted is None:
        wrapup.collect_garbage(cfg, committer.state, progress)
    if cfg.git:
        progress.phase("git", total=None, unit="commit")
        deleted = len(ledger.deleted)
        commit_run(
            cfg.out, added=ledger.added, changed=ledger.modified, deleted=deleted, run_id=run_id, digests=usage[3]
        )
    progress.end_phase()
    result = ledger.result(record, cfg.out, tokenizer)
    result.digests = usage[3]
    return result


def _stored(ledger: Ledger, write: Callable[[], None]) -> None:
    """A write of the run's state at wrap-up; when storage fails (a full disk), the run is aborted
    rather than left unrecorded: it still records its metrics and logs ``run_finished``."""
    try:
        write()
    except OSError as exc:
        path = exc.filename2 or exc.filename  # a rename's: the file it was to become, not its temporary
        where = f"{path}: " if path else ""
        message = f"{where}{describe_os_error(exc)}"
        ledger.progress.event("storage_failed", error=message, level="error")
        if ledger.aborted is None:
            ledger.aborted = AbortRun(f"the run's state could not be stored: {message}")
        else:  # the closing line names the first cause; this one is said too
            ledger.warn(f"the run's state could not be stored: {message}")


def _update_digests(
    cfg: RunConfig,
    committer: Committer,
    ledger: Ledger,
    wrote: bool,
    to_index: list[str],
    docs: dict[str, DocUpdate],
    gone: list[str],
    progress: Progress,
    made: Any = None,
    pages: dict[str, str] | None = None,
) -> tuple[int, int, int, int]:
    """Redo the month, year and folder digests whose files changed (none on an unchanged night); hand
    the redone ones to the index, and their pages to ``pages`` by period id. Returns their LLM calls,
    prompt and completion tokens, and how many were redone or removed (with --no-digests, every digest
    left is). ``made``: the digests (or the exception) made on the run's executor."""
    if ledger.aborted is not None:
        return (0, 0, 0, 0)
    if not cfg.digests:  # the digests left are removed (none when this run is not the folder's own)
        pending = digests_pending(cfg, backend_identity(cfg), committer.manifest)
        return _retire_digests(cfg, ledger, gone, progress) if pending else (0, 0, 0, 0)
    # An unchanged night still updates the digests its files no longer match (changed on a night with
    # --no-digests, or by a run stopped before its digests), made with other settings, by the fallback, or gone.
    if made is None and not (
        wrote or ledger.deleted or digests_pending(cfg, backend_identity(cfg), committer.manifest)
    ):
        return (0, 0, 0, 0)
    try:
        if isinstance(made, Exception):
            raise made
        done: DigestRun = made or load(_WORK["digests"])(
            cfg, committer.manifest, committer.state, get_tokenizer(cfg.encoding), ledger.run_id, committer.finals
        )
    except Exception as exc:  # digests are made from the trees; a failure never fails the run
        ledger.warn(f"digests not updated: {exc}")
        progress.event("digests_failed", error=str(exc), level="error")
        # A pass stopped by --on-error abort (DigestsAborted) had sent requests all the same: they are the run's.
        spent = getattr(exc, "records", None)
        return (*_spend(spent), 0) if isinstance(spent, list) else (0, 0, 0, 0)
    for warning in done.warnings:
        ledger.warn(warning)
    ledger.digest_fallbacks = sum(1 for r in done.records if "fallback" in r.backend)
    usage = (*_spend(done.records), len(done.redone) + len(done.removed))
    redone = done.redone
    if pages is not None:
        pages.update((period.id, done.digests[period].text) for period in redone)
    progress.event(
        "digests_updated",
        redone=[p.id for p in redone],
        kept=len(done.digests) - len(redone),
        removed=done.removed,
        llm_calls=usage[0],
        prompt_tokens=usage[1],
        completion_tokens=usage[2],
        seconds=round(done.seconds, 3),
    )
    if cfg.index:
        for period in redone:
            d = done.digests[period]
            docs[d.path] = DocUpdate(d.path, [node_from_file(cfg.out, cfg.out / d.path, d.meta, d.text)], None)
            to_index.append(d.path)
        gone.extend(done.removed)
    return usage


def _spend(records: list[NodeRecord]) -> tuple[int, int, int]:
    """The LLM calls, prompt and completion tokens of digests' metrics rows."""
    # Tokens an LLM was paid for: an extractive digest's own length is no completion.
    paid = [r for r in records if r.llm_calls]
    return sum(r.llm_calls for r in paid), sum(r.prompt_tokens for r in paid), sum(r.completion_tokens for r in paid)


def _retire_digests(cfg: RunConfig, ledger: Ledger, gone: list[str], progress: Progress) -> tuple[int, int, int, int]:
    """With --no-digests, remove the digests earlier runs wrote, from the tree and (through ``gone``) the
    index, as any output left without its input: stale pages had gone on answering searches."""
    try:
        removed, warnings = retire_digests(cfg)
    except OSError as exc:
        ledger.warn(f"digests not removed: {describe_os_error(exc)}")
        return (0, 0, 0, 0)
    for warning in warnings:
        ledger.warn(warning)
    if removed:
        progress.event("digests_updated", redone=[], kept=0, removed=removed, llm_calls=0, seconds=0.0)
    if cfg.index:
        gone.extend(removed)
    return (0, 0, 0, len(removed))


def _sync_index(
    cfg: RunConfig,
    to_index: list[str],
    ledger: Ledger,
    committer: Committer,
    docs: dict[str, DocUpdate],
    embedded: Mapping[str, Any],
    progress: Progress,
    gone: list[str],
) -> None:
    """Bring the index in line with the trees written or deleted (``docs``: those handed over in memory)."""
    # A quiet run still repairs an interrupted, partial or outdated index (a few stats, no Chroma).
    if not to_index and not ledger.deleted and not gone and index_needs_work(cfg) is None:
        return
    changed = sorted(set(to_index))
    deleted = sorted(set(ledger.deleted) | set(gone))
    progress.phase("indexing", total=len(changed) + len(deleted), unit="file")
    warning = wrapup.sync_index(load(_WORK["index"]), cfg, changed, deleted, docs, embedded, progress)
    docs.clear()
    if warning is not None:
        ledger.index_failed = True
        ledger.warn(warning)
        return
    progress.advance(len(changed) + len(deleted))
    committer.mark_indexed(changed)


def _record_metrics(
    cfg: RunConfig, record: RunRecord, ledger: Ledger, progress: Progress, journal: UsageJournal
) -> None:
    """Store the run's records, and those of runs killed before theirs; failures become warnings."""
    progress.phase("metrics", total=None, unit="table")
    warning = wrapup.record_metrics(cfg, record, ledger.files, ledger.nodes)
    progress.end_phase()
    journal.close(recorded=warning is None)
    if warning:
        ledger.warn(warning)
        ledger.metrics_failed = True
    if left_behind(cfg.state_dir, ledger.run_id):  # one listing: journals of killed runs, if any
        warning = wrapup.fold_interrupted_usage(cfg, ledger.run_id)
        if warning:
            ledger.warn(warning)
