"""One Chroma client per process, shared by the endpoint's threads, reopened after another process's run.

A Chroma client caches the index in memory; what another process (a nightly ``batchsum run``) writes is
not seen by it, and queries may fail with "Error finding id". Every run rewrites the output's lock file
when it takes and releases the lock, so a lock file changed by someone else is the cue to reopen. Our own
runs (the writer, ``--watch``) record the lock file's state after they finish, so they do not count.
Reopening waits until no thread of ours is using the client.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from batchsum.config import RunConfig


class ChromaGuard:
    """Shared use of the process's Chroma client; exclusive to reopen it."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self._cond = threading.Condition()
        self._users = 0
        self._seen = self._stamp()
        self.reopened = 0

    def _stamp(self) -> int | None:
        from batchsum.lock import lock_path

        try:
            return lock_path(self.cfg.out).stat().st_mtime_ns
        except OSError:
            return None

    @contextmanager
    def use(self, *, own_writes: bool = False) -> Iterator[None]:
        """Use the client; ``own_writes``: this block may run a run (or take the lock) itself."""
        with self._cond:
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                if own_writes:
                    self._seen = self._stamp()
                self._cond.notify_all()

    def refresh(self) -> bool:
        """Reopen the client when another process ran on the output since we last looked; True if reopened."""
        stamp = self._stamp()
        if stamp == self._seen or self.cfg.chroma_host:
            return False
        with self._cond:
            self._cond.wait_for(lambda: self._users == 0)
            if self._stamp() == self._seen:
                return False
            from batchsum.index.store import _forget_system, chroma_dir

            # Index internals: dropping the cached System is the only way to make chromadb reread the folder.
            _forget_system(chroma_dir(self.cfg))
            self._seen = self._stamp()
            self.reopened += 1
            return True
