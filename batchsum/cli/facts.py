"""``batchsum facts``: parse options, call :func:`batchsum.memory.run_facts`, print what changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import setup_logging, translate_errors
from batchsum.cli._schema_options import build_config, index_options, llm_options
from batchsum.errors import ConfigError


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(path_type=Path), default=Path("batchsum-out"), show_default=True,
              help="Output folder (facts go under <scope>/facts/ there).")  # fmt: skip
@click.option("--type", "content_type", type=click.Choice(["auto", "journal", "conversation"]), default="auto",
              show_default=True, help="Treat every file as this type (documents yield no facts).")  # fmt: skip
@click.option("--scope", help="One memory scope for all sources [default: a journal's folder, a conversation's path].")
@click.option("--ignore", multiple=True, help="Extra gitignore-style pattern to skip (repeatable).")
@llm_options
@index_options
@click.option("--git", is_flag=True, help="Commit the changed facts in the output folder's git repository.")
@click.option("--wait", is_flag=True, help="Wait for a run on the same output instead of exiting with code 3.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one line of JSON.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@translate_errors
def facts(paths: tuple[Path, ...], out: Path, content_type: str, scope: str | None, ignore: tuple[str, ...],
          git: bool, wait: bool, as_json: bool, quiet: bool, verbose: bool, **params: Any) -> None:  # fmt: skip
    """Extract atomic facts from new journal entries and conversation turns in PATHS and reconcile them
    with what OUT already knows (ADD / UPDATE / DELETE / NONE). Needs an OpenAI-compatible --base-url."""
    # Lazy: fact extraction loads asyncio and pydantic; `batchsum facts --help` does not.
    from batchsum.memory.ingest import FactsConfig, run_facts

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
