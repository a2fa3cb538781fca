"""One Chroma client per process, shared by the endpoint's threads, reopened after another process's run.

A Chroma client caches the index in memory; what another process (a nightly ``batchsum run``) writes may
not be seen by it, and queries can fail with "Error finding id". Every run rewrites the output's lock
file when it takes and releases the lock, so a lock file changed by someone else is the cue to reopen.
Blocks of our own that may run or lock (the writer, ``--watch``) record the lock file's state when they
end, unless it had changed before they began. Reopening never waits: while a thread of ours uses the
client it is put off to the next request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from batchsum.index.state import chroma_dir
from batchsum.index.store import forget_client
from batchsum.lock import lock_path

if TYPE_CHECKING:
    from batchsum.config import RunConfig


class ChromaGuard:
    """Shared use of the process's Chroma client; exclusive to reopen it."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self._cond = threading.Condition()
        self._users = 0
        self._seen = self._stamp()
        self._foreign = False  # another process ran while one of our blocks was going on
        self.reopened = 0
        # What the last retrieval could not get as configured (a Chroma server down), for /health.
        self.degraded: str | None = None

    def _stamp(self) -> int | None:
        try:
            return lock_path(self.cfg.out).stat().st_mtime_ns
        except OSError:
            return None

    @contextmanager
    def use(self, *, own_writes: bool = False) -> Iterator[None]:
        """Use the client; ``own_writes``: this block may run a run (or take the lock) itself."""
        with self._cond:
            if own_writes and self._stamp() != self._seen:
                self._foreign = True
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                if own_writes and not self._foreign:
                    self._seen = self._stamp()

    def refresh(self, *, force: bool = False) -> bool:
        """Reopen the client when another process ran on the output since we last looked (or ``force``,
        after an index error); True if reopened. Never waits for other threads."""
        if self.cfg.chroma_host:
            return False
        with self._cond:
            stamp = self._stamp()
            if not force and stamp == self._seen and not self._foreign:
                return False
            if self._users:
                self._foreign = True  # try again on the next request
                return False

            # chromadb rereads a folder only through a client opened anew.
            forget_client(chroma_dir(self.cfg))
            self._seen, self._foreign = stamp, False
            self.reopened += 1
            return True
