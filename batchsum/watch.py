"""Re-run incrementally whenever sources change (``batchsum watch``, ``batchsum serve --watch``).

``watchfiles`` reports created, modified and deleted files; a burst of events is debounced into one
incremental run (which redoes only what changed and soft-deletes the trees of deleted sources). The
output's lock is held only while a run writes, so ``batchsum search`` or a nightly run are never shut
out for long; a run that finds the lock taken waits for it. A failing file is reported and watching
goes on; a failing run (an unreachable LLM, a full disk) too, but a usage error at the first run ends
watching (``batchsum watch`` exits 2, as ``batchsum run`` does).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum import run
from batchsum.errors import BatchsumError, ConfigError, StorageError
from batchsum.memory.ingest import FactsConfig, run_facts
from batchsum.walk import ALL_EXTS, IGNORE_FILE, Problem, ignore_spec, walk_skips

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.engine.records import RunResult

log = logging.getLogger(__name__)

STOP_CHECK_MS = 200  # how often the watcher checks for a stop request
MAX_BURST_MS = 60_000  # a change that never pauses (a log written line by line) still starts a run after this
# watchfiles hands over the events gathered until none came for GROUP_MS; the quiet --debounce asks
# for is timed here (Burst): its own grouping waits for the set of changed paths to stop growing, which
# a file appended to again and again never makes grow.
GROUP_MS = 50
# How the watcher's report lines that tell of a problem begin (stderr, a server's warnings).
PROBLEM_LINES = ("failed", "skipped", "run failed", "facts failed", "warning")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


def parse_duration_ms(value: str) -> int:
    """``2s``, ``500ms``, ``1.5`` (seconds) or ``1m`` as milliseconds; ConfigError otherwise."""
    m = _DURATION.match(value)
    if not m:
        raise ConfigError(f"--debounce {value!r}: use a duration like 2s, 500ms or 1m")
    number, unit = float(m.group(1)), m.group(2) or "s"
    return int(number * {"ms": 1, "s": 1000, "m": 60000}[unit])


def watch_config(cfg: RunConfig, paths: list[Path]) -> RunConfig:
    """``cfg`` for watching ``paths``: runs wait for the lock instead of failing, without progress bars,
    and pass over a watched folder that is gone for now (keeping its summaries: it is waited for)."""
    return dataclasses.replace(cfg, paths=list(paths), wait_lock=True, progress=False, skip_missing=True)


class Burst:
    """The relevant changes one run is for. It closes once ``quiet_ms`` pass without a change event, a
    repeated write to a file already in it included (that file is still being written), or ``longest_ms``
    after its first event (a log written line by line never pauses). Times are in ms of any clock."""

    def __init__(self, quiet_ms: int, longest_ms: int) -> None:
        """``quiet_ms``: ``--debounce``; ``longest_ms``: the longest a burst of events without pause lasts."""
        self.quiet_ms = quiet_ms
        self.longest_ms = max(longest_ms, quiet_ms)
        self.changes: set[tuple[Any, str]] = set()
        self._first = self._last = 0.0

    def add(self, changes: set[tuple[Any, str]], now_ms: float) -> None:
        """Record the events seen at ``now_ms`` (none: only time passed)."""
        if not changes:
            return
        if not self.changes:
            self._first = now_ms
        self.changes |= changes
        self._last = now_ms

    def closed(self, now_ms: float) -> bool:
        """Whether the burst holds changes and is over at ``now_ms``."""
        return bool(self.changes) and (now_ms - self._last >= self.quiet_ms or now_ms - self._first >= self.longest_ms)

    def take(self) -> set[tuple[Any, str]]:
        """The burst's changes; it starts empty again."""
        changes, self.changes = self.changes, set()
        return changes


