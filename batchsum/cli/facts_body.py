"""The work of the facts commands: ``batchsum facts`` (its options and help are declared in
:mod:`batchsum.cli.facts`) and ``batchsum run --facts``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import setup_logging
from batchsum.cli._schema_options import folder_config
from batchsum.engine.stopping import sigterm_stops
from batchsum.errors import ConfigError
from batchsum.memory.ingest import FactsConfig, FactsResult, run_facts


def facts(paths: tuple[Path, ...], out: Path, content_type: str, scope: str | None, ignore: tuple[str, ...],
          git: bool, wait: bool, as_json: bool, quiet: bool, verbose: bool, **params: Any) -> None:  # fmt: skip
    """Extract and reconcile the facts of PATHS into OUT (options left out: the settings OUT remembers);
    exit with the result's code."""
    setup_logging(quiet, verbose, stops_reported=True)
    if not paths:
        raise ConfigError("give at least one file or folder to extract facts from")
    cfg = folder_config(list(paths), out, params, content_type=content_type, ignore=list(ignore), git=git,
                        wait_lock=wait, quiet=quiet)  # fmt: skip
    with sigterm_stops():  # a nightly job's timeout stops the pass as it stops a run
        result = run_facts(FactsConfig(run=cfg, scope=scope, json_format=params["json_format"]))
    if as_json:
        click.echo(json.dumps(result.as_json()))
    echo_facts(result, summary=not (quiet or as_json), failures=not as_json)
    raise SystemExit(result.exit_code)


def echo_facts(result: FactsResult, *, summary: bool, failures: bool = True, prefix: str = "") -> None:
    """A facts pass on the terminal: its failures, unusable answers and stop on stderr (``failures``: what
    --json carries instead), then its ``summary`` line (``prefix`` + line) on stdout. Without that line, a
    stop is said on stderr (--quiet, --json), as a run's abort is."""
    if failures:
        for p in result.problems:
            click.echo(f"failed: {p.path}: {p.reason}", err=True)
        if result.malformed:
            click.echo(
                f"warning: {result.malformed} malformed answer(s): their entries are asked again by the next"
                " `batchsum facts` (another --model may answer better)",
                err=True,
            )
    if summary:
        click.echo(prefix + result.summary_line())
    elif result.stopped_by is not None:
        click.echo(f"facts stopped: {result.stopped_note()}", err=True)
