"""``batchsum facts``: extract and reconcile facts from new journal entries and conversation turns.

Incremental like a run: a file whose size and mtime match the facts manifest costs a ``stat``; a
changed file is read and split into entries/turns, and only units whose hash is new are sent to the
model. Extraction requests run concurrently (under the backend's limits); reconciliation runs in
source order, one unit at a time, so a later entry ("moved to Lisbon") is reconciled against what
the earlier ones left ("lives in Porto"). A source gone from a walked root has its facts retired (as a
run soft-deletes its summaries); a renamed one, found by its units' hashes, keeps them under its new name.
An entry gone from a changed journal (deleted, or rewritten: a new entry then) has its facts retired too.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from batchsum.backends.noise import markdown_as_text
from batchsum.backends.registry import check_llm_server
from batchsum.config import RunConfig
from batchsum.engine.changes import in_scope, within_recorded_roots
from batchsum.engine.ledger import EXIT_DEGRADED
from batchsum.engine.prepare import read_source
from batchsum.engine.stopping import BY_SIGTERM, SUMMARIZING
from batchsum.errors import ConfigError, LLMUnavailable, SummarizationError
from batchsum.event_loop import off_the_loop
from batchsum.gitver import commit_run, ensure_repo
from batchsum.lock import RunLock
from batchsum.memory.engine import Changes, MemoryEngine, Source
from batchsum.memory.files import check_scope, iter_facts, read_scope, rehome, soft_delete, source_facts
from batchsum.memory.llm import JSON_FORMATS, JsonFormat
from batchsum.memory.manifest import FactsManifest, FactsPlan, SourceState
from batchsum.memory.units import Unit, is_user_turn, named_speakers, units_of, written_on
from batchsum.state import StateStore
from batchsum.walk import Problem, SourceRef, discover, require_paths

if TYPE_CHECKING:
    from batchsum.model import Document

log = logging.getLogger(__name__)

TURN_BATCH_CHARS = 3000  # consecutive new turns of a conversation sent in one extraction request


@dataclass
class FactsConfig:
    """What ``batchsum facts`` (or ``run --facts``) needs: the run's settings plus the memory's own."""

    run: RunConfig
    scope: str | None = None  # one scope for every source (default: journal folder / conversation path)
    json_format: JsonFormat = "json_schema"

    def __post_init__(self) -> None:
        # Checked here, where the command, the library, watch and run --facts all build it: an unknown value
        # had sent no response_format at all (memory.llm.response_format knows only these).
        if self.json_format not in JSON_FORMATS:
            raise ConfigError(f"json_format={self.json_format!r}: use one of {', '.join(map(repr, JSON_FORMATS))}")


@dataclass
class FactsResult:
    """What a facts pass did."""

    files: int = 0
    unchanged: int = 0
    # Read because their stat changed, yet holding no entry or turn not processed before (an edit of one, a
    # line's whitespace): changed, not unchanged, though nothing is sent for them.
    nothing_new: int = 0
    other: int = 0  # documents: no facts are extracted from them
    units: int = 0  # new entries/turns sent to the model
    malformed: int = 0  # units whose answers were invalid JSON twice (no facts, warning; retried next pass)
    changes: Changes = field(default_factory=Changes)
    problems: list[Problem] = field(default_factory=list)
    # Files a run skips by design too (a note template, a Logseq backup): said, never a failure.
    skipped: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    # Why the pass stopped before its end (a server that cannot be used, SIGTERM); the rest waits for the next.
    stopped_by: str | None = None

    @property
    def status(self) -> str:
        """As a run's: ``aborted`` (stopped), ``partial`` (a file failed), ``degraded`` (entries whose
        answers were unusable, asked again next time) or ``ok``."""
        if self.stopped_by is not None:
            return "aborted"
        if self.problems:
            return "partial"
        return "degraded" if self.malformed else "ok"

    @property
    def exit_code(self) -> int:
        """A run's codes for the same outcomes: 1 stopped or a file failed, 4 degraded, else 0."""
        return {"aborted": 1, "partial": 1, "degraded": EXIT_DEGRADED}.get(self.status, 0)

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable result ``facts --json`` prints and ``run --facts --json`` holds, JSON-ready;
        ``as_json()`` is the older name of it."""
        c = self.changes
        return {
            "status": self.status, "exit_code": self.exit_code, "stopped_by": self.stopped_by,
            "files": self.files, "unchanged": self.unchanged,
            "changed_nothing_new": self.nothing_new, "documents_skipped": self.other,
            "units": self.units, "added": len(c.added), "updated": len(c.updated), "deleted": len(c.deleted),
            "kept": c.kept, "malformed": self.malformed,
            "problems": [{"path": p.path, "relpath": p.relpath, "reason": p.reason} for p in self.problems],
            "seconds": round(self.seconds, 3),
        }  # fmt: skip

    as_json = to_dict  # the name before every result object had to_dict()

    def summary_line(self) -> str:
        """One line for the terminal."""
        c = self.changes
        return (
            f"{self.files} files ({self.unchanged} unchanged, "
            + (f"{self.nothing_new} changed with nothing new, " if self.nothing_new else "")
            + f"{self.other} documents skipped); "
            f"{self.units} new entries/turns; facts: {len(c.added)} added, {len(c.updated)} updated, "
            f"{len(c.deleted)} deleted, {c.kept} kept; {self.malformed} malformed answers; "
            f"{len(self.problems)} failed; {len(self.skipped)} skipped; {self.seconds:.1f}s"
            + (
                f"; {len(c.moved)} fact{'s' * (len(c.moved) != 1)} moved to renamed sources or another --scope"
                if c.moved
                else ""
            )
            + (f"; STOPPED: {self.stopped_note()}" if self.stopped_by is not None else "")
        )

    def stopped_note(self) -> str:
        """Why the pass stopped and what that left: said once, for its line and its error."""
        return f"{(self.stopped_by or '').rstrip('.')}; the entries done are kept, the rest are asked next time"


def scope_for(relpath: str, content_type: str, forced: str | None = None) -> str:
    """The memory scope of a source: a conversation is its own; a journal's entries share its folder."""
    if forced:
        return check_scope(forced)
    if content_type == "conversation":
        return check_scope(relpath)
    return check_scope(str(PurePosixPath(relpath).parent))


