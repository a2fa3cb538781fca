"""``batchsum search``: its options and help (what ``batchsum search --help`` loads); the search runs in
:mod:`batchsum.cli.search_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import SEARCH_INDEX_FIELDS, schema_options
from batchsum.lazy import load
from batchsum.model import CONTENT_TYPES

DEFAULT_OUT = Path("batchsum-out")


@click.command()
@click.argument("query")
@click.option("--out", "-o", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="Output folder of a batchsum run.")  # fmt: skip
@click.option("-k", "--limit", "k", type=click.IntRange(min=1), default=5, show_default=True, help="Number of results.")
@click.option(
    "--level",
    type=click.Choice(["1", "2", "3", "final", "period"]),
    help="Only this tree level (final: top nodes; period: month, year and folder digests).",
)
@click.option(
    "--type",
    "content_type",
    type=click.Choice(list(CONTENT_TYPES)),
    help="Only sources of this content type (no digests).",
)
@click.option("--path", "path_glob", metavar="GLOB", help="Only sources whose relative path matches, e.g. 'notes/*'.")
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m", "%Y"]), metavar="DATE",
              help="Only documents dated on or after DATE (YYYY-MM-DD; YYYY-MM or YYYY: its first day).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option("--role", type=click.Choice(["summary", "memory"]), default="summary", show_default=True,
              help="Search summaries, or the facts of `batchsum facts` / `batchsum serve` (memory).")  # fmt: skip
@click.option("--reranker", type=click.Path(path_type=Path), metavar="PATH",
              help="ONNX cross-encoder (file or folder, tokenizer.json beside it) to score hits.")  # fmt: skip
@click.option("--strict", is_flag=True, help="Fail when the index is incomplete or outdated (else: a warning).")
@schema_options(*SEARCH_INDEX_FIELDS)
@translate_errors
def search(**params: Any) -> None:
    """Search every summary of an output folder for QUERY (all tree levels; scores are absolute, 0..1).

    Only hits of at least a minimum relevance are shown; a query nothing answers says so.
    """
    load("batchsum.cli.search_body:search")(**params)
