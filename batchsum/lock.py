"""One run per output folder: an ``flock`` on ``<out>/.batchsum/lock``.

The kernel drops an ``flock`` when its process dies, so even ``kill -9`` cannot leave a real
lock behind; the JSON written into the file (pid, host, start time, scrubbed argv) only
serves the "who holds it" message. A file that still names a process although nobody holds
the lock is a leftover of a crashed run: it is reported and taken over.

The lock file is never unlinked: removing it while another process waits on the old inode
would let two runs hold "the" lock at once. Release truncates it instead.

Damage is taken over with a warning: garbage in the file is overwritten, a folder named ``lock``
is moved aside. An OS error (read-only or full file system, no permission) is a
:class:`~batchsum.errors.StorageError` naming the path and what to do.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from batchsum import statefile
from batchsum.config import STATE_DIR
from batchsum.errors import LockedError, StorageError
from batchsum.events import scrub_argv, utc_timestamp


def _hostname() -> str:
    # os.uname() is what socket.gethostname() returns on POSIX, without importing socket.
    return os.uname().nodename


log = logging.getLogger(__name__)

LOCK_NAME = "lock"
MAX_LOCK_BYTES = 1 << 16  # holder details are ~200 bytes; a bigger file is damage, not worth reading whole


def lock_path(out: Path) -> Path:
    """Where the lock of output folder ``out`` lives."""
    return out / STATE_DIR / LOCK_NAME


def _read_raw(path: Path) -> bytes:
    try:
        return statefile.read_bytes(path, MAX_LOCK_BYTES).strip()
    except OSError:
        return b""


def _parse(raw: bytes) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        info = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return info if isinstance(info, dict) else None


def read_lock_info(path: Path) -> dict[str, Any] | None:
    """The holder's details from a lock file, or None when empty, missing or unreadable."""
    return _parse(_read_raw(path))


def pid_alive(pid: int) -> bool:
    """True if a process with ``pid`` exists on this host (zombies count as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def _describe(info: dict[str, Any] | None) -> str:
    if not info:
        return "another batchsum run"
    who = f"pid {info.get('pid', '?')}"
    host = info.get("host")
    if host and host != _hostname():
        who += f" on {host}"
    started = info.get("started_at")
    return f"{who} (started {started})" if started else who


def running_holder(out: Path) -> str | None:
    """Who is running on ``out`` now, by its lock record alone ("pid 4242 (started ...)"), or None. Neither
    takes nor tests the lock (a test would make a run starting that instant exit 3): a record left by a
    run that ended is empty, one left by a crash names a process that is gone. A holder on another host
    cannot be checked and is named."""
    info = read_lock_info(lock_path(out))
    if not info:
        return None
    host, pid = info.get("host"), info.get("pid")
    if host and host != _hostname():
        return _describe(info)
    return _describe(info) if isinstance(pid, int) and pid != os.getpid() and pid_alive(pid) else None


def _in_the_way(folder: Path) -> str:
    """The outermost of ``folder`` and its parents that exists as something other than a folder: the
    file to move away (``afile`` of ``afile/out/.batchsum``); ``folder`` itself when none is found."""
    for path in [*reversed(folder.parents), folder]:
        if os.path.exists(path) and not os.path.isdir(path):
            return str(path)
    return str(folder)


class RunLock:
    """Exclusive lock on an output folder, used as a context manager.

    ``wait`` False raises :class:`LockedError` at once when another run holds the folder;
    ``wait`` True polls every ``poll`` seconds, up to ``timeout`` seconds (None: forever).
    After acquisition, ``stale`` holds the details of a crashed previous holder, if any.
    """

    def __init__(self, out: Path, *, wait: bool = False, poll: float = 0.5, timeout: float | None = None) -> None:
        self.out = out
        self.path = lock_path(out)
        self.wait = wait
        self.poll = max(0.01, poll)
        self.timeout = timeout
        self.stale: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`LockedError`; returns self."""
        if self._fd is not None:
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:  # a file where a folder of the path belongs
            raise StorageError(_in_the_way(self.path.parent), OSError(errno.ENOTDIR, exc.strerror)) from None
        except OSError as exc:
            raise StorageError(str(self.path.parent), exc) from None
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        announced = False
        while True:
            fd = self._try_lock()
            if fd is not None:
                self._fd = fd
                self._take_over(fd)
                return self
            holder = read_lock_info(self.path)
            if not self.wait:
                raise LockedError(
                    f"output folder {self.out} is locked by {_describe(holder)}; use --wait (wait=True in the library)"
                    " to wait for it"
                )
            if deadline is not None and time.monotonic() >= deadline:
                raise LockedError(
                    f"output folder {self.out} is still locked by {_describe(holder)} after waiting {self.timeout:g} s"
                )
            if not announced:
                log.info("output folder %s is locked by %s; waiting", self.out, _describe(holder))
                announced = True
            pause = self.poll if deadline is None else max(0.0, min(self.poll, deadline - time.monotonic()))
            time.sleep(pause)

    def _try_lock(self) -> int | None:
        """Open and flock the file; None if someone else holds it."""
        while True:
            try:
                # No link is followed and nothing but a regular file is used: a link planted here
                # would otherwise have its target truncated, and a FIFO would hang the run.
                fd = statefile.open_regular(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except IsADirectoryError:
                self._move_folder_aside()
                continue
            except OSError as exc:
                raise StorageError(str(self.path), exc) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    return None
                raise StorageError(str(self.path), exc) from None
            # Someone may have replaced the file between open and flock; lock the current one.
            try:
                same = os.path.samestat(os.fstat(fd), os.lstat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)

    def _move_folder_aside(self) -> None:
        """A folder where the lock file belongs (damage, or a mistaken mkdir): keep it, renamed."""
        aside = self.path.with_name(f"{LOCK_NAME}.folder-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return  # another run moved it first
        except OSError as exc:
            raise StorageError(str(self.path), exc) from None
        log.warning("%s was a folder, not a lock file; moved it to %s and took the lock over", self.path, aside)

    def _take_over(self, fd: int) -> None:
        """Report a crashed holder, then write our own details into the file."""
        raw = _read_raw(self.path)
        previous = _parse(raw)
        if raw and previous is None:
            log.warning(
                "lock file %s held unreadable data (%d bytes, not a batchsum lock record); taking it over",
                self.path,
                len(raw),
            )
        if previous:
            self.stale = previous
            pid = previous.get("pid")
            host = previous.get("host")
            if host == _hostname() and isinstance(pid, int) and not pid_alive(pid):
                state = "is no longer running"
            else:
                state = "no longer holds it"
            log.warning(
                "stale lock in %s: %s %s (crashed or killed run); taking it over",
                self.out,
                _describe(previous),
                state,
            )
        self.info = {
            "pid": os.getpid(),
            "host": _hostname(),
            "started_at": utc_timestamp(),
            "argv": scrub_argv(sys.argv),
        }
        data = (json.dumps(self.info) + "\n").encode()
        # Not fsynced: the flock is the lock; these details only name the holder in messages, and a
        # power cut that loses them also ended that holder.
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except OSError as exc:
            self._fd = None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise StorageError(str(self.path), exc) from None

    def release(self) -> None:
        """Clear the holder details and drop the lock (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)  # an empty file means "released cleanly", not stale
        except OSError as exc:
            log.debug("could not clear lock file %s: %s", self.path, exc)
        finally:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
