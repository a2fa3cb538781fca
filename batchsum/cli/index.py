"""``batchsum index``: its options and help (what ``batchsum index --help`` loads); the work is done in
:mod:`batchsum.cli.index_body`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import SEARCH_INDEX_FIELDS, schema_options
from batchsum.lazy import load

DEFAULT_OUT = Path("batchsum-out")


@click.command()
@click.argument("out_arg", metavar="[OUT]", required=False, type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="Output folder of a batchsum run (or give it as OUT).")  # fmt: skip
@click.option("--rebuild", is_flag=True, help="Drop the index and re-index from the Markdown tree alone.")
@click.option("--check", is_flag=True, help="Report nodes missing from the index, stale ones and orphans.")
@click.option("--stats", is_flag=True, help="Show the index's size on disk per part and per node (reads only).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--wait", is_flag=True, help="Wait for a run on the same output instead of exiting with code 3.")
@schema_options(*SEARCH_INDEX_FIELDS)
@click.pass_context
@translate_errors
def index(ctx: click.Context, out_arg: Path | None, **params: Any) -> None:
    """Check, repair or rebuild the search index of output folder OUT (or --out).

    Without options: index every node that is missing or stale and drop orphans.
    --check exits with code 1 when the index and the tree differ. Repairing and rebuilding take
    the output's lock, like a run (exit code 3 while a run holds it).
    """
    params["out"] = _output_folder(ctx, out_arg, params["out"])
    load("batchsum.cli.index_body:index")(**params)


def _output_folder(ctx: click.Context, positional: Path | None, option: Path) -> Path:
    """OUT or --out. OUT, which scripts and the docs use, wins over BATCHSUM_OUT and the config file
    like any flag; two different folders on one command line are a mistake to report, not to guess at."""
    if positional is None:
        return option
    given = ctx.get_parameter_source("out") is ParameterSource.COMMANDLINE
    if given and Path(os.path.realpath(positional)) != Path(os.path.realpath(option)):
        raise click.UsageError(f"OUT {positional} and --out {option} name different folders: give one")
    return positional
