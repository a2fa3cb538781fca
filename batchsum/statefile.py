"""Opening files under ``<out>/.batchsum/`` without following links or blocking on FIFOs.

The state folder lives inside a folder users share and cron jobs write to: a symbolic link planted
where the lock or a manifest belongs would make a run truncate or read whatever it points at (as
root, any file), and a FIFO there would hang the run on ``open``. Every state file is therefore
opened with ``O_NOFOLLOW`` (a link is refused, its target untouched) and ``O_NONBLOCK`` (a FIFO
opens at once), then checked with ``fstat`` to be a regular file before it is read or written.

Refusals are :class:`OSError`\\ s naming the path, so callers that treat an unreadable state file as
missing keep doing so, and :class:`~batchsum.errors.StorageError` can describe them.
"""

from __future__ import annotations

import errno
import os
import stat

_SAFE = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class UnsafeStateFile(OSError):
    """A state file that is a symbolic link or not a regular file; it was not used."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags)`` that refuses a symbolic link and anything but a regular file.

    Returns a blocking descriptor of a regular file; raises :class:`UnsafeStateFile` (ELOOP for a
    link, EINVAL for a FIFO, device or socket) or the OS error of the open."""
    try:
        fd = os.open(path, flags | _SAFE, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeStateFile(
                errno.ELOOP, "is a symbolic link; refused (its target was not touched); remove the link", str(path)
            ) from None
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader
            reason = "is a FIFO, not a regular file; refused; remove it"
            raise UnsafeStateFile(errno.EINVAL, reason, str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeStateFile(
                errno.EINVAL, f"is {_kind(st.st_mode)}, not a regular file; refused; remove it", str(path)
            )
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The content of a regular file (at most ``limit`` bytes); refuses links and special files."""
    fd = open_regular(path, os.O_RDONLY)
    with open(fd, "rb") as fh:
        return fh.read() if limit is None else fh.read(limit)


def read_text(path: str | os.PathLike[str], limit: int | None = None) -> str:
    """Like :func:`read_bytes`, decoded as UTF-8 (ValueError when it is not)."""
    return read_bytes(path, limit).decode("utf-8")
