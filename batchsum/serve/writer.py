"""The write path, in the background: spooled exchanges → turn files, facts, the conversation's summary.

One thread with its own event loop works through the spool in order. For each exchange, under the
output's run lock (waiting for a run that holds it): write the turns, index them, extract facts from
the user's message and reconcile them. Then, with the lock released, a run over the transcripts folder
updates the conversation's summary tree (the run takes the lock itself). Spool files are removed only
once their turns are written, so exchanges spooled before a crash are written at the next start.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from batchsum import run
from batchsum.errors import BatchsumError
from batchsum.gitver import commit_run, ensure_repo
from batchsum.lock import RunLock
from batchsum.memory.engine import MemoryEngine, Source
from batchsum.memory.store import FactIndex
from batchsum.serve.config import ServeConfig
from batchsum.serve.conversations import Exchange, scope_of, spooled, transcripts_root, write_turns
from batchsum.serve.guard import ChromaGuard

if TYPE_CHECKING:
    from batchsum.config import RunConfig

log = logging.getLogger(__name__)

LOCK_POLL_S = 0.5


def summary_run_config(scfg: ServeConfig) -> RunConfig:
    """The run that summarizes the conversations' transcripts into the output folder."""
    import dataclasses

    root = transcripts_root(scfg.out)
    return dataclasses.replace(
        scfg.run,
        paths=[root],
        type_overrides={str(root): "conversation"},
        corpus_ignores={},
        ignore=[],
        metrics=False,  # the nightly report stays about nightly runs
        keep_short=False,  # a short chat's "summary" would be the chat itself, which the client sends anyway
        wait_lock=True,
        quiet=True,
        progress=False,
        log_file=None,
        command_line="batchsum serve (conversation summaries)",
        remember=False,  # its settings are not the ones the folder's nightly runs remember
    )


class MemoryWriter:
    """The background writer of one endpoint."""

    def __init__(self, scfg: ServeConfig, guard: ChromaGuard) -> None:
        self.scfg = scfg
        self.guard = guard
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread: threading.Thread | None = None
        self.written = 0  # exchanges written so far
        self.errors: list[str] = []
        self._needs_sync = True  # fact records are checked against the files first (healed after a rebuild)

    def start(self) -> MemoryWriter:
        self._thread = threading.Thread(target=self._main, name="batchsum-memory-writer", daemon=True)
        self._thread.start()
        self._wake.set()  # exchanges left in the spool by an earlier process
        return self

    def notify(self) -> None:
        """A new exchange was spooled."""
        self._idle.clear()
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the current exchange and stop; what is still spooled is written at the next start."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        """Whether its thread still runs."""
        return self._thread is not None and self._thread.is_alive()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        engine: MemoryEngine | None = None
        try:
            while not self._stop.is_set():
                self._wake.wait()
                self._wake.clear()
                if self._stop.is_set():
                    break
                if engine is None and self.scfg.facts:
                    engine = MemoryEngine(self.scfg.run, json_format=self.scfg.json_format)
                self.guard.refresh()
                with self.guard.use(own_writes=True):
                    changed = self._drain(loop, engine)
                    if changed and self.scfg.summarize and not self._stop.is_set():
                        self._summarize()
                    elif changed and self.scfg.run.git:
                        self._commit(len(changed))
                if not spooled(self.scfg.out):
                    self._idle.set()
        except Exception as exc:  # the thread must report, never die silently
            log.exception("memory writer stopped: %s", exc)
            self.errors.append(str(exc))
            self._idle.set()
        finally:
            if engine is not None:
                loop.run_until_complete(engine.aclose())
            loop.close()

    def _drain(self, loop: asyncio.AbstractEventLoop, engine: MemoryEngine | None) -> set[str]:
        changed: set[str] = set()
        while not self._stop.is_set():
            pending = spooled(self.scfg.out)
            if not pending:
                return changed
            with RunLock(self.scfg.out, wait=True, poll=LOCK_POLL_S):
                if engine is not None and engine.index is not None and self._needs_sync:
                    try:
                        engine.index.sync()
                        self._needs_sync = False
                    except BatchsumError as exc:
                        log.warning("fact index not synced with the fact files (%s)", exc)
                for path, exchange in pending:
                    if self._stop.is_set():
                        break
                    loop.run_until_complete(self._write(path, exchange, engine))
                    changed.add(exchange.conversation_id)
                    self.written += 1
        return changed

    async def _write(self, path: Path, exchange: Exchange, engine: MemoryEngine | None) -> None:
        out = self.scfg.out
        user, assistant = write_turns(out, exchange)
        path.unlink(missing_ok=True)
        try:
            if self.scfg.run.index:
                index = engine.index if engine is not None and engine.index is not None else FactIndex(self.scfg.run)
                await asyncio.to_thread(index.upsert, [user, assistant])
            if engine is None:
                return

            source = Source(scope_of(exchange.conversation_id), user.source_path, None, user.source_turn,
                            exchange.created_at[:10])  # fmt: skip
            name = f"{scope_of(exchange.conversation_id)}:turn {user.source_turn}"
            changes = await engine.ingest(exchange.user, source, name=name, content_type="conversation")
            if changes is not None and changes.count:
                log.info("%s: facts %d added, %d updated, %d deleted", name, len(changes.added),
                         len(changes.updated), len(changes.deleted))  # fmt: skip
        except BatchsumError as exc:
            log.warning("%s: facts not extracted or indexed (%s); the turns are saved", exchange.conversation_id, exc)
            self.errors.append(str(exc))
            self._needs_sync = True  # files written but maybe not indexed: checked on the next exchange
            self.guard.refresh(force=True)  # an index error may be a stale client: reopen when nobody uses it

    def _summarize(self) -> None:
        cfg = summary_run_config(self.scfg)
        try:
            result = run(cfg)
        except BatchsumError as exc:
            log.warning("conversation summaries not updated (%s)", exc)
            self.errors.append(str(exc))
            return
        for p in result.problems:
            log.warning("conversation summary: %s: %s", p.path, p.reason)

    def _commit(self, count: int) -> None:
        """--git without summaries: commit the written turns and facts (a summary run commits them itself)."""
        with RunLock(self.scfg.out, wait=True, poll=LOCK_POLL_S):
            ensure_repo(self.scfg.out)
            commit_run(self.scfg.out, added=count, changed=0, deleted=0, run_id=f"serve-{self.written}")
