"""Named exceptions of batchsum.

The hierarchy::

    BatchsumError                 base of everything we raise on purpose
    ├── ConfigError               bad option, pipeline file or environment (exit 2)
    │   ├── PipelineError         a pipeline YAML file is invalid (names the line)
    │   ├── StorageError          the output cannot be written: read-only, full, no permission
    │   └── RayUnavailable        ``ray.init`` failed: nothing was done or recorded (exit 2)
    ├── InputError                one source file cannot be read or decoded
    │   └── NotASource            a file that holds nothing to summarize (an export's metadata): skipped, no failure
    ├── SummarizationError        a node could not be summarized (cause attached)
    │   ├── AbortRun              ``--on-error abort``: stop the run, keep what is done
    │   │   └── LLMUnavailable     the LLM server cannot be used at all: the run stops
    │   │       ├── LLMUnreachable   it refuses connections (or its host is unknown)
    │   │       └── LLMAuthError     it rejects the API key (HTTP 401/403)
    │   └── LLMSummaryError       compaction's LLM summary failed (``compact(abort_on_failure=True)``)
    ├── LockedError               another run holds the output folder (exit 3)
    ├── MetricsError              the metrics database is newer, corrupt or unusable
    └── IndexError_               the search index is missing, corrupt or incompatible

The CLI maps these to exit codes; library code never calls ``sys.exit``.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batchsum.engine.records import RunResult


class BatchsumError(Exception):
    """Base class of all batchsum errors."""


class ConfigError(BatchsumError):
    """A usage or configuration problem; the CLI exits with code 2."""


class SettingsChanged(ConfigError):
    """A re-run with an LLM backend would summarize files again because a setting changed, and
    neither ``--yes`` nor ``--rebuild`` was given (the CLI exits with code 5)."""


class PipelineError(ConfigError):
    """A pipeline file is invalid; the message names the file and line."""


class StorageError(ConfigError):
    """An OS error on a file batchsum must write; the message names the path and what to do."""

    def __init__(self, path: str, exc: OSError) -> None:
        super().__init__(f"{path}: {describe_os_error(exc)}")
        self.path = path
        self.errno = exc.errno


_OS_ADVICE = {
    errno.EROFS: "read-only file system; give a writable --out (or remount it read-write)",
    errno.EACCES: "permission denied; make it writable by this user or give another --out",
    errno.EPERM: "operation not permitted; make it writable by this user or give another --out",
    errno.ENOSPC: "no space left on device; free some space and run again (finished work is kept)",
    errno.EDQUOT: "disk quota exceeded; free some space and run again (finished work is kept)",
    errno.EFBIG: "file too large for this file system or the process's file-size limit (ulimit -f)",
    errno.EISDIR: "is a folder where a file belongs; move it away and run again",
    errno.ENOTDIR: "a file is where a folder belongs; move it away and run again",
}


def describe_os_error(exc: OSError) -> str:
    """One line: what went wrong and what to do about it."""
    advice = _OS_ADVICE.get(exc.errno or 0)
    if advice is not None:
        return advice
    return exc.strerror or str(exc) or type(exc).__name__


class RayUnavailable(ConfigError):
    """``--executor ray``: Ray could not be started or joined (``ray.init`` failed, e.g. a driver and cluster
    of other Ray versions, or a head gone since it was checked); raised before the run records anything,
    so the output folder is as it was and the next run has nothing to resume (the CLI exits with code 2)."""


class InputError(BatchsumError):
    """A single source file could not be read; the batch goes on."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class NotASource(InputError):
    """A file found among the sources that holds nothing to summarize (a Slack export's ``users.json``):
    counted as skipped with the reason, not a failure."""


class SummarizationError(BatchsumError):
    """A summary node could not be produced."""

    def __init__(
        self, message: str, *, node_id: str | None = None, cause: BaseException | None = None, output: Any = None
    ) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.cause = cause
        # What the failed node spent (a SummaryOutput with no text: its requests sent, tokens, attempts and
        # error), for its metrics row; None when nothing was sent or it is not known.
        self.output = output


class AbortRun(SummarizationError):
    """Raised under ``--on-error abort``: the run stops, finished work is kept."""


class Interrupted(AbortRun):
    """Ctrl-C or SIGTERM stopped the run: the files that finished are kept, the next run resumes."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`batchsum.run`: raised once the finished files are committed and the run is
    recorded, so a script's ``except KeyboardInterrupt`` stops it; ``result`` is the aborted run's."""

    def __init__(self, result: RunResult) -> None:
        super().__init__("interrupted by Ctrl-C")
        self.result = result


class LLMSummaryError(SummarizationError):
    """Compaction's LLM could not produce a valid summary (sanitized message, no secrets): raised by
    ``compact(..., abort_on_failure=True)``, else the rule-based summary is kept."""


class LLMUnavailable(AbortRun):
    """The LLM server cannot be used for any node; falling back node by node would hide it."""


class LLMUnreachable(LLMUnavailable):
    """The LLM server refuses connections or its host cannot be resolved."""


class LLMAuthError(LLMUnavailable):
    """The LLM server rejects the credentials (HTTP 401/403)."""


class LockedError(BatchsumError):
    """Another batchsum run holds the output folder's lock; the CLI exits with code 3."""


class MetricsError(BatchsumError):
    """The metrics database cannot be used (newer schema, corrupt file, ...)."""


class IndexError_(BatchsumError):  # noqa: N801 - trailing underscore avoids shadowing the builtin
    """The search index is missing, corrupt or built by another embedding model."""

    #: False when the system refused the index a resource (open files, permissions): it is not damaged,
    #: so a rebuild must not move it aside.
    damaged: bool = True
