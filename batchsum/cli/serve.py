"""``batchsum serve``: its options and help (what ``batchsum serve --help`` loads); the server is started by
:mod:`batchsum.cli.serve_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import index_options, llm_options
from batchsum.lazy import load


@click.command()
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("batchsum-out"),
    show_default=True,
    help="Output folder whose summaries and facts are served (conversations are written there).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free one).")
@click.option(
    "--serve-key",
    envvar="BATCHSUM_SERVE_KEY",
    metavar="KEY",
    help="Key clients must send as 'Authorization: Bearer KEY' [env BATCHSUM_SERVE_KEY].",
)
@llm_options
@index_options
@click.option(
    "--watch",
    "watch_paths",
    multiple=True,
    type=click.Path(path_type=Path, exists=True),
    help="Also summarize these sources incrementally whenever they change (repeatable).",
)
@click.option("--debounce", default="2s", show_default=True, help="--watch: wait this long after a change.")
@click.option("--no-facts", is_flag=True, help="Do not extract facts from the conversations.")
@click.option("--no-summaries", is_flag=True, help="Do not keep the conversations' summary trees.")
@click.option(
    "--top-k",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Facts and earlier turns injected per request.",
)
@click.option("--git", is_flag=True, help="Commit the written conversations, facts and summaries.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@translate_errors
def serve(**params: Any) -> None:
    """An OpenAI-compatible chat endpoint (POST /v1/chat/completions, GET /v1/models) that answers
    through the upstream --base-url/--model with the summaries and facts of OUT injected, and keeps
    each conversation's turns, facts and summary under OUT/conversations/."""
    load("batchsum.cli.serve_body:serve")(**params)
