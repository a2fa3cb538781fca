"""Stopping a run from a signal handler: the command's SIGTERM stops the run in progress as Ctrl-C does.

Ctrl-C reaches a run through ``asyncio.run``, which cancels its main task; a SIGTERM handler calls
:func:`request_stop`, which cancels the same task. Either way the run's requests are cancelled and
what finished is committed and recorded (:mod:`batchsum.engine.execute`). Kept apart and light: the
command loads it before every run, and an unchanged re-run never loads the executor.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # an unchanged re-run loads this module and never asyncio
    import asyncio


@dataclass
class _Summarizing:
    """The event loop and main task of the run this process is summarizing, if any."""

    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[None] | None = None
    requested: bool = False  # a stop was asked for (it stops a run that has not started summarizing too)


SUMMARIZING = _Summarizing()
# Why an interrupted run stopped (its ``stopped_by``); after Ctrl-C, ``batchsum.run`` raises RunInterrupted.
BY_CTRL_C, BY_SIGTERM = "interrupted by Ctrl-C", "interrupted by SIGTERM"


def request_stop() -> None:
    """Stop the run in progress as Ctrl-C does; safe in a signal handler. A run that has not started
    summarizing yet summarizes nothing."""
    SUMMARIZING.requested = True
    loop, task = SUMMARIZING.loop, SUMMARIZING.task
    if loop is not None and task is not None:
        loop.call_soon_threadsafe(task.cancel)  # wakes the loop wherever it waits


def clear_stop() -> None:
    """Forget an earlier request: the next run starts afresh."""
    SUMMARIZING.requested = False


@contextmanager
def sigterm_stops() -> Iterator[None]:
    """Within it, SIGTERM stops the run or facts pass in progress (:func:`request_stop`) instead of
    ending the process at once. Only the main thread may set a handler: elsewhere (a test's) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    clear_stop()
    previous = signal.signal(signal.SIGTERM, lambda *_: request_stop())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
