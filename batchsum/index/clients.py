"""The process's Chroma clients, kept per folder (or server), and which of them a library call opened.

Apart from :mod:`batchsum.index.chroma` so that a library call (``batchsum.run``) can mark itself without
importing chromadb or numpy: an unchanged re-run imports neither."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Per process: key -> (identity of the folder when opened, client); an HTTP client's identity is None.
_CLIENTS: dict[str, tuple[tuple[int, ...] | None, Any]] = {}
LOCK = threading.RLock()
_CALLS = 0  # library calls under way in the process (``released_clients``)
_IN_CALL: contextvars.ContextVar[bool] = contextvars.ContextVar("batchsum_in_library_call", default=False)
# Embedded clients opened by those calls and used by nothing else, closed when the last call ends.
_OPENED_IN_CALLS: set[str] = set()


def _identity(path: Path) -> tuple[int, ...] | None:
    """What tells this Chroma folder from one put at its path since (a rebuild by another process moves
    the folder aside or deletes it and makes a new one): the device and inodes of the folder and of its
    database. None when there is none."""
    try:
        folder, db = path.stat(), (path / "chroma.sqlite3").stat()
    except OSError:
        return None
    return (folder.st_dev, folder.st_ino, db.st_ino)


@contextlib.contextmanager
def released_clients() -> Iterator[None]:
    """Close the embedded clients opened during the library calls under way when the last of them ends.

    A client holds ~11 descriptors (SQLite, HNSW files) for its life: a process calling batchsum on
    many output folders ran out of them. Clients opened or used outside any such call (``serve``'s
    threads) stay cached. They close when no call runs anywhere: concurrent calls share a folder's client.
    """
    global _CALLS
    with LOCK:
        _CALLS += 1
    token = _IN_CALL.set(True)
    try:
        yield
    finally:
        _IN_CALL.reset(token)
        with LOCK:
            _CALLS -= 1
            if not _CALLS:
                for key in sorted(_OPENED_IN_CALLS):
                    forget_client(Path(key))
                _OPENED_IN_CALLS.clear()


def server_client(key: str) -> Any | None:
    """The kept client of the Chroma server ``key`` (``http://host:port``), if any."""
    with LOCK:
        cached = _CLIENTS.get(key)
        return None if cached is None else cached[1]


def keep_server_client(key: str, client: Any) -> Any:
    """Keep ``client`` for the server ``key`` unless another thread kept one first; the one kept."""
    with LOCK:
        _CLIENTS.setdefault(key, (None, client))
        return _CLIENTS[key][1]


def folder_client(path: Path) -> Any | None:
    """The kept client of the Chroma folder ``path`` while its folder is the one it opened (call under
    :data:`LOCK`); a stale one (the folder moved aside, rebuilt) is closed and None returned."""
    cached = _CLIENTS.get(str(path))
    if cached is None:
        return None
    if cached[0] is not None and cached[0] == _identity(path):
        if not _IN_CALL.get():  # used outside a library call too: kept for the life of the process
            _OPENED_IN_CALLS.discard(str(path))
        return cached[1]
    forget_client(path)
    return None


def keep_folder_client(path: Path, client: Any) -> None:
    """Keep ``client`` of the Chroma folder ``path`` (call under :data:`LOCK`), until the library call
    that opened it ends, or for the life of the process when no call did."""
    _CLIENTS[str(path)] = (_identity(path), client)
    if _IN_CALL.get():
        _OPENED_IN_CALLS.add(str(path))


def forget_client(path: Path) -> None:
    """Close this process's client of the Chroma folder ``path``, so the next open really reopens it."""
    with LOCK:
        cached = _CLIENTS.pop(str(path), None)
        _OPENED_IN_CALLS.discard(str(path))
    if cached is not None:
        with contextlib.suppress(Exception):  # a client whose folder is gone may fail to close; it is dropped
            cached[1].close()
