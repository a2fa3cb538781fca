"""What a run tells the outside while it works: progress bars on a terminal and the event log."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from batchsum.events import EventLog


def show_bars(quiet: bool, progress: bool | None) -> bool:
    """Bars are drawn unless quiet; by default only on a terminal."""
    if quiet:
        return False
    if progress is not None:
        return progress
    return sys.stderr.isatty()


class Progress:
    """Two bars (files, summaries) and the run's event log; each part is optional.

    Use as a context manager: on exit the bars are closed and the event log detached and closed.
    """

    def __init__(self, log_file: Path | None, log_format: Literal["text", "json"], *, bars: bool) -> None:
        self._events: EventLog | None = None
        self._handler: logging.Handler | None = None
        if log_file is not None:
            from batchsum.events import EventLog

            self._events = EventLog(log_file, log_format)
            # Warnings logged by any batchsum module land in the event log too.
            self._handler = self._events.handler()
            logging.getLogger("batchsum").addHandler(self._handler)
        self._bars = bars
        self._file_bar: Any = None
        self._node_bar: Any = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def event(self, name: str, /, **fields: Any) -> None:
        """Append one event to the log (no-op without ``--log-file``)."""
        if self._events is not None:
            self._events.event(name, **fields)

    def start(self, n_files: int) -> None:
        """Open the bars for ``n_files`` files."""
        if not self._bars:
            return
        from tqdm import tqdm

        self._file_bar = tqdm(total=n_files, unit="file", desc="files", position=0, leave=False)
        self._node_bar = tqdm(total=0, unit="node", desc="summaries", position=1, leave=False)

    def file_settled(self) -> None:
        """One file is finished (done, unchanged, failed or skipped)."""
        if self._file_bar is not None:
            self._file_bar.update(1)

    def nodes_planned(self, n: int) -> None:
        """``n`` more summary nodes are on their way."""
        if self._node_bar is not None:
            self._node_bar.total += n
            self._node_bar.refresh()

    def node_finished(self) -> None:
        """One summary node is finished (computed or reused)."""
        if self._node_bar is not None:
            self._node_bar.update(1)

    def stop(self) -> None:
        """Close the bars (the event log stays open)."""
        for bar in (self._file_bar, self._node_bar):
            if bar is not None:
                bar.close()
        self._file_bar = self._node_bar = None

    def close(self) -> None:
        """Close the bars and the event log."""
        self.stop()
        if self._events is not None:
            if self._handler is not None:
                logging.getLogger("batchsum").removeHandler(self._handler)
            self._events.close()
            self._events = None
