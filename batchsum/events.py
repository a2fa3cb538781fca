"""One-line-per-event run log for ``--log-file`` and ``--log-format json``.

Each call to :meth:`EventLog.event` writes exactly one line: JSON objects for log shippers
(``{"ts": ..., "event": ..., "level": ..., **fields}``) or ``ts level event k=v ...`` text.
Secrets never reach the file: values under keys such as ``api_key`` or ``authorization``
are replaced, and any ``sk-...`` or ``Bearer ...`` string is masked wherever it appears.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TextIO

from batchsum.secrets import MASK, is_secret_key, scrub_argv, scrub_text

LogFormat = Literal["text", "json"]
LEVELS = ("debug", "info", "warning", "error")
_BARE = re.compile(r"[^\s\"'=\\]+")

__all__ = ["MASK", "EventLog", "is_secret_key", "scrub", "scrub_argv", "scrub_text", "utc_timestamp"]


def scrub(value: Any, key: str | None = None) -> Any:
    """Return ``value`` with secrets masked, recursing into mappings and sequences."""
    if key is not None and is_secret_key(key) and value not in (None, ""):
        return MASK
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return {str(k): scrub(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


def utc_timestamp() -> str:
    """Current time as ISO 8601 UTC with milliseconds, e.g. ``2026-10-01T02:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    text = str(value)
    # Quote anything that could split the line or be mistaken for another k=v pair.
    return text if _BARE.fullmatch(text) else json.dumps(text, ensure_ascii=False)


class EventLog:
    """Append-only event log, one line per event, safe to call from any thread.

    ``path`` None disables the log unless ``stream`` is given; ``Path("-")`` means stderr.
    The file is opened in append mode and line-buffered, so each event reaches the OS
    as soon as it is written and a killed run still leaves complete lines.
    """

    def __init__(self, path: Path | None, fmt: LogFormat = "text", *, stream: TextIO | None = None) -> None:
        if fmt not in ("text", "json"):
            raise ValueError(f"unknown log format {fmt!r} (expected 'text' or 'json')")
        self.path = path
        self.fmt: LogFormat = fmt
        self._lock = threading.Lock()
        self._owned = False
        self._fh: TextIO | None = stream
        if path is not None and str(path) == "-":
            self._fh = sys.stderr
        elif path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed in close()
            self._owned = True

    @property
    def enabled(self) -> bool:
        """True while events are written somewhere."""
        return self._fh is not None

    def format(self, name: str, /, level: str = "info", **fields: Any) -> str:
        """The line (without newline) that :meth:`event` would write."""
        level = level.lower()
        record: dict[str, Any] = {"ts": utc_timestamp(), "event": name, "level": level}
        for key, value in scrub(fields).items():
            # A field may not overwrite the envelope; keep it under a prefixed name instead.
            record[f"field_{key}" if key in record else key] = value
        if self.fmt == "json":
            return json.dumps(record, ensure_ascii=False, default=str, separators=(",", ":"))
        head = f"{record.pop('ts')} {record.pop('level')} {_text_value(record.pop('event'))}"
        tail = " ".join(f"{k}={_text_value(v)}" for k, v in record.items())
        return f"{head} {tail}" if tail else head

    def event(self, name: str, /, level: str = "info", **fields: Any) -> None:
        """Write one event line; a closed or disabled log ignores the call."""
        if self._fh is None:
            return
        line = self.format(name, level, **fields)
        with self._lock:
            fh = self._fh
            if fh is None:
                return
            fh.write(line + "\n")
            fh.flush()

    def handler(self, level: int = logging.WARNING) -> logging.Handler:
        """A logging handler that forwards library log records as ``log`` events."""
        return _EventHandler(self, level)

    def close(self) -> None:
        """Flush and close the file (streams we did not open are only detached)."""
        with self._lock:
            fh, self._fh = self._fh, None
            if fh is not None:
                if self._owned:
                    fh.close()
                else:
                    fh.flush()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class _EventHandler(logging.Handler):
    """Turns ``logging`` records (warnings about skipped files, retries...) into events."""

    def __init__(self, log: EventLog, level: int) -> None:
        super().__init__(level)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = record.levelname.lower()
            self._log.event(
                "log",
                level=level if level in LEVELS else "error",
                logger=record.name,
                message=record.getMessage(),
            )
        except Exception:  # logging must never break the run
            self.handleError(record)