class Watcher:
    """Incremental runs of one configuration, triggered by file changes."""

    def __init__(
        self,
        cfg: RunConfig,
        *,
        debounce_ms: int = 2000,
        facts: FactsConfig | None = None,
        report: Callable[[str], None] | None = None,
        around: Callable[[], AbstractContextManager[Any]] | None = None,
    ) -> None:
        """``around``: a context each run happens in (the endpoint's shared index client)."""
        for p in cfg.paths:
            if not p.exists():
                raise ConfigError(f"path does not exist: {p}")
        self.cfg = cfg
        self.debounce_ms = max(1, debounce_ms)
        self.facts = facts
        self.report = report or log.info
        self._around = around or nullcontext
        self.runs = 0
        self.failures = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._out = os.path.realpath(cfg.out)
        self._roots = {os.path.abspath(p) for p in cfg.paths}
        # A watched folder's ignore rules, kept while its .batchsumignore is the same file (size, mtime).
        self._specs: dict[str, tuple[tuple[int, int] | None, Any]] = {}
        # The files under the roots as the last run left them: a path added since then and gone again is an
        # editor's probe only when it was not one of them (see _settled); a folder gone since then took
        # those under it (see _as_files).
        self._walked: set[str] = set()
        self._walked_dirs: set[str] = set()
        # The problems already reported, by path: a file skipped at every run is said once, not after each.
        self._reported: dict[str, tuple[str, str]] = {}
        self._facts_reported: dict[str, tuple[str, str]] = {}
        self._running = False

    # ---- one pass --------------------------------------------------------------------------
    def run_once(self) -> RunResult | None:
        """An incremental run (and facts pass), reported; never raises for a bad file or a failed run,
        except a usage error (ConfigError) at the first run: no change to the sources mends an --out
        inside the corpus or a bad option, so watching on would only repeat it. A full or read-only
        disk (StorageError) can be mended while watching."""
        self.runs += 1
        self._running = True
        try:
            return self._run_and_report()
        finally:
            self._running = False

    def _run_and_report(self) -> RunResult | None:
        try:
            with self._around():
                result = run(self.cfg)
        except BatchsumError as exc:
            self._remember_files()  # it may have recorded some of them
            if self.runs == 1 and isinstance(exc, ConfigError) and not isinstance(exc, StorageError):
                raise
            self.failures += 1
            self.report(f"run failed: {exc}; still watching")
            return None
        self._remember_files()
        # Labelled as the run counts them: a file that could not be read is skipped, not failed.
        status: dict[str | None, str] = {f.relpath: f.status for f in result.files}
        labelled = [("failed" if status.get(p.relpath) == "failed" else "skipped", p) for p in result.problems]
        self._reported = _report_new(self.report, labelled, self._reported)
        for w in result.warnings:
            self.report(f"warning: {w}")
        self.report(result.summary_line())
        if self.facts is not None:
            self._facts()
        return result

    def _remember_files(self) -> None:
        self._walked = _files_under(self.cfg.paths, self._out)
        self._walked_dirs = {d for f in self._walked for d in _parents(f)}

    def _facts(self) -> None:
        assert self.facts is not None
        fcfg = dataclasses.replace(self.facts, run=self.cfg)
        try:
            with self._around():
                res = run_facts(fcfg)
        except BatchsumError as exc:
            self.report(f"facts failed: {exc}; still watching")
            return
        self._facts_reported = _report_new(self.report, [("failed", p) for p in res.problems], self._facts_reported)
        self.report("facts: " + res.summary_line())

    # ---- watching --------------------------------------------------------------------------
    def _relevant(self, change: Any, path: str) -> bool:
        if self._is_root(path):
            return True  # a watched root itself: its loss means the OS watch must be set up again
        real = os.path.realpath(path)
        if real == self._out or real.startswith(self._out + os.sep):
            return False  # our own writes
        name = os.path.basename(path)
        if name == IGNORE_FILE and os.path.dirname(os.path.abspath(path)) in self._roots:
            return True  # the rules the run walks by: it drops what they leave out now, reads what they let in
        if name.startswith(".") or self._ignored(path):
            return False
        if os.path.isdir(path):
            # A folder matters through its files only: one made or moved in brings them (see _as_files),
            # a changed date or mode changes none of them.
            return change != _change().modified
        if os.path.lexists(path):
            return _read_ext(path)  # the walk reads no file without a known one (vim's "4913" probe)
        # Gone: a file the run would have read, or a folder the last run read files in.
        return _read_ext(path) or os.path.abspath(path) in self._walked_dirs

    def _as_files(self, changes: set[tuple[Any, str]]) -> set[tuple[Any, str]]:
        """``changes`` with each folder event as the events of the files under it that a run reads: a
        folder made or moved in brings files no event names, one deleted or moved away takes the files the
        last run read in it. An empty folder made or removed is nothing a run would see. Paths are
        absolute: a file named by its own event and by its folder's is one."""
        change = _change()
        files: set[tuple[Any, str]] = set()
        for c, p in changes:
            here = os.path.abspath(p)
            if self._is_root(p):
                files.add((c, here))
            elif os.path.isdir(p):
                found = _files_under([Path(here)], self._out)
                files.update((change.added, f) for f in found if self._reads(f))
            elif here in self._walked_dirs and not os.path.lexists(p):
                gone = (f for f in self._walked if f.startswith(here + os.sep) and self._reads(f))
                files.update((change.deleted, f) for f in gone)
            else:
                files.add((c, here))
        return files

    def _reads(self, path: str) -> bool:
        """Whether a run reads the file ``path`` (its name, extension and the ignore rules)."""
        return not os.path.basename(path).startswith(".") and _read_ext(path) and not self._ignored(path)

    def _ignored(self, path: str) -> bool:
        """Whether a run never reads ``path``: the walk skips it (a dot folder on the way, such as
        ".obsidian" or ".trash", or a ``--ignore`` or ``.batchsumignore`` rule), so a write there starts none."""
        here = os.path.abspath(path)
        for given in self.cfg.paths:
            root = os.path.abspath(given)
            if here.startswith(root + os.sep) and os.path.isdir(root):
                rel = os.path.relpath(here, root).replace(os.sep, "/")
                return walk_skips(rel, self._spec(given, root))
        return False

    def _spec(self, given: Path, root: str) -> Any:
        """The ignore rules a run walks the watched folder ``given`` with, read again when its
        ``.batchsumignore`` changed."""
        try:
            st = os.stat(os.path.join(root, IGNORE_FILE))
            stamp: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        cached = self._specs.get(root)
        if cached is None or cached[0] != stamp:
            patterns = [*self.cfg.ignore, *self.cfg.corpus_ignores.get(str(given), [])]
            cached = self._specs[root] = (stamp, ignore_spec(Path(root), patterns, []))
        return cached[1]

    def _is_root(self, path: str) -> bool:
        return os.path.abspath(path) in self._roots

    def loop(self) -> None:
        """Run once, then after every debounced burst of relevant changes, until :meth:`stop`.

        An OS watch dies with the folder it watches: a watched root that is deleted, replaced (a sync
        tool, ``git checkout``) or remounted is watched afresh once it is there again, and a run
        catches up on whatever changed while it was not watched."""
        while not self._stop.is_set():
            present = [p for p in self.cfg.paths if os.path.lexists(p)]
            if not present:  # nothing to watch until a root comes back; the ticks only check for it
                self._stop.wait(STOP_CHECK_MS / 1000)
                continue
            try:
                self._watch(present)
            except FileNotFoundError:  # a root went away between the check and the OS watch
                continue

    def _watch(self, present: list[Path]) -> None:
        """Watch ``present`` until a stop request or until a watched root is lost, replaced or back."""
        import watchfiles

        started = False
        empty_since: float | None = None  # a root came back empty: the starting run waits (see _may_start)
        burst = Burst(self.debounce_ms, MAX_BURST_MS)
        seen = _identities(self.cfg.paths)
        # Unfiltered, so that writes the run would not read still hand control back here: a burst is closed
        # on time even while such writes go on (filtered out, watchfiles would wait for a relevant one).
        for raw in watchfiles.watch(
            *present,
            watch_filter=None,
            step=GROUP_MS,
            debounce=STOP_CHECK_MS,
            stop_event=self._stop,
            rust_timeout=STOP_CHECK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if self._stop.is_set():
                return
            now_ms = time.monotonic() * 1000
            if not started:
                # A run starts once the OS watch is in place, so no change can slip in between.
                started = True
                empty = _empty_roots(present)
                if empty:
                    empty_since = now_ms
                    self.report(f"{', '.join(empty)} is empty: waiting for its files (its summaries are kept)")
                else:
                    self._start_run(present)
                continue
            changes = {(c, p) for c, p in raw if self._relevant(c, p)}
            burst.add(changes, now_ms)
            if _identities(self.cfg.paths) != seen or any(self._is_root(p) for _, p in changes):
                # A lost root is gone for now, no deletion (its summaries are kept); files in it may be.
                inside = _settled(
                    self._as_files({(c, p) for c, p in burst.take() if not self._is_root(p)}), self._walked
                )
                if inside:
                    self.report(describe_changes(inside))
                # The next watch starts with a run, so nothing that changed meanwhile is missed.
                gone = [str(p) for p in self.cfg.paths if not os.path.lexists(p)]
                self.report(f"waiting for {', '.join(gone)} to come back" if gone else "watching afresh")
                return
            if empty_since is not None:
                if self._may_start(present, burst, empty_since, now_ms):
                    empty_since = None
                    burst.take()  # the starting run reads everything
                    self._start_run(present)
                continue
            if burst.closed(now_ms):
                settled = _settled(self._as_files(burst.take()), self._walked)
                if settled:  # else only files that came and went: nothing a run would see
                    self.report(describe_changes(settled))
                    self.run_once()

    def _may_start(self, present: list[Path], burst: Burst, empty_since: float, now_ms: float) -> bool:
        """Whether the starting run, held back by a root that came back empty, may start: a folder
        replaced by a new one and refilled a moment later (``mv``, ``mkdir``, ``cp``) is still gone for
        now, so never read as every file deleted. It starts once the root has files and their burst is
        over, or once it stayed empty for ``--debounce``."""
        if _empty_roots(present):
            return now_ms - empty_since >= self.debounce_ms
        return not burst.changes or burst.closed(now_ms)

    def _start_run(self, present: list[Path]) -> None:
        self.run_once()
        self.report(f"watching {', '.join(str(p) for p in present)} (Ctrl-C to stop)")

    def start_thread(self, on_error: Callable[[Exception], None] | None = None) -> Watcher:
        """Watch in a background thread (``serve --watch``). A watcher that fails ends; ``on_error`` is told
        why (the server keeps serving and says so in ``/health``), else it is logged with its traceback."""
        self._thread = threading.Thread(target=self._thread_main, args=(on_error,), name="batchsum-watch", daemon=True)
        self._thread.start()
        return self

    def _thread_main(self, on_error: Callable[[Exception], None] | None) -> None:
        try:
            self.loop()
        except Exception as exc:  # a background watcher reports and ends; the server keeps serving
            if on_error is None:
                log.exception("watcher stopped: %s", exc)
            else:
                on_error(exc)

    def stop(self, timeout: float = 60.0) -> None:
        """Stop watching; a run in progress finishes first (waited for up to ``timeout`` seconds when
        :meth:`start_thread` started the watcher)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        """Whether the thread of :meth:`start_thread` still runs."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def stopping(self) -> bool:
        """Whether a stop has been asked for."""
        return self._stop.is_set()

    @property
    def running(self) -> bool:
        """Whether a run (or its facts pass) is in progress."""
        return self._running


def _report_new(
    report: Callable[[str], None], labelled: list[tuple[str, Problem]], before: dict[str, tuple[str, str]]
) -> dict[str, tuple[str, str]]:
    """Report each problem (label, Problem) that was not among ``before`` as it is now; the problems now.
    A problem that went away and came back is new again."""
    now = {p.path: (label, p.reason) for label, p in labelled}
    for path, (label, reason) in now.items():
        if before.get(path) != (label, reason):
            report(f"{label}: {path}: {reason}")
    return now


def _identities(paths: list[Path]) -> list[tuple[int, int] | None]:
    """Which file system object each path is now (None: missing): a replaced or remounted root differs."""
    out: list[tuple[int, int] | None] = []
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            out.append(None)
        else:
            out.append((st.st_dev, st.st_ino))
    return out


def _change() -> Any:
    from watchfiles import Change  # loaded with the watch, not with this module

    return Change


def _read_ext(path: str) -> bool:
    """Whether ``path`` has an extension the walk reads."""
    return os.path.splitext(path)[1].lower() in ALL_EXTS


def _parents(path: str) -> list[str]:
    """The folders ``path`` is in, nearest first, up to the file system's root."""
    out = []
    parent = os.path.dirname(path)
    while parent and parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out


def _empty_roots(paths: list[Path]) -> list[str]:
    """The watched folders among ``paths`` without any entry."""
    empty = []
    for p in paths:
        try:
            with os.scandir(p) as entries:
                if next(entries, None) is None:
                    empty.append(str(p))
        except (NotADirectoryError, FileNotFoundError):
            continue
    return empty


def _files_under(roots: list[Path], out: str) -> set[str]:
    """The files (absolute paths) under ``roots``, the output folder ``out`` and dot folders aside."""
    found: set[str] = set()
    for root in roots:
        for folder, dirs, files in os.walk(os.path.abspath(root)):
            dirs[:] = [d for d in dirs if not d.startswith(".") and os.path.join(folder, d) != out]
            found.update(os.path.join(folder, f) for f in files)
    return found


def _settled(changes: set[tuple[Any, str]], walked: set[str]) -> set[tuple[Any, str]]:
    """``changes`` without the paths created and gone again since the last run (an editor's probe, a
    temp file renamed into place) that were not among the files ``walked`` then: the tree never had them,
    a run would see nothing of them. A file saved by a rename onto it ("sed -i") is added too, so one the
    last run read and that is gone now is a deletion."""
    from watchfiles import Change

    came = {p for c, p in changes if c == Change.added}
    return {(c, p) for c, p in changes if p not in came or os.path.lexists(p) or os.path.abspath(p) in walked}


def describe_changes(changes: set[tuple[Any, str]]) -> str:
    """One line for a burst of watchfiles changes (settled: :func:`_settled`): ``1 changed: a.md; 1 deleted:
    b.md``. A path is deleted when it had a deletion and is gone now: an editor that saves by replacing the
    file deletes and re-creates it in one burst, which is a change."""
    from watchfiles import Change

    deleted = {p for c, p in changes if c == Change.deleted and not os.path.lexists(p)}
    parts: list[str] = []
    for label, paths in (("changed", {p for _, p in changes} - deleted), ("deleted", deleted)):
        if paths:
            parts.append(f"{len(paths)} {label}: {_shown(sorted(os.path.relpath(p) for p in paths))}")
    return "; ".join(parts)


def _shown(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def now() -> str:
    """Local wall-clock time for report lines."""
    return time.strftime("%H:%M:%S")
