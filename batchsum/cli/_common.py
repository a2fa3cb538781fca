"""Shared CLI helpers: exit codes and error translation."""

from __future__ import annotations

import functools
import logging
import math
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from batchsum.engine import RUN_LOGGER
from batchsum.errors import BatchsumError, ConfigError, IndexError_, LockedError, MetricsError, describe_os_error
from batchsum.remembered import SettingsChanged
from batchsum.walk_paths import shown

EXIT_SOME_FAILED = 1
EXIT_USAGE = 2
EXIT_LOCKED = 3
EXIT_SETTINGS_CHANGED = 5

F = TypeVar("F", bound=Callable[..., Any])


def exit_code_for(exc: BatchsumError) -> int:
    """Map a named exception to its documented exit code."""
    if isinstance(exc, LockedError):
        return EXIT_LOCKED
    if isinstance(exc, SettingsChanged):
        return EXIT_SETTINGS_CHANGED
    if isinstance(exc, (ConfigError, IndexError_, MetricsError)):
        return EXIT_USAGE
    return EXIT_SOME_FAILED


def translate_errors(func: F) -> F:
    """Turn our exceptions into one-line messages on stderr and exit codes; with ``--json`` also a JSON
    object on stdout, so a script piping into ``jq`` gets the error instead of empty input."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BatchsumError as exc:
            _fail(str(exc), type(exc).__name__, exit_code_for(exc), _json_wanted())
        except BrokenPipeError:
            # The reader went away (`batchsum search ... | head`): nothing to report to anyone. Python
            # would print a second error when it flushes stdout at exit, so stdout goes to /dev/null.
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(1) from None
        except OSError as exc:
            # A full disk, a read-only or vanished output: one line naming the path and what to do
            # (finished work is kept: every file is written atomically).

            where = f"{exc.filename}: " if exc.filename else ""
            _fail(f"{where}{describe_os_error(exc)}", "OSError", EXIT_USAGE, _json_wanted())

    return wrapper  # type: ignore[return-value]


def _json_wanted() -> bool:
    """Whether the command prints JSON (``--json``, ``report --format json``, a config file's ``json: true``), as
    the group records it for every command (:class:`batchsum.cli.LazyGroup`)."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get("batchsum.json"))


def _fail(message: str, kind: str, code: int, as_json: bool) -> None:
    if as_json:
        import json

        click.echo(json.dumps({"error": message, "kind": kind, "exit_code": code}))
    # A name holding a newline must not fake a line of its own; a message of several lines keeps them.
    click.echo("Error: " + "\n".join(shown(line) for line in message.split("\n")), err=True)
    raise SystemExit(code) from None


def setup_logging(quiet: bool = False, verbose: bool = False, *, stops_reported: bool = False) -> None:
    """Warnings and errors to stderr; info with --verbose. ``stops_reported``: the command says what
    stopped it itself (a run's abort line, a facts pass's STOPPED), so the error the LLM client logs as
    it stops (a record marked ``reported``) is left out here: it had been printed twice or thrice."""
    level = logging.WARNING
    if verbose:
        level = logging.INFO
    if quiet:
        level = logging.ERROR
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    # A run's warnings and problems are in its closing summary, which the commands print: not twice.
    handler.addFilter(lambda record: not record.name.startswith(RUN_LOGGER))
    if stops_reported:  # the terminal's handler; a log file a caller configured keeps the record
        handler.addFilter(lambda record: not getattr(record, "reported", False))
    logging.basicConfig(level=level, handlers=[handler])


def one_destination() -> bool:
    """Whether stdout and stderr are one file (a terminal, ``>log 2>&1``, cron's mail): a line said on
    both would be read twice. False when either has no file (a library caller's streams)."""
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return False


def finite_price(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A price option's number: NaN and infinity are refused like a negative price."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"expected a finite price, got {value}", param=param)
    return value


def price_per_million(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> tuple[float, float | None] | None:
    """``--price IN[,OUT]``: prices per million prompt and completion tokens."""
    if value is None:
        return None
    try:
        parts = [float(p) for p in value.split(",")]
    except ValueError:
        parts = []
    # A NaN or infinite price would print "$nan" as an estimate: refused like a negative one.
    if len(parts) not in (1, 2) or any(not math.isfinite(p) or p < 0 for p in parts):
        raise click.BadParameter(
            f"expected PROMPT[,COMPLETION] prices per million tokens like 0.15,0.60, got {value!r}"
        )
    return parts[0], (parts[1] if len(parts) == 2 else None)
