"""What a run tells the outside while it works: progress bars on a terminal and the event log."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Literal

from batchsum import throttle
from batchsum.events import EventLog


def show_bars(quiet: bool, progress: bool | None) -> bool:
    """Bars are drawn unless quiet; by default only on a terminal."""
    if quiet:
        return False
    if progress is not None:
        return progress
    return sys.stderr.isatty()


class Progress:
    """One progress line on a terminal and the run's event log; each part is optional.

    A single bar (never two stacked ones, whose cursor moves garble the closing line) follows the
    phases of a run: ``summarizing`` counts summary nodes with the files settled so far beside them,
    then ``indexing``, ``metrics`` and ``git`` each show their own step. Every phase is also an event
    (``phase_started`` / ``phase_finished`` with its seconds) so a log shows where the time went.
    Use as a context manager: on exit the bar is closed and the event log detached and closed.
    """

    def __init__(self, log_file: Path | None, log_format: Literal["text", "json"], *, bars: bool) -> None:
        self._events: EventLog | None = None
        self._handler: logging.Handler | None = None
        if log_file is not None:
            self._events = EventLog(log_file, log_format)
            # Warnings logged by any batchsum module land in the event log too.
            self._handler = self._events.handler()
            logging.getLogger("batchsum").addHandler(self._handler)
        self._bars = bars
        self._bar: Any = None
        self._files_total = 0
        self._files_done = 0
        self._phase: str | None = None
        self._phase_t0 = 0.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def event(self, name: str, /, **fields: Any) -> None:
        """Append one event to the log (no-op without ``--log-file``)."""
        if self._events is not None:
            self._events.event(name, **fields)

    def start(self, n_files: int) -> None:
        """The summarizing phase over ``n_files`` files (nodes are added as files are planned)."""
        self._files_total = n_files
        self._files_done = 0
        self.phase("summarizing", total=0, unit="node", files=n_files)
        self._show_files()

    def phase(self, name: str, *, total: int | None = None, unit: str = "it", **fields: Any) -> None:
        """Start phase ``name`` (ending the current one); ``total`` None: a count without an end."""
        import time

        self.end_phase()
        self._phase, self._phase_t0 = name, time.perf_counter()
        self.event("phase_started", phase=name, **fields)
        if self._bars:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit=unit, desc=name, leave=False, dynamic_ncols=True)

    def end_phase(self) -> None:
        """Finish the current phase: close its bar and log its duration."""
        import time

        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._phase is not None:
            seconds = round(time.perf_counter() - self._phase_t0, 3)
            self.event("phase_finished", phase=self._phase, seconds=seconds)
            self._phase = None

    def advance(self, n: int = 1) -> None:
        """``n`` steps of the current phase are done."""
        if self._bar is not None:
            self._bar.update(n)

    def file_settled(self) -> None:
        """One file is finished (done, unchanged, failed or skipped)."""
        self._files_done += 1
        self._show_files()

    def nodes_planned(self, n: int) -> None:
        """``n`` more summary nodes are on their way."""
        if self._bar is not None and self._phase == "summarizing":
            self._bar.total += n
            self._bar.refresh()

    def node_finished(self) -> None:
        """One summary node is finished (computed or reused)."""
        if self._phase == "summarizing":
            self._show_files()
            self.advance()

    def _show_files(self) -> None:
        if self._bar is not None and self._phase == "summarizing":
            # A run held back by its own --rpm/--tpm says so: it is not stuck, nor is the server slow.
            held = throttle.waiting()
            files = f"files {self._files_done}/{self._files_total}"
            self._bar.set_postfix_str(f"{files}, {held}" if held else files, refresh=False)

    def stop(self) -> None:
        """End the current phase (the event log stays open)."""
        self.end_phase()

    def close(self) -> None:
        """End the current phase and close the event log."""
        self.stop()
        if self._events is not None:
            if self._handler is not None:
                logging.getLogger("batchsum").removeHandler(self._handler)
            self._events.close()
            self._events = None
