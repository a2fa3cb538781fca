"""``batchsum compact``: compact one chat or agent session file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.agent_transcript import read_transcript, render_transcript
from batchsum.cli._common import setup_logging, translate_errors
from batchsum.cli._schema_options import COMPACT_LLM_FIELDS, llm_config, schema_options
from batchsum.compact import CompactConfig, compact
from batchsum.compact.record import SummaryRecord
from batchsum.errors import ConfigError, InputError


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
    type=click.IntRange(16),
    default=500,
    show_default=True,
    help="Upper bound of the summary (also at most half of what it replaces, min 128).",
)
@schema_options(*COMPACT_LLM_FIELDS)
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
def compact_cmd(
    session: Path,
    context_window: int,
    preserve_recent: int,
    max_summary_tokens: int,
    history_path: Path | None,
    out_path: Path | None,
    as_json: bool,
    quiet: bool,
    **params: Any,
) -> None:
    """Compact SESSION (chat .json/.jsonl, or Markdown with ### user / ### assistant sections).

    Old messages become one summary message; the newest --preserve-recent stay verbatim. Prints
    the compacted session in the input's layout, or with --json the result object.
    """

    setup_logging(quiet=quiet)
    transcript = read_transcript(session)
    history: list[SummaryRecord] | None = None
    if history_path is not None:
        history = _read_history(history_path)
    llm = llm_config(params)
    if llm.model and not llm.base_url:
        raise ConfigError("--model needs --base-url (or OPENAI_BASE_URL)")
    llm.context_window = max(context_window, 512)
    backend = llm if llm.base_url else None
    config = CompactConfig(preserve_recent=preserve_recent, max_summary_tokens=max_summary_tokens)
    result = compact(
        transcript.messages, context_window=context_window, config=config, backend=backend, history=history
    )
    if as_json:
        text = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    else:
        text = render_transcript(
            result.messages, transcript.format, preamble=transcript.preamble, extra=transcript.extra
        )
    if out_path is not None:
        out_path.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if not quiet:
        verdict = "compacted" if result.compacted else "unchanged"
        click.echo(
            f"{session}: {verdict}, {result.tokens_before} -> {result.tokens_after} tokens ({result.mode}): "
            f"{result.reason}",
            err=True,
        )
        for note in result.notes:
            if not (result.llm_error and result.llm_error in note):  # said once, below
                click.echo(f"note: {note}", err=True)
    if result.llm_error:
        click.echo(f"warning: the LLM summary failed ({result.llm_error}); the rule-based summary was used", err=True)


def _read_history(path: Path) -> list[SummaryRecord]:
    """Summary records from a --json result (its ``record``) or a JSON list of records."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"not a JSON file ({exc})") from None
    if isinstance(data, dict) and "record" in data:
        data = [data["record"]] if data["record"] else []
    if not isinstance(data, list):
        raise InputError(str(path), "expected a --json result or a list of summary records")
    try:
        return [SummaryRecord.from_dict(item) for item in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(str(path), f"not a summary record ({exc})") from None
