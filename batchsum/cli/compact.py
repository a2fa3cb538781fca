"""``batchsum compact``: its options and help (what ``batchsum compact --help`` loads); the compaction runs
in :mod:`batchsum.cli.compact_body`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import COMPACT_LLM_FIELDS, schema_options
from batchsum.compact.config import MIN_SUMMARY_TOKENS
from batchsum.lazy import load


@click.command("compact")
@click.argument("session", type=click.Path(path_type=Path))
@click.option(
    "--context-window",
    type=click.IntRange(64),
    default=8192,
    show_default=True,
    help="Context window (tokens) the session must fit.",
)
@click.option(
    "--preserve-recent",
    type=click.IntRange(0),
    default=6,
    show_default=True,
    help="Newest messages kept verbatim.",
)
@click.option(
    "--max-summary-tokens",
    type=click.IntRange(MIN_SUMMARY_TOKENS),
    default=500,
    show_default=True,
    help=f"Upper bound of the summary (at least {MIN_SUMMARY_TOKENS}; also at most half of what it replaces, min 128).",
)
@schema_options(*COMPACT_LLM_FIELDS, "redact")
@click.option(
    "--history",
    "history_path",
    type=click.Path(path_type=Path),
    help="JSON file of earlier summary records (a --json result or a list of records) to chain from.",
)
@click.option("--out", "out_path", type=click.Path(path_type=Path), help="Write the output here instead of stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print the result object (tokens, summary, record, messages).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors on stderr.")
@translate_errors
def compact_cmd(**params: Any) -> None:
    """Compact SESSION (chat .json/.jsonl, or Markdown with ### user / ### assistant sections).

    Old messages become one summary message; the newest --preserve-recent stay verbatim. Prints
    the compacted session in the input's layout, or with --json the result object.
    """
    load("batchsum.cli.compact_body:compact_cmd")(**params)
