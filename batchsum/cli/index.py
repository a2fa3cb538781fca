"""``batchsum index``: its options and help (what ``batchsum index --help`` loads); the work is done in
:mod:`batchsum.cli.index_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import SEARCH_INDEX_FIELDS, schema_options
from batchsum.lazy import load


@click.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True, help="Drop the index and re-index from the Markdown tree alone.")
@click.option("--check", is_flag=True, help="Report nodes missing from the index, stale ones and orphans.")
@click.option("--stats", is_flag=True, help="Show the index's size on disk per part and per node (reads only).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--wait", is_flag=True, help="Wait for a run on the same output instead of exiting with code 3.")
@schema_options(*SEARCH_INDEX_FIELDS)
@translate_errors
def index(**params: Any) -> None:
    """Check, repair or rebuild the search index of output folder OUT.

    Without options: index every node that is missing or stale and drop orphans.
    --check exits with code 1 when the index and the tree differ. Repairing and rebuilding take
    the output's lock, like a run (exit code 3 while a run holds it).
    """
    load("batchsum.cli.index_body:index")(**params)
