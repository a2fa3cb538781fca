"""``batchsum watch``: its options and help (what ``batchsum watch --help`` loads); the watcher runs in
:mod:`batchsum.cli.watch_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import WATCH_RUN_FIELDS, index_options, llm_options, schema_options
from batchsum.lazy import load
from batchsum.model import TYPE_CHOICES


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("batchsum-out"),
    show_default=True,
    help="Output folder for the summary tree and state.",
)
@click.option("--debounce", default="2s", show_default=True, help="Wait this long after a change (2s, 500ms).")
@click.option(
    "--type",
    "content_type",
    type=click.Choice(list(TYPE_CHOICES)),
    default="auto",
    show_default=True,
    help="Content type of every file (auto: decide per file).",
)
@click.option("--ignore", multiple=True, help="Extra gitignore-style pattern to skip (repeatable).")
@llm_options
@schema_options(*WATCH_RUN_FIELDS)
@index_options
@click.option("--facts", "with_facts", is_flag=True, help="Also extract facts after each run (needs --base-url).")
@click.option("--no-metrics", is_flag=True, help="Do not record metrics.")
@click.option("--git", is_flag=True, help="Commit each run in the output folder's git repository.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@translate_errors
def watch(**params: Any) -> None:
    """Summarize PATHS into OUT, then again (incrementally) whenever files are created, modified or
    deleted. Holds OUT's lock only while writing; stops cleanly on Ctrl-C or SIGTERM."""
    load("batchsum.cli.watch_body:watch")(**params)