@dataclass
class _Job:
    doc: Document
    units: list[Unit]
    scope: str
    speakers: tuple[str, ...] = ()  # a group conversation's people, whom its facts name

    @property
    def text(self) -> str:
        return "\n\n".join(u.text for u in self.units)

    @property
    def day(self) -> str | None:
        """The day the job's text was written, if its entry or file says (its relative days count from it)."""
        return written_on(self.units[0], self.doc)

    @property
    def name(self) -> str:
        return f"{self.doc.relpath}:{self.units[0].where}"


def _jobs(doc: Document, pending: list[Unit], scope: str, speakers: tuple[str, ...] = ()) -> list[_Job]:
    if doc.content_type != "conversation":
        return [_Job(doc, [u], scope) for u in pending]
    jobs: list[_Job] = []
    cur: list[Unit] = []
    size = 0
    for u in pending:
        if cur and (size + len(u.text) > TURN_BATCH_CHARS or u.turn != (cur[-1].turn or 0) + 1):
            jobs.append(_Job(doc, cur, scope, speakers))
            cur, size = [], 0
        cur.append(u)
        size += len(u.text)
    if cur:
        jobs.append(_Job(doc, cur, scope, speakers))
    return jobs


@dataclass
class _Move:
    """A vanished source whose processed units all reappear in another file: it was renamed."""

    old: str
    old_scope: str
    new: str
    scope: str
    units: dict[str, Unit]  # the new file's units by hash: where each fact's entry or turn is now


