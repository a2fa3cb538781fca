"""Named exceptions of batchsum.

The hierarchy::

    BatchsumError                 base of everything we raise on purpose
    ├── ConfigError               bad option, pipeline file or environment (exit 2)
    │   └── PipelineError         a pipeline YAML file is invalid (names the line)
    ├── InputError                one source file cannot be read or decoded
    ├── SummarizationError        a node could not be summarized (cause attached)
    │   └── AbortRun              ``--on-error abort``: stop the run, keep what is done
    │       └── LLMUnavailable     the LLM server cannot be used at all: the run stops
    │           ├── LLMUnreachable   it refuses connections (or its host is unknown)
    │           └── LLMAuthError     it rejects the API key (HTTP 401/403)
    ├── LockedError               another run holds the output folder (exit 3)
    ├── MetricsError              the metrics database is newer, corrupt or unusable
    └── IndexError_               the search index is missing, corrupt or incompatible

The CLI maps these to exit codes; library code never calls ``sys.exit``.
"""

from __future__ import annotations


class BatchsumError(Exception):
    """Base class of all batchsum errors."""


class ConfigError(BatchsumError):
    """A usage or configuration problem; the CLI exits with code 2."""


class PipelineError(ConfigError):
    """A pipeline file is invalid; the message names the file and line."""


class InputError(BatchsumError):
    """A single source file could not be read; the batch goes on."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SummarizationError(BatchsumError):
    """A summary node could not be produced."""

    def __init__(self, message: str, *, node_id: str | None = None, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.cause = cause


class AbortRun(SummarizationError):
    """Raised under ``--on-error abort``: the run stops, finished work is kept."""


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
