"""Blocking calls made from async code: a stage that runs its own event loop (``asyncio.run``) cannot run
on a thread whose loop is running, so it runs on a worker thread there (the library's ``run`` and ``plan``,
an LLM compaction called from an agent's loop). Light: ``import batchsum`` loads it, asyncio it never imports.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def off_the_loop(call: Callable[[], T]) -> T:
    """``call()``; in a worker thread when this thread runs an event loop. The caller waits either way:
    ``await asyncio.to_thread(...)`` keeps a loop free meanwhile."""
    # Not imported (an unchanged re-run never imports it), or still being imported by another thread (the
    # CLI imports the LLM client in the background): no loop can be running in this one.
    get_running_loop = getattr(sys.modules.get("asyncio"), "get_running_loop", None)
    if get_running_loop is None:
        return call()
    try:
        get_running_loop()
    except RuntimeError:  # no running loop
        return call()
    from concurrent.futures import ThreadPoolExecutor

    # The caller's context goes along, as with asyncio.to_thread: batchsum.index.chroma tells the
    # clients a library call opened by it.
    with ThreadPoolExecutor(1, thread_name_prefix="batchsum") as pool:
        return pool.submit(contextvars.copy_context().run, call).result()