class _FactsPass:
    def __init__(self, fcfg: FactsConfig) -> None:
        self.fcfg = fcfg
        self.cfg = fcfg.run
        self.result = FactsResult()
        self.manifest = FactsManifest(self.cfg.state_dir)
        # Sources of the manifest under a walked root that the walk no longer finds (the run's rule for
        # soft-deleting summaries): renamed ones become moves, the others' facts are retired.
        self.vanished: dict[str, SourceState] = {}
        self.moves: list[_Move] = []
        # Per changed journal, its scope and the processed entries its text no longer holds (deleted or
        # rewritten): their facts are retired, as a vanished source's are, before any new one is reconciled.
        self.removed: dict[str, tuple[str, set[str]]] = {}

    def _problem(self, path: str, reason: str) -> None:
        self._met(Problem(path, reason))

    def _met(self, problem: Problem) -> None:
        """``problem`` counted as a run counts it: a failure, or a file skipped by design."""
        (self.result.problems if problem.failure else self.result.skipped).append(problem)
        # Info only: the commands print each failure once (``failed: ...``), with --quiet too.
        log.info("%s: %s", problem.path, problem.reason)

    def plan(self) -> list[tuple[Document, str, list[_Job], SourceState]]:
        """Changed files with their new units (unchanged files settled here, from their stat).

        Files are named as a run names them: a path inside a folder the output was built from (by a
        run or a facts pass) is walked as that folder, limited to the path, so its files keep the names
        (and scopes) the whole corpus gave them instead of getting a second set of facts under others."""
        cfg = self.cfg
        recorded = {e.root for e in StateStore(cfg.state_dir).load_manifest().values()}
        recorded |= {s.root for s in self.manifest.files.values() if s.root}
        if not cfg.skip_missing:  # as a run: a mistyped path inside a recorded root is no empty pass (exit 0)
            require_paths(cfg.paths)
        paths, scopes = within_recorded_roots(cfg.paths, recorded)
        walk = discover(
            paths, out=cfg.out, extra_ignore=cfg.ignore, corpus_ignores=cfg.corpus_ignores,
            type_overrides=cfg.type_overrides, follow_symlinks=cfg.follow_symlinks, skip_missing=cfg.skip_missing,
        )  # fmt: skip
        for p in walk.problems:
            self._met(p)
        seen = {r.relpath for r in walk.refs}
        roots = {str(r) for r in walk.roots}
        self.vanished = {rel: s for rel, s in self.manifest.files.items() if s.root in roots and rel not in seen}
        work = []
        for ref in walk.refs:
            if scopes and not in_scope(ref, scopes):
                continue
            self.result.files += 1
            item = self._prepare(ref)
            if item is not None:
                work.append(item)
        return work

    def _prepare(self, ref: SourceRef) -> tuple[Document, str, list[_Job], SourceState] | None:
        rel = ref.relpath
        entry = self.manifest.files.get(rel)
        try:
            st = os.stat(ref.fspath)
        except OSError as exc:
            self._problem(str(ref.path), f"cannot stat: {exc.strerror or exc}")
            return None
        # A --scope its facts are not in yet reads the file (its facts then move there), unchanged or not.
        elsewhere = self.fcfg.scope is not None and entry is not None and entry.scope not in ("", self.fcfg.scope)
        if entry is not None and entry.size == st.st_size and entry.mtime_ns == st.st_mtime_ns and not elsewhere:
            entry.root = entry.root or str(ref.root)
            self.result.unchanged += 1
            if not entry.scope:
                self.result.other += 1
            return None
        # Read (and redacted) as a run reads it: entries go to the same LLM server.
        doc = read_source(ref, self.cfg)
        if isinstance(doc, Problem):
            self._met(doc)
            return None
        if doc.content_type not in ("journal", "conversation"):
            self.result.other += 1
            self.manifest.files[rel] = SourceState(doc.size, doc.mtime_ns, doc.sha256, "", root=str(ref.root))
            return None
        scope = scope_for(rel, doc.content_type, self.fcfg.scope)
        # Another scope (--scope given or dropped): the source's facts move to it, as a renamed source's do,
        # rather than being extracted there a second time beside the old scope's, stale ones still live.
        rescoped = entry is not None and bool(entry.scope) and entry.scope != scope and bool(entry.units)
        done = entry.units if entry is not None and (entry.scope == scope or rescoped) else set()
        # Split as the reader sees the text (its line breaks stay, so each unit keeps its line): a note's
        # front matter, hidden comments, properties and link syntax never go to the model.
        shown = dataclasses.replace(doc, text=markdown_as_text(doc.text))
        every = units_of(shown)
        units = [u for u in every if is_user_turn(u)]
        if entry is not None and rescoped:
            self.moves.append(_Move(rel, entry.scope, rel, scope, {u.key: u for u in units}))
        gone = done - {u.key for u in units}
        # Journals only: an entry is one request, so its facts are its own; a conversation's facts are recorded
        # under the first turn of the turns asked together, and retiring them could take facts of turns still there.
        if gone and doc.content_type == "journal":
            self.removed[rel] = (scope, gone)
        done = done | self._renamed_from(rel, scope, units)
        done_now = {u.key for u in units if u.key in done}
        state = SourceState(doc.size, doc.mtime_ns, doc.sha256, scope, done_now, root=str(ref.root))
        pending = list({u.key: u for u in units if u.key not in done}.values())
        if not pending:
            # Read again for another --scope only, its text is the same: unchanged; else it changed.
            if entry is not None and entry.sha256 == doc.sha256:
                self.result.unchanged += 1
            else:
                self.result.nothing_new += 1
            self.manifest.files[rel] = state
            return None
        speakers = named_speakers(every) if doc.content_type == "conversation" else ()
        return doc, scope, _jobs(doc, pending, scope, speakers), state

    def _renamed_from(self, rel: str, scope: str, units: list[Unit]) -> set[str]:
        """The units of a vanished source that ``rel`` holds all of (it is that source renamed): done
        already, their facts move over instead of being extracted a second time."""
        by_key = {u.key: u for u in units}
        for old_rel, old in list(self.vanished.items()):
            if old.scope and old.units and old.units <= by_key.keys():
                del self.vanished[old_rel]
                self.moves.append(_Move(old_rel, old.scope, rel, scope, by_key))
                return set(old.units)
        return set()

    def _settle_vanished(self) -> bool:
        """Move the facts of renamed sources to their new names and retire (soft-delete) those of
        vanished ones, as a run moves their summaries aside; True when a fact file changed. The index
        follows in :meth:`FactIndex.sync` (a retired fact is no live file, a moved one has new metadata)."""
        out, changes = self.cfg.out, self.result.changes
        for move in self.moves:
            for fact in source_facts(out, move.old_scope, move.old):
                unit = move.units.get(fact.source_unit or "")
                if unit is not None:  # facts written before source_unit was recorded keep their position
                    fact.source_line, fact.source_turn = unit.line, unit.turn
                rehome(out, fact, move.scope, move.new)
                changes.moved.append(fact)
            if move.old != move.new:
                self.manifest.files.pop(move.old, None)
        for rel, state in self.vanished.items():
            retired = source_facts(out, state.scope, rel) if state.scope else []
            for fact in retired:
                soft_delete(out, fact)
            changes.deleted += retired
            if retired:
                log.info("%s: source gone; %d of its facts retired to deleted/facts/", rel, len(retired))
            self.manifest.files.pop(rel, None)
        for rel, (scope, keys) in self.removed.items():
            retired = [f for f in source_facts(out, scope, rel) if f.source_unit in keys]
            for fact in retired:
                soft_delete(out, fact)
            changes.deleted += retired
            if retired:
                log.info("%s: %d entries gone; %d of their facts retired to deleted/facts/", rel, len(keys),
                         len(retired))  # fmt: skip
        return bool(self.moves or self.vanished or self.removed)

    async def run(self) -> None:
        """The pass; a stop (SIGTERM through :func:`~batchsum.engine.stopping.request_stop`, a server that
        cannot be used) ends it as a run ends: the entries done are recorded, the rest wait for the next."""
        SUMMARIZING.loop, SUMMARIZING.task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            if SUMMARIZING.requested:  # SIGTERM before the pass began
                raise asyncio.CancelledError
            await self._run()
        except LLMUnavailable as exc:  # every file left would fail the same way: stop at the first
            self.result.stopped_by = str(exc)
        except asyncio.CancelledError:
            if not SUMMARIZING.requested:
                raise  # Ctrl-C: asyncio.run raises KeyboardInterrupt once the manifest is saved
            self.result.stopped_by = BY_SIGTERM
        finally:
            SUMMARIZING.loop = SUMMARIZING.task = None

    async def _run(self) -> None:
        work = self.plan()
        if work:  # as a run checks before any work: a server that cannot be used stops the pass at once
            await asyncio.to_thread(check_llm_server, self.cfg.llm)
        settled = self._settle_vanished()
        engine = MemoryEngine(self.cfg, json_format=self.fcfg.json_format)
        try:
            if engine.index is not None and (work or settled or next(iter_facts(self.cfg.out), None) is not None):
                # Every pass: an index rebuilt since (or a crash between file and index) is healed here.
                await asyncio.to_thread(engine.index.sync)
            # Extraction for every job starts now (the backend caps what is in flight); reconciliation
            # then walks the jobs in source order.
            tasks = {
                id(job): asyncio.create_task(
                    engine.extract(
                        job.text, name=job.name, content_type=doc.content_type, speakers=job.speakers, day=job.day
                    )
                )
                for doc, _, jobs, _ in work
                for job in jobs
            }
            try:
                for doc, _scope, jobs, state in work:
                    await self._file(engine, doc, jobs, state, tasks)
            finally:
                for t in tasks.values():
                    t.cancel()
                await asyncio.gather(*tasks.values(), return_exceptions=True)
        finally:
            self.result.malformed = engine.llm.malformed
            await engine.aclose()
            self.manifest.save()

    async def _file(
        self,
        engine: MemoryEngine,
        doc: Document,
        jobs: list[_Job],
        state: SourceState,
        tasks: dict[int, asyncio.Task[list[str] | None]],
    ) -> None:
        done = False
        try:
            done = await self._jobs(engine, doc, jobs, state, tasks)
        finally:  # a stop mid-file too: the entries done so far are recorded
            if not done:
                # Keep the old stat so the file is read again next time; the units done so far stay done.
                old = self.manifest.files.get(doc.relpath)
                state.size, state.mtime_ns, state.sha256 = (old.size, old.mtime_ns, old.sha256) if old else (-1, -1, "")
            self.manifest.files[doc.relpath] = state
            self.manifest.save()

    async def _jobs(
        self,
        engine: MemoryEngine,
        doc: Document,
        jobs: list[_Job],
        state: SourceState,
        tasks: dict[int, asyncio.Task[list[str] | None]],
    ) -> bool:
        """Reconcile the facts of ``doc``'s jobs in order; True when every unit is done."""
        complete = True
        for job in jobs:
            try:
                facts = await tasks[id(job)]
            except LLMUnavailable:
                raise  # the pass stops (run): no file after this one could do better
            except SummarizationError as exc:
                self._problem(str(doc.path), f"facts not extracted ({exc}); retried next time")
                return False
            self.result.units += len(job.units)
            if facts is None:
                # Malformed answers: the entries stay pending, so the next pass (maybe with another
                # --model) asks again instead of recording them as done without facts.
                complete = False
                continue
            first = job.units[0]
            source = Source(job.scope, doc.relpath, first.line, first.turn, first.date, first.key)
            changes = await engine.reconcile(facts, source, name=job.name)
            self.result.changes.merge(changes)
            state.units.update(u.key for u in job.units)
        return complete


