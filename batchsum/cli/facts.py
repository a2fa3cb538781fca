"""``batchsum facts``: its options and help (what ``batchsum facts --help`` loads); the extraction runs in
:mod:`batchsum.cli.facts_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import index_options, llm_options
from batchsum.lazy import load


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
def facts(**params: Any) -> None:
    """Extract atomic facts from new journal entries and conversation turns in PATHS and reconcile them
    with what OUT already knows (ADD / UPDATE / DELETE / NONE). Needs an OpenAI-compatible --base-url (or
    the one OUT remembers); options left out take the settings OUT remembers, as with `batchsum run`.

    Exit codes (as run's): 0 done, 1 a file failed or the pass stopped (an unusable server, SIGTERM),
    2 usage error, 3 output locked, 4 degraded (answers that were no valid JSON; asked again next time)."""
    load("batchsum.cli.facts_body:facts")(**params)
