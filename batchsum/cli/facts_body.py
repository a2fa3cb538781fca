"""The work of the facts commands: ``batchsum facts`` (its options and help are declared in
:mod:`batchsum.cli.facts`) and ``batchsum run --facts``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import setup_logging
from batchsum.cli._schema_options import build_config
from batchsum.config import RunConfig
from batchsum.errors import ConfigError
from batchsum.memory.ingest import FactsConfig, FactsResult, run_facts


def facts(paths: tuple[Path, ...], out: Path, content_type: str, scope: str | None, ignore: tuple[str, ...],
          git: bool, wait: bool, as_json: bool, quiet: bool, verbose: bool, **params: Any) -> None:  # fmt: skip
    """Extract and reconcile the facts of PATHS into OUT; exit with the result's code."""
    setup_logging(quiet, verbose)
    if not paths:
        raise ConfigError("give at least one file or folder to extract facts from")
    cfg = build_config(list(paths), out, params, content_type=content_type, ignore=list(ignore), git=git,
                       wait_lock=wait, quiet=quiet)  # fmt: skip
    result = run_facts(FactsConfig(run=cfg, scope=scope, json_format=params["json_format"]))
    if as_json:
        c = result.changes
        click.echo(json.dumps({
            "files": result.files, "unchanged": result.unchanged, "documents_skipped": result.other,
            "units": result.units, "added": len(c.added), "updated": len(c.updated), "deleted": len(c.deleted),
            "kept": c.kept, "malformed": result.malformed,
            "problems": [{"path": p.path, "reason": p.reason} for p in result.problems],
            "seconds": round(result.seconds, 3),
        }))  # fmt: skip
    elif not quiet:
        for p in result.problems:
            click.echo(f"failed: {p.path}: {p.reason}", err=True)
        click.echo(result.summary_line())
        if result.malformed:
            click.echo(
                f"warning: {result.malformed} malformed answer(s): their entries are asked again by the next"
                " `batchsum facts` (another --model may answer better)",
                err=True,
            )
    raise SystemExit(result.exit_code)


def after_run(cfg: RunConfig) -> FactsResult:
    """``batchsum run --facts``: the facts of the sources the run has just summarized."""
    return run_facts(FactsConfig(run=cfg))