def plan_facts(cfg: RunConfig) -> FactsPlan:
    """The requests the facts pass of ``run --facts`` would send now: reads the sources and the facts
    written, writes nothing."""
    work = _FactsPass(FactsConfig(run=cfg)).plan()
    scopes = {scope for _, scope, _, _ in work}
    fresh = sum(1 for scope in scopes if not read_scope(cfg.out, scope))
    jobs = [job for _, _, file_jobs, _ in work for job in file_jobs]
    return FactsPlan(len(work), sum(len(j.units) for j in jobs), len(jobs), max(0, len(jobs) - fresh))


def process_facts(fcfg: FactsConfig) -> FactsResult:
    """One facts pass over ``fcfg.run.paths``; the caller holds the output's lock."""
    _require_llm(fcfg.run)
    t0 = time.perf_counter()
    facts = _FactsPass(fcfg)
    # Its own event loop: on a worker thread when the caller's code runs one (a library user's async code).
    off_the_loop(lambda: asyncio.run(facts.run()))
    facts.result.seconds = time.perf_counter() - t0
    return facts.result


def _require_llm(cfg: RunConfig) -> None:
    if not cfg.llm.enabled:
        raise ConfigError("facts are extracted by an LLM: give --base-url (and --model) of an OpenAI-compatible server")


def run_facts(fcfg: FactsConfig) -> FactsResult:
    """``batchsum facts``: a facts pass under the output's run lock, then a git commit with ``--git``."""
    cfg = fcfg.run
    _require_llm(cfg)  # before the output folder and its lock are made: a refused call leaves nothing
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    with RunLock(cfg.out, wait=cfg.wait_lock):
        if cfg.git:
            ensure_repo(cfg.out)
        result = process_facts(fcfg)
        if cfg.git and result.changes.count:
            c = result.changes
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            commit_run(cfg.out, added=len(c.added), changed=len(c.updated), deleted=len(c.deleted),
                       run_id=f"facts-{stamp}")  # fmt: skip
    return result
